"""Test stand-ins, the output side: a tone voice and a virtual speaker that plays at device pace on the clock."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from genx.agentkit.testing_input import MIME, RATE, VirtualClock, tone
from genx.chunk import Blob, MessageChunk
from genx.errors import Done
from genx.stream import Stream


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
