"""The voice loop in realtime mode on real audio: PulseAudio virtual devices, PortAudio, a local websocket server.

``[loop] pipeline = "realtime"`` with a ``[[realtime]]`` model whose provider
points at a server on 127.0.0.1 (the key comes from an environment reference).
Two tests replay the recorded OpenAI Realtime and Gemini Live sessions
(``../shared/fixtures/providers/realtime``, skipped when absent) with the loop as
the client: every frame it sends is compared with the recording, except the
microphone audio it streams meanwhile (the recording has none) and Gemini's
``sessionResumption`` request (the loop asks for it; the recorded client did not).
The third test is a scripted OpenAI server: a question spoken into the virtual
microphone is answered with audio on the speaker, speech over the answer stops it,
and the truncate the server receives carries the milliseconds the speaker
recording shows were played; the stored answer is the transcript's words up to
that position.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.server import ServerConnection

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PA_MIC, PA_SPEAKER, PulseServer, loud_span
from test_voice_loop_e2e import QUIET_DBFS, RATE, SKY_QUESTION, Live, first_quiet_ms

from genx.agentkit.events import AssistantDone, BargeIn, LoopState, UserFinal
from genx.tools import FuncTool
from tests.realtime_fakes import Replay, load_session, recv_until, replay, ws_server
from tests.realtime_loop_fakes import heard_words

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]

KEY_VAR = "PARLEY_TEST_REALTIME_KEY"
STORY = (
    "Once upon a time a small brave dragon lived high in the mountains, where the wind was cold and the stars "
    "were close, and every evening she flew down to the valley to watch the river shine in the moonlight."
)
STORY_MS = 9000  # the scripted answer's audio
STOP_PHRASE = "Wait, stop there please."


def realtime_settings(tmp_path: Path, url: str, provider_kind: str, realtime: str) -> Any:
    from app.settings import load_settings

    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[loop]
pipeline = "realtime"
realtime = "realtime/test"
end_of_turn_silence_ms = 500

[providers.local]
kind = "{provider_kind}"
base_url = "{url}"
api_key = {{ env = "{KEY_VAR}" }}

[[realtime]]
name = "realtime/test"
provider = "local"
{realtime}
""",
        encoding="utf-8",
    )
    return load_settings(path)


class RealtimeLive(Live):
    """:class:`Live` on given settings, with the session's tools replaced (the recordings offered one tool each)."""

    def __init__(self, server: PulseServer, store_dir: Path, settings: Any, tools: list[FuncTool] | None = None) -> None:
        from app.headless import Session

        super().__init__(server, store_dir)
        self.session = Session(settings, input_device=PA_MIC, output_device=PA_SPEAKER, store=self.store)
        self.tools = tools

    async def __aenter__(self) -> RealtimeLive:
        stack = self.session.build()
        if self.tools is not None:
            stack.realtime_tools[:] = self.tools
        await super().__aenter__()
        return self


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VAR, "sk-test-local")


async def test_the_recorded_openai_session_answers_a_typed_question_with_the_tool_run_by_the_loop(
    pulse_env: PulseServer, tmp_path: Path
) -> None:
    frames = load_session("openai-tool-call-round.jsonl")
    rec = Replay()
    weather = FuncTool(
        "get_weather",
        "Look up the weather for a city.",
        {"additionalProperties": False, "properties": {"city": {"type": "string"}}, "required": ["city"], "type": "object"},
        lambda city: "It is foggy and 12 degrees in London.",
    )
    handler = replay(frames, rec, timeout=30.0, skip=lambda f: f.get("type") == "input_audio_buffer.append")
    async with ws_server(handler) as url:
        settings = realtime_settings(
            tmp_path,
            url,
            "openai-chat",
            'kind = "openai-realtime"\nmodel = "gpt-realtime"\noutput = "text"\ninput_transcription = "gpt-realtime-whisper"\n'
            'instructions = "Use the get_weather tool for any weather question, then answer in one short sentence."',
        )
        async with RealtimeLive(pulse_env, tmp_path, settings, tools=[weather]) as live:
            await asyncio.sleep(0.5)  # the microphone streams to the session meanwhile
            live.loop.send_text("What is the weather in London?")
            await live.wait_for(lambda: bool(live.of(AssistantDone)), 30, "the answer")
            await asyncio.wait_for(rec.finished.wait(), 10)
            await live.wait_for(lambda: live.loop.state is LoopState.LISTENING, 10, "listening again")
            await live.loop.flush_store()
    assert rec.mismatches == [], "\n".join(rec.mismatches)
    assert len(rec.received) == 5
    appended = [base64.b64decode(f["audio"]) for f in rec.skipped if f.get("type") == "input_audio_buffer.append"]
    assert sum(len(a) for a in appended) >= 0.3 * 24000 * 2  # the microphone went to the session, at 24 kHz
    done = live.of(AssistantDone)
    assert len(done) == 1 and not done[0].interrupted, live.timeline()
    assert done[0].spoken_text == "It is foggy and 12 degrees in London."
    recs = live.store.load(live.loop.conversation_id)
    assert [(r.user_text, r.assistant_text, r.interrupted) for r in recs] == [
        ("What is the weather in London?", "It is foggy and 12 degrees in London.", False)
    ]


async def test_the_recorded_gemini_session_plays_its_audio_and_stores_its_transcript(pulse_env: PulseServer, tmp_path: Path) -> None:
    frames = load_session("gemini-live-tool-call-round.jsonl")
    rec = Replay()
    reading = FuncTool(
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
        lambda zqx_measurement, qbf_note=None: "Recorded 5 (steady).",
    )
    handler = replay(frames, rec, timeout=30.0, skip=lambda f: "realtimeInput" in f, ignore=frozenset({"sessionResumption"}))
    async with ws_server(handler) as url:
        settings = realtime_settings(
            tmp_path,
            url,
            "gemini",
            'kind = "gemini-live"\nmodel = "gemini-2.5-flash-native-audio-preview-09-2025"\ninput_transcription = "on"\n'
            'instructions = "Use record_reading when asked to record a reading, then confirm it in one sentence."',
        )
        async with RealtimeLive(pulse_env, tmp_path, settings, tools=[reading]) as live:
            await asyncio.sleep(0.3)
            live.loop.send_text('Please record a reading of 5 with the note "steady".')
            await live.wait_for(lambda: bool(live.of(AssistantDone)), 30, "the answer")
            await asyncio.wait_for(rec.finished.wait(), 10)
            await live.loop.flush_store()
    assert rec.mismatches == [], "\n".join(rec.mismatches)
    assert len(rec.received) == 3
    assert any("realtimeInput" in f for f in rec.skipped)  # the microphone went to the session
    done = live.of(AssistantDone)
    transcript = 'I have recorded a reading of 5 with the note "steady."'
    # the recording's audio (52 x 33 bytes, 36 ms) was played to its end: the whole transcript was heard
    assert len(done) == 1 and not done[0].interrupted and done[0].spoken_text == transcript, live.timeline()
    recs = live.store.load(live.loop.conversation_id)
    assert [(r.user_text, r.assistant_text) for r in recs] == [('Please record a reading of 5 with the note "steady".', transcript)]


def tone24k(ms: int) -> bytes:
    n = 24000 * ms // 1000
    return (np.sin(np.arange(n) * 2 * np.pi * 330 / 24000) * 8000).astype("<i2").tobytes()


async def test_a_spoken_question_gets_audio_back_and_speech_over_it_truncates_the_item_at_the_played_ms(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    got: dict[str, Any] = {}
    truncated = asyncio.Event()

    async def send(conn: ServerConnection, frame: dict[str, Any]) -> None:
        await conn.send(json.dumps(frame))

    async def respond(conn: ServerConnection, rid: str, item: str, ms: int, text: str) -> None:
        """The transcript at once, the audio in 100 ms deltas paced at about real time (after a 300 ms head start)."""
        await send(conn, {"type": "response.created", "response": {"id": rid}})
        for w in text.split(" "):
            d = {"type": "response.output_audio_transcript.delta", "response_id": rid, "item_id": item, "delta": w + " "}
            await send(conn, d)
        pcm = tone24k(ms)
        for n, i in enumerate(range(0, len(pcm), 4800)):
            b64 = base64.b64encode(pcm[i : i + 4800]).decode()
            await send(conn, {"type": "response.output_audio.delta", "response_id": rid, "item_id": item, "delta": b64})
            if n >= 2:
                await asyncio.sleep(0.1)
        done = {"type": "response.done", "response": {"id": rid, "status": "completed", "usage": {"input_tokens": 9, "output_tokens": 9}}}
        await send(conn, done)

    async def server(conn: ServerConnection) -> None:
        got["update"] = await recv_until(conn, "session.update")
        await send(conn, {"type": "session.updated", "session": {"id": "sess_1"}})
        seen: list[Any] = []
        await recv_until(conn, "input_audio_buffer.commit", seen, wait=60)
        got["question"] = sum(len(base64.b64decode(f["audio"])) for f in seen if f.get("type") == "input_audio_buffer.append")
        await recv_until(conn, "response.create", wait=10)
        done = {"type": "conversation.item.input_audio_transcription.completed", "item_id": "item_q", "transcript": SKY_QUESTION}
        await send(conn, done)
        await respond(conn, "resp_1", "item_story", STORY_MS, STORY)
        after: list[Any] = []
        got["truncate"] = await recv_until(conn, "conversation.item.truncate", after, wait=60)
        got["before_truncate"] = [f.get("type") for f in after]
        truncated.set()
        await recv_until(conn, "response.create", wait=60)  # the interruption was a turn too: answer it briefly
        await respond(conn, "resp_2", "item_ok", 400, "Okay.")
        await conn.wait_closed()

    question, stop = say_espeak(SKY_QUESTION), say_espeak(STOP_PHRASE)  # synthesized before the loop runs
    async with ws_server(server) as url:
        manual = 'kind = "openai-realtime"\nmodel = "gpt-realtime"\nturn_detection = "manual"'
        settings = realtime_settings(tmp_path, url, "openai-chat", manual)
        async with RealtimeLive(pulse_env, tmp_path, settings) as live:
            await asyncio.sleep(0.5)
            _, q_end = live.say(question)
            await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 60, "the answer to play")
            await asyncio.sleep(2.5)
            onset, _ = live.say(stop)
            await asyncio.wait_for(truncated.wait(), 30)
            cut_at = time.monotonic()
            audio = await live.recording(0.4)
            await live.wait_for(lambda: len(live.of(AssistantDone)) >= 2, 60, "the answer to the interruption")
            await live.loop.flush_store()
    assert got["update"]["session"]["audio"]["input"]["turn_detection"] is None
    assert got["question"] >= 1.0 * 24000 * 2  # the question's utterance went to the session, resampled to 24 kHz
    trunc = got["truncate"]
    assert trunc["item_id"] == "item_story" and trunc["content_index"] == 0
    assert got["before_truncate"][-1:] == ["response.cancel"]  # the response was still running: cancelled, then truncated
    ms = int(trunc["audio_end_ms"])
    # cut mid-answer: 2.5 s of wall clock after the first audio, less what a loaded machine's underruns held back
    assert 500 < ms < STORY_MS - 2000, live.timeline()
    # what the speaker played (its monitor recording) matches the position the provider was told
    assert live.rec is not None
    after_question = audio[live.rec.index_at(q_end) :]
    span = loud_span(after_question, RATE, QUIET_DBFS)
    assert span is not None, "nothing was played"
    quiet = first_quiet_ms(after_question, span[0])  # the answer's tone, up to where the speaker went quiet
    assert quiet is not None, "the speaker never went quiet after the cut"
    played_ms = float(quiet)
    assert abs(played_ms - ms) < 400, f"played {played_ms:.0f} ms, truncated at {ms} ms\n{live.timeline()}"
    barge = live.of(BargeIn)
    assert len(barge) == 1 and barge[0].latency_ms < 1000, live.timeline()
    assert onset < cut_at
    first = live.of(AssistantDone)[0]
    assert first.interrupted
    # the stored words are a prefix of the transcript and never reach past the share of it that was played (while
    # the response still arrives the loop assumes a brisk speaking rate, so it may keep fewer words, never more)
    at_most = heard_words(STORY, (ms + 2) / STORY_MS)
    assert STORY.startswith(first.spoken_text) and len(first.spoken_text) <= len(at_most), (ms, first.spoken_text)
    assert len(first.spoken_text) >= len(heard_words(STORY, 0.5 * ms / STORY_MS)) > 0, (ms, first.spoken_text)
    assert live.of(UserFinal)[0].text == SKY_QUESTION
    recs = live.store.load(live.loop.conversation_id)
    assert (recs[0].user_text, recs[0].assistant_text, recs[0].interrupted) == (SKY_QUESTION, first.spoken_text, True)
