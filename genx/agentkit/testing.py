"""Deterministic stand-ins for the voice loop's parts, driven by a virtual clock.

For unit tests, demos and UI development without models or audio devices:

* :class:`VirtualClock`: seconds, advanced by the test.
* :class:`ScriptedMic`: capture chunks (16 kHz, 10 ms) from a speech script
  (``[(start, end), …]`` seconds of "speech" = a loud tone, silence elsewhere),
  timestamped with the virtual clock.
* :class:`EnergyClassifier`: a VAD frame classifier (voiced = loud), for the
  real ``genx.local.vad.VadTransformer``.
* :class:`ScriptedAsr`: utterance routes → ``partial`` / ``final`` transcript
  routes with scripted texts (one per utterance, in order).
* :class:`ScriptedGenerator`: answers with tokens released at scripted virtual
  times after the call (optionally failing after them); records every context
  and whether the stream was closed (cancelled).
* :class:`ToneSynthesizer`: a streamkit ``Synthesizer`` with a fixed number of
  samples per character (so the test knows which bytes are which words).
* :class:`VirtualPlayer`: an ``AudioOutput`` that pulls at device pace as the
  clock advances, keeps ``lead_ms`` of audio buffered, reports played / heard
  samples (heard lags by ``latency_ms``) and records what it handed to the
  "device" per route.
* :class:`Rig`: all of the above around a :class:`~genx.agentkit.loop.VoiceLoop`,
  with :meth:`Rig.run_until` stepping time in 10 ms ticks.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genx.agentkit.events import Event, EventBus
from genx.agentkit.loop import LoopConfig, VoiceLoop
from genx.agentkit.store import ConversationStore
from genx.agentkit.tts import StreamkitSpeech
from genx.chunk import Blob, Message, MessageChunk, Role, Text
from genx.errors import Done
from genx.model import ModelContext, Usage
from genx.stream import Stream, StreamBuilder

RATE = 16000
MIME = "audio/l16; channels=1; rate=16000"


class VirtualClock:
    __slots__ = ("t",)

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def tone(n: int, amp: int = 8000, phase: int = 0) -> bytes:
    t = np.arange(phase, phase + n)
    return (amp * np.sin(t * 2 * math.pi * 220 / RATE)).astype("<i2").tobytes()


class ScriptedMic:
    """Capture stream: speech (a tone) during the scripted intervals, silence elsewhere."""

    def __init__(self, clock: VirtualClock, speech: Sequence[tuple[float, float]] = (), amp: int = 8000) -> None:
        self.clock = clock
        self.speech: list[tuple[float, float]] = list(speech)
        self.amp = amp
        self.builder = StreamBuilder()
        self._n = 0

    @property
    def stream(self) -> Stream:
        return self.builder.stream

    def say(self, start: float, end: float) -> None:
        self.speech.append((start, end))

    def speaking(self, t: float) -> bool:
        return any(a <= t < b for a, b in self.speech)

    def tick(self, t0: float, dt: float) -> None:
        """Push the capture of ``[t0, t0 + dt)`` (10 ms frames)."""
        n = round(dt * RATE)
        frame = RATE // 100
        for i in range(0, n, frame):
            t = t0 + i / RATE
            data = tone(frame, self.amp, self._n) if self.speaking(t) else bytes(frame * 2)
            self._n += frame
            if not self.builder.ended:
                self.builder.push(MessageChunk.blob(MIME, data, role=Role.USER, timestamp=round(t * 1000)))


class EnergyClassifier:
    """VAD frame classifier for tests: voiced when the frame's peak exceeds ``threshold``."""

    def __init__(self, threshold: int = 1000) -> None:
        self.threshold = threshold

    def is_speech(self, frame: bytes) -> bool:
        a = np.frombuffer(frame, dtype="<i2")
        return bool(a.size and int(np.abs(a.astype(np.int32)).max()) > self.threshold)

    def set_aggressiveness(self, level: int) -> None:
        pass


def energy_vad(end_silence_ms: int = 300, **kw: Any) -> Any:
    """A real ``VadTransformer`` with :class:`EnergyClassifier` frames."""
    from genx.local.vad import VadSettings, VadTransformer

    settings = VadSettings(end_silence_ms=end_silence_ms, **kw)
    return VadTransformer(settings, classifier_factory=lambda s: EnergyClassifier())


class ScriptedAsr:
    """Utterance routes in → ``partial`` then ``final`` text per route, scripted texts in order.

    With a ``clock`` and ``final_delay`` the final comes ``final_delay`` seconds after the
    utterance's EOS (released by :meth:`tick`), like a real decoder's latency.

    A ``flush`` control chunk gets a ``provisional`` text ``final_delay`` later. A
    transcript given as a sequence scripts them: the k-th flush of the route gets
    its k-th item, the final is the last item (a plain string serves both). Like
    the real ASR, a final asked for when nothing loud came after the last flush
    reuses that flush's decode: it is due when the provisional was.
    """

    def __init__(
        self,
        transcripts: Sequence[str | Sequence[str]],
        partial_every_ms: int = 200,
        clock: VirtualClock | None = None,
        final_delay: float = 0.0,
    ) -> None:
        self.transcripts: deque[str | Sequence[str]] = deque(transcripts)
        self.flushes: list[tuple[str, int]] = []  # (route id, audio bytes when flushed)
        self.partial_every = partial_every_ms * RATE // 1000 * 2
        self.utterances: list[tuple[str, int]] = []  # (route id, audio bytes)
        self.prompts: list[str] = []  # each utterance route's BOS ``meta["prompt"]`` ("" when none)
        self.clock = clock
        self.final_delay = final_delay
        self._due: list[tuple[float, StreamBuilder, list[MessageChunk]]] = []

    def tick(self) -> None:
        if self.clock is None:
            return
        now = self.clock()
        for item in list(self._due):
            t, out, chunks = item
            if t <= now + 1e-9:
                self._due.remove(item)
                if not out.ended:
                    out.push_many(chunks)

    async def transform(self, stream: Stream) -> Stream:
        out = StreamBuilder()

        def due(delay: float) -> float | None:
            return None if self.clock is None or delay <= 0 else self.clock() + delay

        def release(at: float | None, chunks: list[MessageChunk]) -> None:
            if at is None:
                out.push_many(chunks)
            else:
                self._due.append((at, out, chunks))

        async def run() -> None:
            seen: dict[str, int] = {}
            texts: dict[str, str] = {}
            script: dict[str, list[str]] = {}
            flushed: dict[str, tuple[int, float | None]] = {}  # route → (flushes so far, provisional due)
            loud_after_flush: dict[str, bool] = {}
            try:
                while True:
                    try:
                        c = await stream.next()
                    except Done:
                        break
                    sid = c.stream_id
                    if c.is_begin_of_stream() and c.is_control_only():
                        seen[sid] = 0
                        self.prompts.append(str((c.meta or {}).get("prompt", "")))
                        entry = self.transcripts.popleft() if self.transcripts else ""
                        script[sid] = [entry] if isinstance(entry, str) else list(entry) or [""]
                        texts[sid] = script[sid][-1]
                        continue
                    if sid not in seen:
                        continue
                    if c.is_control_only() and c.label == "flush" and not c.is_end_of_stream():
                        k = flushed[sid][0] + 1 if sid in flushed else 1
                        items = script[sid]
                        text = items[min(k, len(items)) - 1]
                        at = due(self.final_delay)
                        flushed[sid] = (k, at)
                        loud_after_flush[sid] = False
                        self.flushes.append((sid, seen[sid]))
                        chunk = MessageChunk.text(text, role=Role.USER, stream_id=sid, label="provisional")
                        chunk.meta = {"audio_ms": seen[sid] // 32}
                        release(at, [chunk])
                        continue
                    if isinstance(c.part, Blob) and c.part.data:
                        if sid in flushed and np.abs(np.frombuffer(c.part.data, dtype="<i2")).max(initial=0) > 1000:
                            loud_after_flush[sid] = True
                        before = seen[sid]
                        seen[sid] += len(c.part.data)
                        if before // self.partial_every != seen[sid] // self.partial_every and texts[sid]:
                            words = texts[sid].split()
                            k = max(1, min(len(words), seen[sid] // self.partial_every))
                            out.push(MessageChunk.text(" ".join(words[:k]), role=Role.USER, stream_id=sid, label="partial"))
                    if c.is_end_of_stream():
                        n = seen.pop(sid)
                        self.utterances.append((sid, n))
                        chunks = []
                        if not c.error:
                            chunks.append(MessageChunk.text(texts.pop(sid), role=Role.USER, stream_id=sid, label="final"))
                        chunks.append(MessageChunk.eos(sid, role=Role.USER, label="final", error=c.error))
                        if sid in flushed and not loud_after_flush.get(sid, True):
                            release(flushed[sid][1], chunks)  # the flush's decode serves the final
                        else:
                            release(due(self.final_delay), chunks)
                if not out.ended:
                    out.done()
            except asyncio.CancelledError:
                pass

        task = asyncio.get_running_loop().create_task(run())
        out.on_close(lambda _e: _cancel(task))
        return out.stream


def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()


@dataclass
class Reply:
    """One scripted answer: ``tokens`` as (seconds after the call, text); ``error`` raised after them."""

    tokens: list[tuple[float, str]]
    error: BaseException | None = None


@dataclass
class GenCall:
    pattern: str
    messages: list[Message]
    prompts: list[str]
    started: float
    closed: bool = False
    finished: bool = False


class ScriptedGenerator:
    def __init__(self, clock: VirtualClock, replies: Sequence[Reply] = ()) -> None:
        self.clock = clock
        self.replies: deque[Reply] = deque(replies)
        self.calls: list[GenCall] = []
        self.prefills: list[list[Message]] = []
        self._live: list[tuple[GenCall, StreamBuilder, deque[tuple[float, str]], BaseException | None]] = []

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        reply = self.replies.popleft() if self.replies else Reply([(0.05, "I have nothing more to say.")])
        call = GenCall(pattern, list(ctx.messages()), [p.text for p in ctx.prompts()], self.clock())
        self.calls.append(call)
        b = StreamBuilder()

        def closed(_e: BaseException | None) -> None:
            call.closed = True

        b.on_close(closed)
        self._live.append((call, b, deque((call.started + dt, tok) for dt, tok in reply.tokens), reply.error))
        self.tick()
        return b.stream

    async def invoke(self, pattern: str, ctx: ModelContext, tool: Any) -> tuple[Usage, Any]:
        raise NotImplementedError

    async def prefill(self, pattern: str, ctx: ModelContext) -> bool:
        """Records the conversation it was asked to evaluate ahead of the next turn."""
        self.prefills.append(list(ctx.messages()))
        return True

    def tick(self) -> None:
        now = self.clock()
        for entry in list(self._live):
            call, b, due, err = entry
            if b.ended:
                self._live.remove(entry)
                continue
            while due and due[0][0] <= now + 1e-9:
                _, tok = due.popleft()
                b.push(MessageChunk.text(tok, role=Role.ASSISTANT))
            if not due:
                call.finished = True
                if err is not None:
                    b.abort(err)
                else:
                    b.done()
                self._live.remove(entry)


class ToneSynthesizer:
    """Synthesizer: ``samples_per_char`` samples of tone per character, yielded in 20 ms blocks."""

    mime = MIME

    def __init__(self, samples_per_char: int = 800, fail_on: str | None = None) -> None:
        self.samples_per_char = samples_per_char
        self.segments: list[str] = []
        self.closed: list[str] = []  # segments whose generator was closed before the end
        self.fail_on = fail_on

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        self.segments.append(text)
        if self.fail_on is not None and self.fail_on in text:
            raise RuntimeError(f"voice failed on {text!r}")
        data = tone(len(text) * self.samples_per_char)
        block = RATE // 50 * 2
        done = False
        try:
            for i in range(0, len(data), block):
                yield data[i : i + block]
                await asyncio.sleep(0)
            done = True
        finally:
            if not done:
                self.closed.append(text)


@dataclass
class _PlayRoute:
    sid: str
    rate: int = RATE
    buf: bytearray = field(default_factory=bytearray)
    received: int = 0  # samples
    played: int = 0
    eos: bool = False
    ended: bool = False
    interrupted: bool = False
    audio: bytearray = field(default_factory=bytearray)  # what was handed to the device


@dataclass
class Position:
    stream_id: str
    rate: int
    samples_played: int
    samples_received: int
    samples_heard: int
    ended: bool = False
    interrupted: bool = False
    audible_at: float = 0.0


class VirtualPlayer:
    """An AudioOutput on the virtual clock; see the module docstring."""

    def __init__(self, clock: VirtualClock, *, lead_ms: int = 40, latency_ms: int = 30) -> None:
        self.clock = clock
        self.lead = lead_ms * RATE // 1000
        self.latency_ms = latency_ms
        self._streams: deque[Stream] = deque()
        self._routes: dict[str, _PlayRoute] = {}
        self._order: list[_PlayRoute] = []
        self._played_cbs: list[Callable[[Any], None]] = []
        self._end_cbs: list[Callable[[Any], None]] = []
        self._feeder: asyncio.Task[None] | None = None
        self._space = asyncio.Event()
        self.chunks: list[MessageChunk] = []  # every chunk pulled
        self.pull_times: list[float] = []  # clock time of each pull
        self.stops = 0
        self.device: bytearray = bytearray()  # everything handed to the device, with silence
        self.gain_db: float | None = None  # duck(): the output is this much quieter
        self.ducks: list[tuple[float, float | None]] = []  # (clock time, gain_db) per duck() call

    @property
    def latency(self) -> float:
        return self.latency_ms / 1000

    def on_played(self, cb: Callable[[Any], None]) -> Callable[[], None]:
        self._played_cbs.append(cb)
        return lambda: self._played_cbs.remove(cb)

    def on_route_end(self, cb: Callable[[Any], None]) -> Callable[[], None]:
        self._end_cbs.append(cb)
        return lambda: self._end_cbs.remove(cb)

    def duck(self, db: float | None) -> None:
        self.gain_db = db
        self.ducks.append((self.clock(), db))

    def play(self, stream: Stream) -> None:
        self._streams.append(stream)
        if self._feeder is None or self._feeder.done():
            self._feeder = asyncio.get_running_loop().create_task(self._feed())

    def route(self, sid: str) -> _PlayRoute | None:
        return self._routes.get(sid)

    def _buffered(self) -> int:
        return sum(len(r.buf) // 2 for r in self._order if not r.ended)

    async def _feed(self) -> None:
        while self._streams:
            s = self._streams[0]
            while True:
                while self._buffered() >= self.lead:
                    self._space.clear()
                    await self._space.wait()
                try:
                    c = await s.next()
                except Done:
                    break
                except Exception:
                    break
                self.chunks.append(c)
                self.pull_times.append(self.clock())
                self._handle(c)
            if self._streams and self._streams[0] is s:
                self._streams.popleft()
            for r in self._order:
                if not r.ended:
                    r.eos = True

    def _handle(self, c: MessageChunk) -> None:
        sid = c.stream_id
        r = self._routes.get(sid)
        part = c.part
        is_audio = isinstance(part, Blob) and part.mime.startswith("audio/")
        if r is None or r.ended:
            if not (is_audio or c.is_begin_of_stream()):
                return
            r = _PlayRoute(sid)
            self._routes[sid] = r
            self._order.append(r)
        if isinstance(part, Blob) and part.data and not r.eos:
            r.buf += part.data
            r.received += len(part.data) // 2
        if c.is_end_of_stream() and (part is None or is_audio):
            r.eos = True
            if c.error:
                r.buf.clear()
                r.interrupted = True
                self._end(r)

    def tick(self, dt: float) -> None:
        """The device consumes ``dt`` seconds of audio."""
        n = round(dt * RATE)
        while n > 0:
            r = next((x for x in self._order if not x.ended and (x.buf or x.eos)), None)
            if r is None:
                self.device += bytes(n * 2)
                break
            take = min(n, len(r.buf) // 2)
            if take:
                data = bytes(r.buf[: take * 2])
                del r.buf[: take * 2]
                if self.gain_db is not None:
                    x = np.frombuffer(data, dtype="<i2") * 10.0 ** (self.gain_db / 20.0)
                    data = np.rint(x).astype("<i2").tobytes()
                r.audio += data
                self.device += data
                r.played += take
                n -= take
                self._report(r)
            if not r.buf and r.eos:
                self._end(r)
            elif not take:
                self.device += bytes(n * 2)  # underrun
                break
        self._space.set()

    def _position(self, r: _PlayRoute) -> Position:
        lat = self.latency_ms * r.rate // 1000
        return Position(
            r.sid,
            r.rate,
            r.played,
            r.received,
            max(0, r.played - lat) if not r.ended else r.played,
            r.ended,
            r.interrupted,
            self.clock() + self.latency,
        )

    def _report(self, r: _PlayRoute) -> None:
        pos = self._position(r)
        for cb in list(self._played_cbs):
            cb(pos)

    def _end(self, r: _PlayRoute) -> None:
        if r.ended:
            return
        r.ended = True
        pos = self._position(r)
        for cb in list(self._end_cbs):
            cb(pos)

    async def stop(self, discard: bool = True) -> dict[str, Position]:
        self.stops += 1
        f, self._feeder = self._feeder, None
        self._streams.clear()
        if f is not None and not f.done():
            f.cancel()
            try:
                await f
            except asyncio.CancelledError:
                pass
        out: dict[str, Position] = {}
        for r in self._order:
            if r.ended:
                continue
            r.buf.clear()
            r.interrupted = True
            pos = self._position(r)
            pos.samples_heard = max(0, r.played - self.latency_ms * r.rate // 1000)
            out[r.sid] = pos
            self._end(r)
        return out


async def settle(rounds: int = 60) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


class Rig:
    """A voice loop on fakes. ``await rig.start()``, ``await rig.run_until(t)``, inspect ``rig.events``."""

    def __init__(
        self,
        *,
        speech: Sequence[tuple[float, float]] = (),
        transcripts: Sequence[str | Sequence[str]] = (),
        replies: Sequence[Reply] = (),
        config: LoopConfig | None = None,
        samples_per_char: int = 800,
        end_silence_ms: int = 300,
        store: ConversationStore | None = None,
        synthesizer: Any = None,
        latency_ms: int = 30,
        ptt_vad: bool = False,
        asr_delay: float = 0.0,
        turn_detector: Any = None,
        wake_detector: Any = None,
        memory: Any = None,
        echo_gate: Any = None,
        realtime: Any = None,
        realtime_tools: Sequence[Any] = (),
        player_class: type[VirtualPlayer] | None = None,
    ) -> None:
        self.clock = VirtualClock()
        t0 = self.clock.t
        self.mic = ScriptedMic(self.clock, [(t0 + a, t0 + b) for a, b in speech])
        self.vad = energy_vad(end_silence_ms)
        self.ptt_vad = energy_vad(end_silence_ms, mode="external") if ptt_vad else None
        self.asr = ScriptedAsr(transcripts, clock=self.clock, final_delay=asr_delay)
        self.gen = ScriptedGenerator(self.clock, replies)
        self.synth = synthesizer or ToneSynthesizer(samples_per_char)
        self.player = (player_class or VirtualPlayer)(self.clock, latency_ms=latency_ms)
        self.bus = EventBus()
        self.events: list[Event] = []
        self.bus.subscribe(self.events.append)
        cfg = config or LoopConfig(generator="fake/model", system_prompt="Be brief.")
        self.loop = VoiceLoop(
            capture=self.mic.stream,
            vad=self.vad,
            asr=self.asr,
            generator=self.gen,
            speech=StreamkitSpeech(self.synth, max_chunk_ms=20),
            player=self.player,
            config=cfg,
            ptt_vad=self.ptt_vad,
            store=store,
            turn_detector=turn_detector,
            wake_detector=wake_detector,
            memory=memory,
            echo_gate=echo_gate,
            realtime=realtime,
            realtime_tools=realtime_tools,
            clock=self.clock,
            wall_clock=lambda: 1_700_000_000.0,
            bus=self.bus,
        )
        self.t0 = t0

    async def start(self) -> None:
        await self.loop.start()
        await settle()

    @property
    def now(self) -> float:
        """Seconds since the rig's start."""
        return self.clock.t - self.t0

    async def step(self, dt: float = 0.01) -> None:
        t = self.clock.t
        self.clock.t = t + dt
        self.mic.tick(t, dt)
        self.gen.tick()
        self.asr.tick()
        await settle(10)
        self.player.tick(dt)
        await settle()

    async def run_until(self, t: float, dt: float = 0.01) -> None:
        """Advance to ``t`` seconds after the start."""
        while self.now < t - 1e-9:
            await self.step(dt)

    async def stop(self) -> None:
        await self.loop.stop()
        self.mic.builder.done()

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def text_of(self, m: Message) -> str:
        return "".join(p.text for p in m.parts if isinstance(p, Text))


__all__ = [
    "MIME",
    "RATE",
    "EnergyClassifier",
    "GenCall",
    "Position",
    "Reply",
    "Rig",
    "ScriptedAsr",
    "ScriptedGenerator",
    "ScriptedMic",
    "ToneSynthesizer",
    "VirtualClock",
    "VirtualPlayer",
    "energy_vad",
    "settle",
    "tone",
]
