"""Streaming ASR with faster-whisper: utterance routes in, transcript routes out.

Input: utterance routes (as the VAD makes them): ``audio/L16`` blobs per StreamID
(other rates / channel counts are converted to 16 kHz mono), closed by a
control EOS. Other chunks pass through unchanged. A route's BOS may carry
``meta = {"prompt": text}`` (:data:`PROMPT`): what was said just before (the
conversation's last turn), handed to the decoder for the route's final decodes
(flush, segment, final; never partials), see :class:`~genx.local.whisper.WhisperOptions`.
The decoder itself (:class:`Decoder`, :class:`WhisperDecoder`) lives in :mod:`genx.local.whisper`.

Output per utterance, role user, on the utterance's StreamID (a fresh one when the
input has none):

* a control BOS, label ``speech_start``, as soon as the utterance begins;
* ``partial`` text chunks while audio arrives: the whole hypothesis so far, with
  ``meta = {"committed": …, "tentative": …}``. The growing utterance is re-decoded
  every ``partial_interval_ms`` of new audio (never two partial decodes of one
  utterance at once); the committed prefix only grows (local agreement, see
  :mod:`genx.local.partials`);
* on a control chunk labelled ``flush`` (the speaker paused; the caller may start
  answering): one ``provisional`` text chunk, the whole utterance so far decoded
  as a final would be (``meta`` has ``audio_ms``). When nothing audible came after
  it, the final reuses that decode instead of decoding again, so a final asked
  for after a flush is ready as soon as the flush's decode is;
* one ``final`` text chunk at the utterance's EOS (``meta`` has ``audio_ms`` and
  ``decode_ms``), then a control EOS labelled ``final``. The final decode starts at
  once on its own worker thread; a partial decode still running is not awaited and
  its result is dropped. Finals are pushed in the order their utterances ended
  (decodes overlap, a short final waits for a longer one before it). An input EOS
  with an error is forwarded as the route EOS without a final.

Long utterances: Whisper reads 30 s windows, so once the open segment reaches
``segment_max_ms`` it is cut at its quietest point (searched in the last
``segment_search_ms``) and decoded once, in the background, in order; partials and
the final then decode only the open segment. A 60 s monologue therefore costs the
same per partial as a 20 s one and its final decodes at most ``segment_max_ms``.
Partials keep showing a closed segment as it was last shown (so the committed
prefix still only grows); the final uses the segment's own decode.

Threading: decodes run in worker threads (``asyncio.to_thread``); one
``WhisperModel`` is shared process-wide (CTranslate2 models may be used from
several threads). It is loaded with ``num_workers=2`` so a final never queues
behind a running partial inside CTranslate2, and ``cpu_threads`` = all cores so a
decode running alone (the common case, see below) is as fast as it can be.
Measured on 2 cores, 4.3 s clip, decode alone in a 30 s window: 2 threads ≈ 380 ms, 1 thread
≈ 560 ms (a 10 s window, see :class:`WhisperDecoder`, is ~3x faster); a final started while a partial runs: ≈ 650 ms (2 threads x 2 workers)
vs ≈ 600 ms (1 x 2) vs ≈ 730 ms (2 x 1, the final queues). Partials are kept from
hogging the CPU: the next one waits at least as long as the previous decode took
(``partial_duty``), and none starts on new audio that is all quiet (the trailing
silence the VAD waits for before closing) nor during a pause (``partial_pause_ms``
of quiet at the end: the loop may end the route for its final any moment), so a
final rarely overlaps a partial.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from genx.chunk import Blob, MessageChunk, Role
from genx.errors import Done, GenxError
from genx.ids import new_stream_id
from genx.local.models import config_mapping
from genx.local.partials import LocalAgreement, join_text
from genx.local.pcm import converter_to_16k_mono, dbfs, is_audio
from genx.local.pump import spawn_transform
from genx.local.whisper import (
    WHISPER_WINDOW_S,
    Audio,
    Decoder,
    WhisperDecoder,
    WhisperOptions,
    encoder_window_s,
    plausible_transcript,
    whisper_model,
)
from genx.stream import Stream, StreamBuilder
from genx.transformers.audiostream.pcm import PCMConverter

log = logging.getLogger(__name__)

PARTIAL = "partial"
FINAL = "final"
FLUSH = "flush"  # input control label: transcribe what the route holds so far (the speaker paused)
PROVISIONAL = "provisional"
SPEECH_START = "speech_start"
PROMPT = "prompt"  # input BOS meta key: text said before the utterance (the conversation's last turn), for its finals


class AsrConfigError(GenxError, ValueError):
    def __init__(self, field: str, value: object, why: str) -> None:
        self.field = field
        super().__init__(f"ASR setting {field}={value!r}: {why}")


@dataclass(frozen=True, slots=True)
class AsrSettings:
    partials: bool = True
    partial_interval_ms: int = 400
    min_partial_ms: int = 500  # no partial for less audio than this (Whisper guesses on tiny clips)
    partial_duty: float = 1.0  # idle time after a partial decode, as a multiple of its duration
    partial_quiet_dbfs: float = -45.0  # no partial when every 30 ms of the new audio is quieter than this
    partial_pause_ms: int = 60  # nor while the last this-many ms are that quiet (a pause: the final may be asked for next)
    segment_max_ms: int = 20_000
    segment_search_ms: int = 4_000
    silence_dbfs: float = -55.0  # quieter clips are "" without decoding
    min_decode_ms: int = 100

    def validate(self) -> AsrSettings:
        if self.partial_interval_ms < 50:
            raise AsrConfigError("partial_interval_ms", self.partial_interval_ms, "must be at least 50 ms")
        if not 2_000 <= self.segment_max_ms <= 28_000:
            raise AsrConfigError("segment_max_ms", self.segment_max_ms, "must be 2,000 … 28,000 ms (Whisper reads 30 s windows)")
        if not 200 <= self.segment_search_ms < self.segment_max_ms:
            raise AsrConfigError("segment_search_ms", self.segment_search_ms, "must be at least 200 ms and below segment_max_ms")
        return self


def loudest_frame_dbfs(buf: bytearray, start: int, frame: int = 960) -> float:
    """Level of the loudest 30 ms frame of ``buf[start:]`` (int16 bytes)."""
    start -= start % 2
    x = np.frombuffer(bytes(buf[start : len(buf) - (len(buf) - start) % 2]), dtype="<i2")
    n = x.size // (frame // 2) * (frame // 2)
    if n == 0:
        return dbfs(x)
    f = x[:n].astype(np.float32).reshape(-1, frame // 2)
    peak = float(np.sqrt(np.max(np.mean(f * f, axis=1))))
    return -120.0 if peak < 1e-3 else 20.0 * math.log10(peak / 32768.0)


def quietest_cut(samples: npt.NDArray[np.int16], search: int, hop: int = 800) -> int:
    """Sample index, within the last ``search`` samples, at the centre of the quietest 50 ms."""
    n = samples.size
    lo = max(hop, n - search)
    best, best_e = n, math.inf
    for start in range(lo, n - hop + 1, hop // 2):
        w = samples[start : start + hop].astype(np.float32)
        e = float(np.mean(w * w))
        if e < best_e:
            best, best_e = start + hop // 2, e
    return best


class AsrTransformer:
    """Streaming transcription of utterance routes; see the module docstring."""

    def __init__(self, decoder: Decoder, settings: AsrSettings | None = None) -> None:
        self.decoder = decoder
        self.settings = (settings or AsrSettings()).validate()

    async def warm(self) -> None:
        warm = getattr(self.decoder, "warm", None)
        if warm is not None:
            await warm()

    async def transform(self, stream: Stream) -> Stream:
        call = _AsrCall(self.decoder, self.settings)
        return spawn_transform(stream, lambda out: call.run(stream, out), "asr.transform")


class _AsrCall:
    __slots__ = ("decoder", "last_final", "live", "out", "routes", "settings", "tasks")

    def __init__(self, decoder: Decoder, settings: AsrSettings) -> None:
        self.decoder = decoder
        self.settings = settings
        self.routes: dict[str, _Utterance] = {}  # input StreamID → utterance still receiving audio
        self.live: list[_Utterance] = []  # utterances whose output route is not closed yet (incl. finals running)
        self.tasks: set[asyncio.Task[None]] = set()
        self.out: StreamBuilder | None = None
        self.last_final: asyncio.Task[None] | None = None  # finals are pushed in the order their utterances ended

    def spawn(self, coro: Coroutine[Any, Any, None], u: _Utterance, name: str) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(self._guard(coro, u), name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def _guard(self, coro: Coroutine[Any, Any, None], u: _Utterance) -> None:
        """A failed decode closes its route with the error and ends the whole output with it."""
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            out = self.out
            if out is not None and not out.ended:
                u.close_route(str(exc) or type(exc).__name__)
                out.abort(exc)

    async def run(self, src: Stream, out: StreamBuilder) -> None:
        self.out = out
        routes = self.routes
        try:
            while not out.ended:
                try:
                    c = await src.next()
                except Done:
                    break
                sid = c.stream_id
                part = c.part
                if isinstance(part, Blob) and is_audio(part.mime):
                    u = routes.get(sid) or self._open(sid, c.timestamp)
                    u.audio(part.mime, part.data)
                    if c.is_end_of_stream():
                        routes.pop(sid).end(c.error)
                elif c.is_control_only() and c.ctrl is not None and (c.is_begin_of_stream() or sid in routes or c.label == FLUSH):
                    if c.is_begin_of_stream():
                        old = routes.pop(sid, None)
                        if old is not None:
                            old.end("")
                        self._open(sid, c.timestamp, route_prompt(c))
                    if c.label == FLUSH and sid in routes and not c.is_end_of_stream():
                        routes[sid].flush()
                    if c.is_end_of_stream() and sid in routes:
                        routes.pop(sid).end(c.error)
                else:
                    out.push(c)
            for u in list(routes.values()):
                u.end("")
            routes.clear()
            while self.tasks:
                await asyncio.gather(*list(self.tasks))
        except BaseException as exc:
            for u in list(self.live):
                u.abandon(str(exc) or type(exc).__name__)
            routes.clear()
            for t in list(self.tasks):
                t.cancel()
            raise

    def _open(self, sid: str, ts: int, prompt: str = "") -> _Utterance:
        assert self.out is not None
        u = self.routes[sid] = _Utterance(self, sid or new_stream_id(), prompt)
        self.live.append(u)
        self.out.push(MessageChunk.bos(u.sid, role=Role.USER, label=SPEECH_START, timestamp=ts))
        return u


def route_prompt(c: MessageChunk) -> str:
    """The context text an utterance route's BOS carries (``meta[PROMPT]``), or ""."""
    meta = c.meta if isinstance(c.meta, dict) else {}
    value = meta.get(PROMPT)
    return value.strip() if isinstance(value, str) else ""


@dataclass(slots=True)
class _Utterance:
    """One utterance's audio and decode state. Lives on the event loop thread only."""

    call: _AsrCall
    sid: str
    prompt: str = ""  # context for the final decodes (the BOS meta's PROMPT)
    buf: bytearray = field(default_factory=bytearray)  # 16 kHz mono int16, the whole utterance
    seg_start: int = 0  # byte offset of the open segment
    closed: list[str] = field(default_factory=list)  # decoded text of closed segments (for the final)
    closed_shown: list[str] = field(default_factory=list)  # what partials showed of them when they closed (never changes)
    commit: asyncio.Task[None] | None = None  # last segment decode in the ordered chain
    partial: asyncio.Task[None] | None = None
    generation: int = 0  # bumped when a running partial becomes stale
    last_partial_at: int = 0
    partial_ready_at: float = 0.0  # monotonic time before which no partial starts (duty cycle)
    shown: str = ""
    seg_hypothesis: str = ""  # latest partial of the open segment: the placeholder when it closes
    agreement: LocalAgreement = field(default_factory=LocalAgreement)
    conv: PCMConverter | None = None
    conv_mime: str = ""
    ended: bool = False  # the input route ended
    route_closed: bool = False  # the output route got its EOS
    partial_count: int = 0
    # the last flush: (bytes of buf it covered, seg_start then, its decode); the final reuses it when nothing
    # audible came after it
    flushed: tuple[int, int, asyncio.Task[str]] | None = None
    provisional_sent: asyncio.Task[None] | None = None  # the last flush's push: the final goes out after it

    # -- input ------------------------------------------------------------------
    def audio(self, mime: str, data: bytes) -> None:
        if mime != self.conv_mime or self.conv is None:
            if self.conv is not None:
                self.buf += self.conv.flush()
            self.conv = converter_to_16k_mono(mime)
            self.conv_mime = mime
        if data:
            self.buf += self.conv.process(data)
        s = self.call.settings
        if len(self.buf) - self.seg_start >= s.segment_max_ms * 32:
            self._roll_segment()
        self._maybe_partial()

    def end(self, error: str) -> None:
        """The utterance's EOS: start the final decode now, or forward the error."""
        if self.ended:
            return
        self.ended = True
        self.generation += 1
        out = self.call.out
        assert out is not None
        if error:
            if self.partial is not None:
                self.partial.cancel()
            self.close_route(error)
            return
        if self.conv is not None:
            self.buf += self.conv.flush()
        self.call.last_final = self.call.spawn(self._final(self.call.last_final), self, f"asr.final:{self.sid}")

    def flush(self) -> None:
        """The speaker paused: decode what the route holds now and send it as ``provisional`` text."""
        if self.ended:
            return
        n = len(self.buf)
        if self.flushed is not None and self.flushed[0] == n:
            return
        self.generation += 1  # a partial still running is older than this
        task = asyncio.get_running_loop().create_task(self._decode_upto(n, final=True), name=f"asr.flush:{self.sid}")
        self.flushed = (n, self.seg_start, task)
        self.provisional_sent = self.call.spawn(self._provisional(task, n), self, f"asr.provisional:{self.sid}")

    async def _decode_upto(self, n: int, final: bool) -> str:
        tail = await self._decode(bytes(self.buf[self.seg_start : n]), final=final)
        if self.commit is not None:
            await self.commit
        return join_text(*self.closed, tail)

    async def _provisional(self, task: asyncio.Task[str], n: int) -> None:
        text = await task
        out = self.call.out
        if self.route_closed or out is None or out.ended or self.flushed is None or self.flushed[2] is not task:
            return
        c = MessageChunk.text(text, role=Role.USER, stream_id=self.sid, label=PROVISIONAL)
        c.meta = {"audio_ms": n // 32}
        out.push(c)

    def _reusable_flush(self) -> asyncio.Task[str] | None:
        """The last flush's decode when the audio after it is all quiet (the final would hear the same)."""
        f = self.flushed
        if f is None or f[1] != self.seg_start:
            return None
        n, _, task = f
        if len(self.buf) > n and loudest_frame_dbfs(self.buf, n) >= self.call.settings.partial_quiet_dbfs:
            return None
        return task

    def abandon(self, error: str) -> None:
        """The input failed: close the route with ``error``; pending decodes are dropped."""
        self.generation += 1
        self.ended = True
        self.close_route(error)

    def close_route(self, error: str = "") -> None:
        """Push this route's one EOS (label ``final``), unless it was pushed already or the output ended."""
        if self.route_closed:
            return
        self.route_closed = True
        if self in self.call.live:
            self.call.live.remove(self)
        out = self.call.out
        if out is not None and not out.ended:
            out.push(MessageChunk.eos(self.sid, role=Role.USER, label=FINAL, error=error))

    # -- decoding -----------------------------------------------------------------
    async def _decode(self, pcm: bytes, final: bool) -> str:
        s = self.call.settings
        samples = np.frombuffer(pcm, dtype=np.int16)
        if samples.size < s.min_decode_ms * 16 or dbfs(samples) < s.silence_dbfs:
            return ""
        audio = samples.astype(np.float32) / 32768.0
        return await asyncio.to_thread(self.call.decoder.decode, audio, final, self.prompt if final else "")

    def _maybe_partial(self) -> None:
        s = self.call.settings
        if not s.partials or self.ended or self.partial is not None:
            return
        n = len(self.buf)
        if n - self.seg_start < s.min_partial_ms * 32 or n - self.last_partial_at < s.partial_interval_ms * 32:
            return
        if time.monotonic() < self.partial_ready_at:
            return
        if loudest_frame_dbfs(self.buf, self.last_partial_at) < s.partial_quiet_dbfs:
            self.last_partial_at = n
            return
        if s.partial_pause_ms > 0 and loudest_frame_dbfs(self.buf, max(self.seg_start, n - s.partial_pause_ms * 32)) < s.partial_quiet_dbfs:
            return  # (not consumed: speech after the pause starts the partial)
        self.last_partial_at = n
        self.partial = self.call.spawn(self._partial(bytes(self.buf[self.seg_start :]), self.generation), self, f"asr.partial:{self.sid}")

    async def _partial(self, pcm: bytes, generation: int) -> None:
        t0 = time.monotonic()
        try:
            text = await self._decode(pcm, final=False)
        finally:
            self.partial = None
            t1 = time.monotonic()
            self.partial_ready_at = t1 + (t1 - t0) * self.call.settings.partial_duty
        out = self.call.out
        if generation != self.generation or self.ended or out is None or out.ended:
            log.debug("ASR %s: stale partial dropped", self.sid)
            return
        committed, tentative = self.agreement.update(text)
        self.seg_hypothesis = join_text(committed, tentative)
        shown = join_text(*self.closed_shown, committed, tentative)
        if shown and shown != self.shown:
            self.shown = shown
            self.partial_count += 1
            c = MessageChunk.text(shown, role=Role.USER, stream_id=self.sid, label=PARTIAL)
            c.meta = {"committed": join_text(*self.closed_shown, committed), "tentative": tentative}
            out.push(c)
        self._maybe_partial()

    def _roll_segment(self) -> None:
        s = self.call.settings
        seg = np.frombuffer(bytes(self.buf[self.seg_start :]), dtype=np.int16)
        cut = self.seg_start + 2 * quietest_cut(seg, s.segment_search_ms * 16)
        pcm = bytes(self.buf[self.seg_start : cut])
        self.seg_start = cut
        self.generation += 1
        self.agreement.reset()
        index = len(self.closed)
        self.closed.append("")
        self.closed_shown.append(self.seg_hypothesis)
        self.seg_hypothesis = ""
        self.commit = self.call.spawn(self._commit(self.commit, pcm, index), self, f"asr.segment:{self.sid}")
        self.last_partial_at = self.seg_start

    async def _commit(self, prev: asyncio.Task[None] | None, pcm: bytes, index: int) -> None:
        text = await self._decode(pcm, final=True)
        if prev is not None:
            await prev
        self.closed[index] = text

    async def _final(self, prev: asyncio.Task[None] | None) -> None:
        t0 = time.perf_counter()
        reuse = self._reusable_flush()
        if reuse is not None:
            text = await reuse
        else:
            text = await self._decode_upto(len(self.buf), final=True)
        if prev is not None:
            await asyncio.wait([prev])  # the previous utterance's final goes out first (its failure is its own)
        if self.provisional_sent is not None:
            await asyncio.wait([self.provisional_sent])  # a provisional text never follows its route's final
        out = self.call.out
        if out is None or out.ended:
            return
        c = MessageChunk.text(text, role=Role.USER, stream_id=self.sid, label=FINAL)
        c.meta = {
            "audio_ms": len(self.buf) // 32,
            "decode_ms": round((time.perf_counter() - t0) * 1000),
            "partials": self.partial_count,
            "from_flush": reuse is not None,
        }
        out.push(c)
        self.close_route()


def from_config(spec: object = None, secrets: object = None, *, decoder: Decoder | None = None) -> AsrTransformer:
    """Build from an ``AsrSpec`` or a mapping of :class:`WhisperOptions` / :class:`AsrSettings` keys (``path`` = model dir)."""
    spec = config_mapping(spec, "ASR")
    wkeys = {f.name for f in fields(WhisperOptions)}
    akeys = {f.name for f in fields(AsrSettings)}
    for key in spec:
        if key not in wkeys and key not in akeys:
            raise AsrConfigError(key, spec[key], f"unknown ASR setting; known: {', '.join(sorted(wkeys | akeys))}")
    wopts = {k: v for k, v in spec.items() if k in wkeys}
    if isinstance(wopts.get("path"), Path):
        wopts["path"] = str(wopts["path"])
    settings = AsrSettings(**{k: v for k, v in spec.items() if k in akeys})
    return AsrTransformer(decoder if decoder is not None else WhisperDecoder(WhisperOptions(**wopts)), settings)


__all__ = [
    "FINAL",
    "PARTIAL",
    "PROMPT",
    "SPEECH_START",
    "WHISPER_WINDOW_S",
    "AsrConfigError",
    "AsrSettings",
    "AsrTransformer",
    "Audio",
    "Decoder",
    "WhisperDecoder",
    "WhisperOptions",
    "encoder_window_s",
    "from_config",
    "plausible_transcript",
    "quietest_cut",
    "route_prompt",
    "whisper_model",
]
