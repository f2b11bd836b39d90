"""The realtime transformers against a local server replaying the recorded OpenAI Realtime and Gemini Live sessions.

The server sends every recorded ``recv`` frame and compares each frame the client
sends with the recorded ``send`` frame at that point (event ids and audio bytes
ignored). Expected values come from the MANIFEST, not from the code under test.
"""

from __future__ import annotations

import base64
import json

from genx.chunk import Blob, MessageChunk, Role, Text, ToolResult
from genx.errors import Done
from genx.generators.providers.config import ProviderConfig, Timeouts
from genx.generators.providers.toolcalls import FunctionSpec
from genx.model import Usage
from genx.stream import StreamBuilder
from genx.transformers.realtime import RealtimeSettings, RealtimeTransformer, tool_result_chunk
from genx.transformers.realtime.gemini_live import GeminiLiveDialect
from genx.transformers.realtime.openai_realtime import OpenAIRealtimeDialect
from genx.transformers.realtime.session import RealtimeSessionStream
from tests.realtime_fakes import Replay, load_session, replay, ws_server

WEATHER = FunctionSpec(
    "get_weather",
    "Look up the weather for a city.",
    {"additionalProperties": False, "properties": {"city": {"type": "string"}}, "required": ["city"], "type": "object"},
)
RECORD = FunctionSpec(
    "record_reading",
    "Store the supplied sensor value.",
    {
        "type": "object",
        "properties": {
            "zqx_measurement": {"type": "integer"},
            "qbf_note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["zqx_measurement"],
        "additionalProperties": False,
    },
)


def config(provider: str, base_url: str) -> ProviderConfig:
    return ProviderConfig(provider=provider, base_url=base_url, api_key="test-key", timeouts=Timeouts(connect=5, read=5))


async def drive(out: RealtimeSessionStream, inp: StreamBuilder, answer: str, responses_wanted: int) -> list[MessageChunk]:
    """Pull everything; answer each tool call with ``answer``; end the input after the last response's EOS."""
    chunks: list[MessageChunk] = []
    ended = 0
    while True:
        try:
            c = await out.next()
        except Done:
            return chunks
        chunks.append(c)
        if c.tool_call is not None:
            inp.push(tool_result_chunk(ToolResult(c.tool_call.id, c.tool_call.name, answer)))
        if c.role == Role.ASSISTANT and c.is_end_of_stream() and c.is_control_only():
            ended += 1
            if ended == responses_wanted:
                inp.done()


def responses(chunks: list[MessageChunk]) -> dict[str, list[MessageChunk]]:
    by: dict[str, list[MessageChunk]] = {}
    for c in chunks:
        if c.role == Role.ASSISTANT:
            by.setdefault(c.stream_id, []).append(c)
    return by


async def test_the_openai_client_sends_the_recorded_frames_and_folds_the_recorded_tool_round() -> None:
    frames = load_session("openai-tool-call-round.jsonl")
    rec = Replay()
    settings = RealtimeSettings(
        model="gpt-realtime",
        instructions="Use the get_weather tool for any weather question, then answer in one short sentence.",
        output_modalities=("text",),
        input_transcription="gpt-realtime-whisper",
        tools=(WEATHER,),
    )
    async with ws_server(replay(frames, rec)) as url:
        rt = RealtimeTransformer(OpenAIRealtimeDialect, config("openai", url), settings)
        inp = StreamBuilder()
        inp.push(MessageChunk.text("What is the weather in London?", role=Role.USER))
        out = await rt.transform(inp.stream)
        chunks = await drive(out, inp, "It is foggy and 12 degrees in London.", 2)
    assert rec.mismatches == []
    assert len(rec.received) == sum(1 for f in frames if f["dir"] == "send") == 5
    calls = [c.tool_call for c in chunks if c.tool_call is not None]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in calls] == [("call_uMNE0Myi2tDTPu0w", "get_weather", {"city": "London"})]
    by = responses(chunks)
    assert len(by) == 2  # one fresh StreamID per response
    first, second = by.values()
    assert first[-1].meta is not None and first[-1].meta["usage"] == Usage(prompt_tokens=63, generated_tokens=22)
    text = "".join(c.part.text for c in second if isinstance(c.part, Text))
    assert text == "It is foggy and 12 degrees in London."
    assert second[-1].meta is not None
    assert second[-1].meta["usage"] == Usage(prompt_tokens=103, cached_prompt_tokens=64, generated_tokens=13)
    assert second[-1].meta["status"] == "completed" and second[-1].error == ""
    assert out.usage == Usage(prompt_tokens=166, cached_prompt_tokens=64, generated_tokens=35)


async def test_the_gemini_client_sends_the_recorded_frames_and_folds_the_recorded_tool_round() -> None:
    frames = load_session("gemini-live-tool-call-round.jsonl")
    rec = Replay()
    settings = RealtimeSettings(
        model="gemini-2.5-flash-native-audio-preview-09-2025",
        instructions="Use record_reading when asked to record a reading, then confirm it in one sentence.",
        input_transcription="on",
        tools=(RECORD,),
        session_resumption=False,
    )
    async with ws_server(replay(frames, rec)) as url:
        rt = RealtimeTransformer(GeminiLiveDialect, config("gemini", url), settings)
        inp = StreamBuilder()
        inp.push(MessageChunk.text('Please record a reading of 5 with the note "steady".', role=Role.USER))
        out = await rt.transform(inp.stream)
        chunks = await drive(out, inp, "Recorded 5 (steady).", 2)
    assert rec.mismatches == []
    assert len(rec.received) == 3
    calls = [c.tool_call for c in chunks if c.tool_call is not None]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in calls] == [
        ("function-call-3225422447732038294", "record_reading", {"zqx_measurement": 5, "qbf_note": "steady"})
    ]
    by = responses(chunks)
    assert len(by) == 2
    spoken = list(by.values())[1]
    audio = [c.part.data for c in spoken if isinstance(c.part, Blob) and c.part.data]
    recorded = b"".join(
        base64.b64decode(p["inlineData"]["data"])
        for f in frames
        if f["dir"] == "recv" and "modelTurn" in f["data"].get("serverContent", {})
        for p in f["data"]["serverContent"]["modelTurn"]["parts"]
    )
    assert len(recorded) == 52 * 33  # the recording's payloads are 33 bytes each: odd, not whole samples
    assert b"".join(audio) == recorded[: len(recorded) & ~1]
    assert all(len(a) % 2 == 0 for a in audio)  # the odd byte is carried, every chunk out is whole samples
    assert {c.mime() for c in spoken if isinstance(c.part, Blob)} == {"audio/l16; channels=1; rate=24000"}
    transcript = "".join(c.part.text for c in spoken if isinstance(c.part, Text) and c.label == "transcript")
    assert transcript == 'I have recorded a reading of 5 with the note "steady."'
    assert spoken[-1].meta is not None and spoken[-1].meta["usage"] == Usage(prompt_tokens=1267, generated_tokens=103)
