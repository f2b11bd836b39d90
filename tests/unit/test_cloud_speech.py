"""Cloud ASR and TTS: OpenAI transcription and speech over httpx.MockTransport and a local HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import wave
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx
import numpy as np
import pytest

from genx.chunk import Blob, MessageChunk, Role, Text
from genx.generators.providers.config import ProviderConfig, RetryPolicy, Timeouts
from genx.generators.providers.errors import AuthenticationError
from genx.generators.providers.transport import HttpTransport
from genx.modelloader import ModelConfig, load_into
from genx.modelloader.secrets import SecretStore
from genx.stream import StreamBuilder, collect, stream_of
from genx.transformers.audiostream.pcm import l16_mime
from genx.transformers.cloud import OpenAISpeechSynthesizer, OpenAITranscriber
from genx.transformers.mux import TransformerMux
from genx.transformers.realtime import RealtimeTransformer
from genx.transformers.tts import TTSTransformer

ID3 = b"ID3\x03\x00\x00\x00\x00\x00\x05" + b"\x00" * 5  # a 15-byte ID3v2 tag


def cfg(base_url: str = "https://api.openai.com/v1") -> ProviderConfig:
    return ProviderConfig(
        provider="openai", base_url=base_url, api_key="sk-test", timeouts=Timeouts(connect=5, read=5), retry=RetryPolicy(max_retries=0)
    )


def mock(handler: Any) -> HttpTransport:
    c = cfg()
    return HttpTransport(c, httpx.AsyncClient(transport=httpx.MockTransport(handler)))


def speech(ms: int, rate: int = 16000, loud: bool = True) -> bytes:
    n = rate * ms // 1000
    x = np.sin(np.arange(n) * 2 * np.pi * 300 / rate) * (8000 if loud else 0)
    return x.astype("<i2").tobytes()


def utterance(sid: str, pcm: bytes, *, flush_after: int | None = None) -> list[MessageChunk]:
    out = [MessageChunk.bos(sid, role=Role.USER)]
    for i in range(0, len(pcm), 640):
        out.append(MessageChunk.blob(l16_mime(16000), pcm[i : i + 640], role=Role.USER, stream_id=sid))
        if flush_after is not None and i + 640 == flush_after:
            c = MessageChunk(role=Role.USER)
            c.ensure_ctrl().stream_id = sid
            c.ensure_ctrl().label = "flush"
            out.append(c)
    out.append(MessageChunk.eos(sid, role=Role.USER))
    return out


# -- TTS ----------------------------------------------------------------------------------
async def test_speech_sends_each_sentence_and_streams_pcm_back_at_24_khz() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(req: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(req.content))
        assert req.url.path == "/v1/audio/speech" and req.headers["authorization"] == "Bearer sk-test"
        return httpx.Response(200, content=b"\x01\x00" * 240)

    synth = OpenAISpeechSynthesizer(cfg(), voice="nova", transport=mock(handler))
    tts = TTSTransformer(synth)
    out = await tts.transform(stream_of(MessageChunk.text("Hello there. How are you today?", role=Role.ASSISTANT, stream_id="a1")))
    chunks = await collect(out)
    assert [b["input"] for b in bodies] == ["Hello there.", "How are you today?"]
    assert {(b["voice"], b["response_format"], b["model"]) for b in bodies} == {("nova", "pcm", "gpt-4o-mini-tts")}
    audio = [c for c in chunks if isinstance(c.part, Blob) and c.part.data]
    assert {c.mime() for c in audio} == {l16_mime(24000)} and sum(len(c.part.data) for c in audio if isinstance(c.part, Blob)) == 960
    assert chunks[-1].is_end_of_stream() and chunks[-1].stream_id == "a1"


async def test_mp3_speech_goes_through_the_normaliser_and_loses_its_id3_tag() -> None:
    frames = b"\xff\xfb" + b"\x55" * 400

    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=ID3 + frames)

    tts = TTSTransformer(OpenAISpeechSynthesizer(cfg(), response_format="mp3", transport=mock(handler)))
    chunks = await collect(await tts.transform(stream_of(MessageChunk.text("One sentence.", role=Role.ASSISTANT))))
    audio = b"".join(c.part.data for c in chunks if isinstance(c.part, Blob))
    assert audio == frames and {c.mime() for c in chunks if isinstance(c.part, Blob)} == {"audio/mpeg"}


async def test_a_rejected_key_ends_the_voice_with_a_typed_auth_error() -> None:
    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(
            401, json={"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}
        )

    tts = TTSTransformer(OpenAISpeechSynthesizer(cfg(), transport=mock(handler)))
    out = await tts.transform(stream_of(MessageChunk.text("Hi there.", role=Role.ASSISTANT)))
    with pytest.raises(AuthenticationError):
        await collect(out)


# -- ASR ----------------------------------------------------------------------------------
async def test_each_utterance_is_posted_as_a_wav_and_answered_with_a_final() -> None:
    seen: list[tuple[int, bytes]] = []

    def handler(req: httpx.Request) -> httpx.Response:
        body = req.content
        start = body.index(b"RIFF")
        with wave.open(io.BytesIO(body[start:]), "rb") as w:
            seen.append((w.getframerate(), w.readframes(w.getnframes())))
        assert b'name="model"' in body and b"whisper-1" in body
        return httpx.Response(200, json={"text": f" utterance {len(seen)} "})

    asr = OpenAITranscriber(cfg(), model="whisper-1", transport=mock(handler))
    pcm = speech(400, 48000)
    chunks = [MessageChunk.blob(l16_mime(48000), pcm, role=Role.USER, stream_id="u1"), MessageChunk.eos("u1", role=Role.USER)]
    out = await collect(await asr.transform(stream_of(*chunks, *utterance("u2", speech(300)))))
    finals = [c for c in out if isinstance(c.part, Text) and c.label == "final"]
    assert [(c.stream_id, c.part.text) for c in finals if isinstance(c.part, Text)] == [("u1", "utterance 1"), ("u2", "utterance 2")]
    assert [rate for rate, _ in seen] == [16000, 16000]
    assert abs(len(seen[0][1]) // 2 - 6400) <= 2  # 400 ms at 48 kHz arrive as 400 ms at 16 kHz
    assert [c.label for c in out if c.stream_id == "u1"] == ["speech_start", "final", "final"]


async def test_a_flush_sends_provisional_text_and_a_quiet_tail_reuses_it_for_the_final() -> None:
    calls: list[int] = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(len(req.content))
        return httpx.Response(200, json={"text": "what time is it"})

    asr = OpenAITranscriber(cfg(), model="whisper-1", transport=mock(handler))
    pcm = speech(400) + speech(200, loud=False)
    out = await collect(await asr.transform(stream_of(*utterance("u", pcm, flush_after=len(speech(400))))))
    labels = [(c.label, c.part.text) for c in out if isinstance(c.part, Text)]
    assert labels == [("provisional", "what time is it"), ("final", "what time is it")]
    assert len(calls) == 1  # the final reused the flush's request
    final = next(c for c in out if c.label == "final" and isinstance(c.part, Text))
    assert final.meta is not None and final.meta["from_flush"] is True


async def test_streamed_transcript_deltas_become_partials_before_the_final() -> None:
    sse = b"".join(
        b"data: " + json.dumps(e).encode() + b"\n\n"
        for e in (
            {"type": "transcript.text.delta", "delta": "Turn"},
            {"type": "transcript.text.delta", "delta": " it off"},
            {"type": "transcript.text.done", "text": "Turn it off."},
        )
    )
    bodies: list[bytes] = []

    def handler(req: httpx.Request) -> httpx.Response:
        bodies.append(req.content)
        return httpx.Response(200, content=sse, headers={"content-type": "text/event-stream"})

    asr = OpenAITranscriber(cfg(), transport=mock(handler))  # gpt-4o-mini-transcribe streams by default
    out = await collect(await asr.transform(stream_of(*utterance("u", speech(300)))))
    assert [(c.label, c.part.text) for c in out if isinstance(c.part, Text)] == [
        ("partial", "Turn"),
        ("partial", "Turn it off"),
        ("final", "Turn it off."),
    ]
    assert b'name="stream"' in bodies[0]


class _Handler(BaseHTTPRequestHandler):
    hits: ClassVar[list[tuple[str, str]]] = []

    def do_POST(self) -> None:
        length = int(self.headers["content-length"])
        self.rfile.read(length)
        self.hits.append((self.path, self.headers.get("authorization", "")))
        if self.path.endswith("/audio/transcriptions"):
            body = json.dumps({"text": "hello from the server"}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
        else:
            body = b"\x02\x00" * 480
            self.send_response(200)
            self.send_header("content-type", "audio/pcm")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[str]:
    _Handler.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


async def test_configured_cloud_voice_and_asr_load_from_the_model_config_and_talk_to_a_local_server(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_OPENAI_KEY", "sk-local")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-be-sent")
    config = ModelConfig.model_validate(
        {
            "providers": {"local": {"kind": "openai-chat", "base_url": http_server, "api_key": {"env": "LOCAL_OPENAI_KEY"}}},
            "voices": [{"name": "tts/cloud", "kind": "openai-speech", "provider": "local", "options": {"voice": "echo"}}],
            "asr": {"name": "asr/cloud", "kind": "openai-transcribe", "provider": "local", "model": "whisper-1"},
            "realtime": [{"name": "realtime/openai", "kind": "openai-realtime", "provider": "local"}],
        }
    )
    mux = TransformerMux()
    assert load_into(config, None, mux, secrets=SecretStore()).transformers == ["tts/cloud", "asr/cloud", "realtime/openai"]
    assert isinstance(mux.resolve("realtime/openai"), RealtimeTransformer)
    audio = await collect(await mux.transform("tts/cloud", stream_of(MessageChunk.text("Hi there.", role=Role.ASSISTANT))))
    assert sum(len(c.part.data) for c in audio if isinstance(c.part, Blob)) == 960
    text = await collect(await mux.transform("asr/cloud", stream_of(*utterance("u", speech(200)))))
    assert [c.part.text for c in text if isinstance(c.part, Text) and c.label == "final"] == ["hello from the server"]
    assert [h for h in _Handler.hits] == [("/v1/audio/speech", "Bearer sk-local"), ("/v1/audio/transcriptions", "Bearer sk-local")]


def test_a_cloud_transformer_naming_an_undeclared_provider_is_a_config_error() -> None:
    with pytest.raises(Exception, match=r"asr\[0\]\.provider: unknown provider 'nope'"):
        ModelConfig.model_validate({"asr": [{"name": "asr/x", "kind": "openai-transcribe", "provider": "nope"}]})


async def test_the_transcriber_never_blocks_on_an_empty_utterance() -> None:
    asr = OpenAITranscriber(cfg(), model="whisper-1", transport=mock(lambda r: httpx.Response(500)))
    inp = StreamBuilder()
    inp.push(MessageChunk.bos("e", role=Role.USER))
    inp.push(MessageChunk.eos("e", role=Role.USER))
    inp.done()
    out = await asyncio.wait_for(collect(await asr.transform(inp.stream)), 5)
    assert [(c.label, c.part.text if isinstance(c.part, Text) else None) for c in out] == [
        ("speech_start", None),
        ("final", ""),
        ("final", None),
    ]
