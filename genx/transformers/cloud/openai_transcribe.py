"""OpenAI transcription (``POST {base_url}/audio/transcriptions``) as an ASR transformer.

Same contract as the local ASR (:mod:`genx.local.asr`): utterance routes in
(``audio/L16`` at any rate, converted to 16 kHz mono; closed by a control EOS),
per utterance on its StreamID, role user: a control BOS labelled
``speech_start``; on a ``flush`` control chunk one ``provisional`` text (the
audio so far, transcribed now); at the EOS one ``final`` text (``meta`` has
``audio_ms`` and ``decode_ms``) and a control EOS labelled ``final``. The final
reuses the flush's request when nothing audible came after it. Finals go out in
the order their utterances ended. With ``stream`` (default for the
``gpt-4o-*transcribe`` models) the final's request streams ``transcript.text.delta``
events, shown as ``partial`` text (the transcript so far) before the final.

One multipart request (a WAV file) per utterance; failures are the typed
provider errors: the route ends with EOS(error) and the stream raises it.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
import wave
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from genx.chunk import Blob, MessageChunk, Role
from genx.errors import Done
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.errors import ProtocolError, ProviderConfigError
from genx.generators.providers.framing import SSEDecoder
from genx.generators.providers.transport import HttpTransport, WireRequest
from genx.ids import new_stream_id
from genx.local.pcm import TARGET_RATE, converter_to_16k_mono, dbfs
from genx.local.pump import spawn_transform
from genx.stream import Stream, StreamBuilder
from genx.transformers.audiostream.pcm import PCMConverter

DEFAULT_MODEL = "gpt-4o-mini-transcribe"
SPEECH_START, PARTIAL, PROVISIONAL, FINAL, FLUSH = "speech_start", "partial", "provisional", "final", "flush"
QUIET_DBFS = -45.0
OPTION_KEYS = frozenset({"language", "prompt", "stream", "timeouts", "max_retries"})


def wav_bytes(pcm: bytes, rate: int = TARGET_RATE) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)
    return buf.getvalue()


class OpenAITranscriber:
    """A configured cloud ASR; each ``transform()`` call owns its routes and requests."""

    __slots__ = ("_transport", "config", "language", "model", "prompt", "stream")

    def __init__(
        self,
        config: ProviderConfig,
        *,
        model: str = DEFAULT_MODEL,
        language: str | None = None,
        prompt: str | None = None,
        stream: bool | None = None,
        transport: HttpTransport | None = None,
    ) -> None:
        self.config = config
        self.model = model
        self.language = language
        self.prompt = prompt
        self.stream = stream if stream is not None else model.startswith("gpt-4o")
        self._transport = transport or HttpTransport(config)

    def request(self, pcm: bytes, *, stream: bool) -> WireRequest:
        body: dict[str, Any] = {"model": self.model, "response_format": "json"}
        if self.language:
            body["language"] = self.language
        if self.prompt:
            body["prompt"] = self.prompt
        if stream:
            body["stream"] = "true"
        return WireRequest(
            self.config.url("audio/transcriptions"), body, {}, files={"file": ("utterance.wav", wav_bytes(pcm), "audio/wav")}
        )

    async def transcribe(self, pcm: bytes, on_partial: Any = None) -> str:
        """The text of one clip; with streaming, ``on_partial(text so far)`` for each delta."""
        streaming = self.stream and on_partial is not None
        opened = await self._transport.open(self.request(pcm, stream=streaming))
        raw = bytearray()
        decoder = SSEDecoder()
        heard: list[str] = []
        final: str | None = None
        try:
            async for data in opened.chunks():
                if not streaming:
                    raw += data
                    continue
                for e in decoder.feed(data):
                    final = self._event(e.data, heard, on_partial) or final
            for e in decoder.close() if streaming else []:
                final = self._event(e.data, heard, on_partial) or final
        finally:
            await opened.aclose()
        if streaming:
            return final if final is not None else "".join(heard).strip()
        try:
            return str(json.loads(bytes(raw))["text"]).strip()
        except (ValueError, KeyError, TypeError) as e:
            raise ProtocolError(self.config.provider, f"the transcription response has no text: {bytes(raw)[:200]!r}") from e

    def _event(self, data: str, heard: list[str], on_partial: Any) -> str | None:
        try:
            ev = json.loads(data)
        except ValueError:
            return None
        if ev.get("type") == "transcript.text.delta" and ev.get("delta"):
            heard.append(str(ev["delta"]))
            on_partial("".join(heard).strip())
        elif ev.get("type") == "transcript.text.done":
            return str(ev.get("text", "")).strip()
        return None

    async def transform(self, stream: Stream) -> Stream:
        return spawn_transform(stream, lambda out: _Call(self, stream, out).run(), "openai-transcribe")

    async def aclose(self) -> None:
        await self._transport.aclose()


@dataclass(slots=True)
class _Utterance:
    sid: str
    pcm: bytearray = field(default_factory=bytearray)
    conv: PCMConverter | None = None
    conv_mime: str = ""
    flushed: tuple[int, asyncio.Task[str]] | None = None
    provisional: asyncio.Task[None] | None = None  # the last flush's push: the final goes out after it
    final_sent: bool = False


class _Call:
    def __init__(self, asr: OpenAITranscriber, inp: Stream, out: StreamBuilder) -> None:
        self.asr, self.inp, self.out = asr, inp, out
        self.routes: dict[str, _Utterance] = {}
        self.last: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    async def run(self) -> None:
        try:
            while True:
                try:
                    c = await self.inp.next()
                except Done:
                    break
                self.on_chunk(c)
            for sid in list(self.routes):
                self.end(sid, "")
            if self.last is not None:
                await self.last
        finally:
            for t in self.tasks:
                t.cancel()

    def on_chunk(self, c: MessageChunk) -> None:
        sid = c.stream_id
        part = c.part
        if isinstance(part, Blob) and part.mime.startswith("audio/"):
            u = self.routes.get(sid) or self.open(sid)
            if part.mime != u.conv_mime or u.conv is None:
                u.conv, u.conv_mime = converter_to_16k_mono(part.mime), part.mime
            u.pcm += u.conv.process(part.data)
            if c.is_end_of_stream():
                self.end(sid, c.error)
        elif c.is_control_only() and (c.is_begin_of_stream() or c.label == FLUSH or sid in self.routes):
            if c.is_begin_of_stream() and sid not in self.routes:
                self.open(sid)
            if c.label == FLUSH and sid in self.routes and not c.is_end_of_stream():
                self.flush(self.routes[sid])
            if c.is_end_of_stream() and sid in self.routes:
                self.end(sid, c.error)
        else:
            self.out.push(c)

    def open(self, sid: str) -> _Utterance:
        u = self.routes[sid] = _Utterance(sid or new_stream_id())
        self.out.push(MessageChunk.bos(u.sid, role=Role.USER, label=SPEECH_START))
        return u

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        t = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)
        return t

    def flush(self, u: _Utterance) -> None:
        n = len(u.pcm)
        if n == 0 or (u.flushed is not None and u.flushed[0] == n):
            return
        task = self.spawn(self.asr.transcribe(bytes(u.pcm)))
        u.flushed = (n, task)
        u.provisional = self.spawn(self.provisional(u, task, n))

    async def provisional(self, u: _Utterance, task: asyncio.Task[str], n: int) -> None:
        text = await task
        if not self.out.ended and not u.final_sent and u.flushed is not None and u.flushed[1] is task:
            c = MessageChunk.text(text, role=Role.USER, stream_id=u.sid, label=PROVISIONAL)
            c.meta = {"audio_ms": n // 32}
            self.out.push(c)

    def end(self, sid: str, error: str) -> None:
        u = self.routes.pop(sid)
        if u.conv is not None:
            u.pcm += u.conv.flush()
        if error:
            self.out.push(MessageChunk.eos(u.sid, role=Role.USER, label=FINAL, error=error))
            return
        self.last = self.spawn(self.final(u, self.last))

    async def final(self, u: _Utterance, prev: asyncio.Task[None] | None) -> None:
        t0 = time.perf_counter()
        reuse = u.flushed[1] if u.flushed is not None and dbfs(bytes(u.pcm[u.flushed[0] :])) < QUIET_DBFS else None
        try:
            if reuse is not None:
                text = await reuse
            elif len(u.pcm) == 0:
                text = ""
            else:
                text = await self.asr.transcribe(bytes(u.pcm), lambda s: self.partial(u, s))
        except Exception as exc:
            if prev is not None:
                await asyncio.wait([prev])
            if not self.out.ended:
                self.out.push(MessageChunk.eos(u.sid, role=Role.USER, label=FINAL, error=str(exc)))
            raise
        if prev is not None:
            await asyncio.wait([prev])
        if u.provisional is not None:
            await asyncio.wait([u.provisional])
        if self.out.ended:
            return
        u.final_sent = True
        c = MessageChunk.text(text, role=Role.USER, stream_id=u.sid, label=FINAL)
        c.meta = {"audio_ms": len(u.pcm) // 32, "decode_ms": round((time.perf_counter() - t0) * 1000), "from_flush": reuse is not None}
        self.out.push(c)
        self.out.push(MessageChunk.eos(u.sid, role=Role.USER, label=FINAL))

    def partial(self, u: _Utterance, text: str) -> None:
        if not self.out.ended and text:
            self.out.push(MessageChunk.text(text, role=Role.USER, stream_id=u.sid, label=PARTIAL))


def from_config(spec: Any, secrets: Any = None, **kw: Any) -> OpenAITranscriber:
    """``[asr] kind = "openai-transcribe"``: ``model``, ``provider``, ``language`` and options ``prompt``, ``stream``."""
    from genx.generators.providers.factory import connection_config

    options: Mapping[str, Any] = getattr(spec, "options", {}) or {}
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise ProviderConfigError(
            "openai", f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(OPTION_KEYS))}", key=f"options.{unknown[0]}"
        )
    cfg = connection_config(
        "openai-chat", getattr(spec, "provider_spec", None), secrets, model=getattr(spec, "model", None), options=options
    )
    language = options.get("language", getattr(spec, "language", None))
    return OpenAITranscriber(
        cfg, model=cfg.model or DEFAULT_MODEL, language=language, prompt=options.get("prompt"), stream=options.get("stream"), **kw
    )


__all__ = ["OpenAITranscriber", "from_config", "wav_bytes"]
