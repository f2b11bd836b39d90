"""The pull-based player: genx audio routes → a PortAudio output stream, with played-position reports.

Data path::

    genx Stream ──(feeder task, asyncio)──▶ small locked buffer (≤ lead_blocks blocks)
                                                   │ pulled by the PortAudio callback, block by block
                                                   ▼
                                           device (latency ≈ player.latency)

* The feeder pulls the next chunk from the genx stream only when the buffer holds fewer than
  ``lead_blocks`` blocks, so "pulled from the stream" ≈ "played". A chunk longer than a block
  is converted at once (resampled to the device rate with soxr, up-mixed) and moved into the
  buffer block by block.
* The callback never blocks and never allocates much: it copies buffered bytes into the device
  buffer, fills the rest with zeros (an *underrun* when a route is still playing), counts the
  device frames handed out per route and reports them to the loop with
  ``loop.call_soon_threadsafe``.
* Routes are genx StreamIDs. A BOS (or the first audio) opens a route, ``audio/L16`` blobs are
  played, an audio or control-only EOS ends it (its end is reported when its last sample has
  been handed to the device); an EOS with ``error`` set (e.g. streamkit's "interrupted")
  drops the route's unplayed audio at once. Other parts (text) are ignored.

Positions (:class:`PlayedPosition`) are in samples of the route's own rate:
``samples_played`` = handed to the device, ``samples_heard`` = estimated audible by now (from
PortAudio's DAC time), ``samples_received`` = pulled from the stream. Listeners get them on the
event loop via :meth:`Player.on_played` and :meth:`Player.on_route_end`.

Barge-in is :meth:`Player.stop` (``discard=True``): the buffered lead is dropped and, with
``stop_mode="abort"`` (default), the device buffer too (``abort()`` + ``start()``); with
``stop_mode="zeros"`` the device plays out what it already has (≤ its latency) and the player
outputs zeros from the next block. ``stop`` returns the positions at that moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from app.audio.backend import AudioBackend, RawStream, StreamCallback, load_backend
from app.audio.devices import DeviceInfo, StreamFormat
from app.audio.errors import AudioError, AudioFormatError
from app.audio.link import AudioEvent, DeviceLink, EventHub, EventListener, cancel_and_wait
from app.audio.pcm import SILENCE_DBFS, PcmFormat, Resampler, downmix, parse_l16, rms_dbfs, upmix
from genx.chunk import Blob, MessageChunk
from genx.deadline import within
from genx.errors import Done
from genx.stream import Stream

log = logging.getLogger(__name__)

StopMode = Literal["abort", "zeros"]
_EVENT_COALESCE_S = 1.0
_TIMELINE_LEN = 256
_CLOSED_SIDS = 1024


@dataclass(slots=True)
class PlayedPosition:
    """How far one route (StreamID) got, in samples at the route's ``rate``."""

    stream_id: str
    rate: int
    samples_played: int  # handed to the device
    samples_received: int  # pulled from the genx stream
    samples_heard: int  # estimated audible by the time of the report (≤ samples_played)
    ended: bool = False  # the route is over (its last sample was handed out, or it was stopped)
    interrupted: bool = False  # stopped by stop(discard=True) or by an EOS carrying an error
    audible_at: float = 0.0  # clock time when the last handed sample becomes audible
    error: str = ""  # why the route ended early when the player itself ended it (the device was lost)

    @property
    def played_ms(self) -> float:
        return 1000.0 * self.samples_played / self.rate if self.rate else 0.0

    @property
    def heard_ms(self) -> float:
        return 1000.0 * self.samples_heard / self.rate if self.rate else 0.0


PositionListener = Callable[[PlayedPosition], None]


@dataclass(slots=True)
class _Segment:
    """A piece of device-format audio of one route in the callback buffer (or an end marker)."""

    sid: str
    data: bytes
    offset: int = 0
    end: bool = False
    level: float = SILENCE_DBFS


# Per-route callback report: (sid, frames_before, frames_after, block_frame_start, block_frame_end, ended)
_Report = tuple[str, int, int, int, int, bool]


class _Route:
    __slots__ = (
        "audible_at",
        "bad_format",
        "ended",
        "eos",
        "fmt",
        "frames_played",
        "interrupted",
        "marker_queued",
        "pending",
        "received",
        "resampler",
        "sid",
        "started",
        "timeline",
    )

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.fmt: PcmFormat | None = None
        self.resampler: Resampler | None = None
        self.received = 0  # source samples pulled from the stream
        self.frames_played = 0  # device frames handed to the device
        self.pending = bytearray()  # converted device-format audio not yet in the callback buffer
        self.eos = False  # the stream ended this route; flush then queue the end marker
        self.marker_queued = False
        self.ended = False
        self.interrupted = False
        self.bad_format = False
        self.started = False  # audio of it reached the callback buffer
        self.audible_at = 0.0
        # (audible_from, audible_to, frames_before, frames_after) per callback block
        self.timeline: deque[tuple[float, float, int, int]] = deque(maxlen=_TIMELINE_LEN)


class Player:
    """Plays genx audio streams on one output device; see the module docstring."""

    def __init__(
        self,
        device: str | int | None = None,
        *,
        rate: int | None = None,
        block_ms: int = 20,
        lead_blocks: int = 2,
        latency: float | str = "low",
        stop_mode: StopMode = "abort",
        backend: AudioBackend | None = None,
        clock: Callable[[], float] = time.monotonic,
        reopen: bool = True,
        stall_timeout: float = 2.5,
        backoff: tuple[float, float] = (0.25, 4.0),
    ) -> None:
        if not 5 <= block_ms <= 40:
            raise AudioError(f"player block_ms={block_ms} is out of range; use 10 to 20 ms")
        if lead_blocks < 1:
            raise AudioError(f"player lead_blocks={lead_blocks} must be at least 1")
        if stop_mode not in ("abort", "zeros"):
            raise AudioError(f"player stop_mode={stop_mode!r} is not 'abort' or 'zeros'")
        self.device_spec = device
        self.requested_rate = rate or 0  # 0: the device's default rate
        self.block_ms = block_ms
        self.lead_blocks = lead_blocks
        self.stop_mode: StopMode = stop_mode
        self._latency = latency
        self._backend = backend
        self._clock = clock
        self._reopen = reopen
        self._stall_timeout = stall_timeout
        self._backoff = backoff
        self._events = EventHub()
        self._played_listeners: list[PositionListener] = []
        self._end_listeners: list[PositionListener] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._link: DeviceLink | None = None
        self._fmt: StreamFormat | None = None
        self._block_frames = 0
        self._frame_bytes = 2
        # -- shared with the callback, guarded by _lock --
        self._lock = threading.Lock()
        self._buf: deque[_Segment] = deque()
        self._buffered = 0  # audio bytes in _buf not yet handed out
        self._cb_frames: dict[str, int] = {}  # device frames handed out per route
        self._cb_active = False  # a route is playing: an empty buffer is an underrun
        self._zeros = b""
        self._dev_gen, self._dev_end = -1, 0.0  # when the last reported block stops being audible (per link generation)
        self._gain = 1.0  # output gain (duck): read by the callback, which ramps to it over one block
        # -- loop side --
        self._routes: dict[str, _Route] = {}
        self._closed_sids: OrderedDict[str, None] = OrderedDict()  # ended routes: their late chunks are ignored
        self._streams: deque[Stream] = deque()
        self._feeder: asyncio.Task[None] | None = None
        self._playing_out = False  # the feeder took every queued stream and only waits for the audio to be handed out
        self._space = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._last_underrun_event = -1e9
        self.underruns = 0
        self.device_underflows = 0
        self.level_dbfs = SILENCE_DBFS
        self.output_delay = 0.0  # last measured DAC delay (seconds from callback to audible)
        self._last_block_at: float | None = None  # clock time of the last device callback (of the live stream)
        self.lost_routes = 0  # routes ended because the device was lost

    # -- listeners ------------------------------------------------------------
    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        """Receive :class:`AudioEvent` s (opened, underrun, device_lost, reopened, …) on the loop."""
        return self._events.add(listener)

    def on_played(self, listener: PositionListener) -> Callable[[], None]:
        """``listener(position)`` on the loop after every device block that played audio of a route."""
        return _add(self._played_listeners, listener)

    def on_route_end(self, listener: PositionListener) -> Callable[[], None]:
        """``listener(position)`` on the loop once per route: last sample handed out, or stopped."""
        return _add(self._end_listeners, listener)

    # -- properties -------------------------------------------------------------
    @property
    def device(self) -> DeviceInfo | None:
        return self._link.device if self._link is not None else None

    @property
    def device_format(self) -> StreamFormat | None:
        return self._fmt

    @property
    def latency(self) -> float:
        """Output latency PortAudio reports for the open stream (seconds), 0 when closed."""
        link = self._link
        return link.stream.latency if link is not None and link.stream is not None else 0.0

    @property
    def state(self) -> str:
        return self._link.state if self._link is not None else "idle"

    @property
    def playing(self) -> bool:
        return not self._idle.is_set()

    def positions(self) -> dict[str, PlayedPosition]:
        """Current positions of the routes that are still playing."""
        with self._lock:
            frames = dict(self._cb_frames)
        now = self._clock()
        return {sid: self._position(r, frames.get(sid, r.frames_played), now) for sid, r in self._routes.items() if not r.ended}

    # -- lifecycle ----------------------------------------------------------------
    async def start(self) -> None:
        """Open the output device (idempotent); raises ``AudioDeviceError`` and subclasses."""
        if self._link is not None and self._link.state != "closed":
            return
        self._loop = asyncio.get_running_loop()
        backend = self._backend if self._backend is not None else load_backend()
        link = DeviceLink(
            direction="output",
            spec=self.device_spec,
            rate=self.requested_rate,
            latency=self._latency,
            backend=backend,
            blocksize=lambda fmt: fmt.rate * self.block_ms // 1000,
            make_callback=self._make_callback,
            on_opened=self._on_opened,
            on_lost=self._on_link_lost,
            events=self._events,
            reopen=self._reopen,
            stall_timeout=self._stall_timeout,
            backoff=self._backoff,
            can_return=self._idle.is_set,  # back to the chosen speaker between answers, not in the middle of one
        )
        self._link = link
        await link.open()

    async def close(self) -> None:
        await self.stop(discard=True)
        if self._link is not None:
            await self._link.close()

    async def __aenter__(self) -> Player:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def duck(self, db: float | None) -> None:
        """Lower the output by ``db`` (negative) from the next device block, or restore it (None)."""
        g = 1.0 if db is None else float(10.0 ** (min(0.0, db) / 20.0))
        with self._lock:
            self._gain = g

    def play(self, stream: Stream) -> None:
        """Queue ``stream`` for playback (after the streams queued before it); returns at once.

        The player consumes the stream but does not close it; :meth:`stop` stops consuming.
        """
        if self._link is None or self._link.state == "closed":
            raise AudioError("player not started; await player.start() first")
        self._streams.append(stream)
        self._idle.clear()
        if self._feeder is None or self._feeder.done() or self._playing_out:
            # a feeder that is only playing out would never take this stream: a new one does (the old one just ends)
            self._feeder = asyncio.get_running_loop().create_task(self._feed_all(), name="audio-player-feeder")

    async def drain(self) -> None:
        """Wait until every queued stream has ended and its audio is audible (buffer + device latency)."""
        await self._idle.wait()
        await asyncio.sleep(self.latency)

    async def stop(self, discard: bool = True, *, detach: bool = True) -> dict[str, PlayedPosition]:
        """Stop playing; return the positions of the routes that were playing at that moment.

        ``discard=True`` (barge-in): drop the buffered lead and the converted remainder, and
        silence the device (``stop_mode``); the routes end as interrupted and
        ``samples_heard`` estimates what was audible. Later chunks of those routes are ignored.
        ``detach=True`` also forgets the queued streams; ``detach=False`` keeps consuming them
        (a long-lived TTS stream whose next route is the next answer).
        ``discard=False``: stop consuming the streams; the audio already pulled plays out first
        (this waits for it), then the routes end normally.
        """
        feeder, self._feeder = self._feeder, None
        kept = list(self._streams) if discard and not detach else []
        self._streams.clear()
        t0 = time.monotonic()
        await cancel_and_wait(feeder)
        t_fed = time.monotonic()
        if not discard:
            await self._play_out()
            return {}
        now = self._clock()
        with self._lock:
            self._buf.clear()
            self._buffered = 0
            self._cb_active = False
            frames = dict(self._cb_frames)
        self._space.set()
        aborted = False
        if self.stop_mode == "abort" and self._link is not None and frames:
            aborted = True
            silent_at: list[float] = []
            clock = self._clock

            def abort_and_restart(stream: RawStream) -> None:
                stream.abort()
                silent_at.append(clock())  # the device played its buffer until here (abort can take a second)
                stream.start()

            await self._link.control(abort_and_restart, "abort")
            now = silent_at[0] if silent_at else self._clock()
            self._dev_end = 0.0  # the device holds nothing now
        t_end = time.monotonic()
        how = "abort" if aborted else "kept"
        log.debug("player stop: feeder %.0f ms, device %s %.0f ms", (t_fed - t0) * 1e3, how, (t_end - t_fed) * 1e3)
        result: dict[str, PlayedPosition] = {}
        for r in list(self._routes.values()):
            if r.ended:
                continue
            r.frames_played = frames.get(r.sid, r.frames_played)
            r.pending.clear()
            r.interrupted = True
            pos = self._position(r, r.frames_played, now)
            if not aborted:  # the device plays out what it holds
                pos.samples_heard = pos.samples_played
            result[r.sid] = pos
            self._finish_route(r, pos)
        if kept:
            self._streams.extend(kept)
            self._feeder = asyncio.get_running_loop().create_task(self._feed_all(), name="audio-player-feeder")
        self._update_idle()
        return result

    # -- PortAudio thread -----------------------------------------------------------
    def _make_callback(self, fmt: StreamFormat, gen: int) -> StreamCallback:
        loop = self._loop
        link = self._link
        assert loop is not None and link is not None
        frame_bytes = 2 * fmt.channels
        rate = fmt.rate
        lock = self._lock
        buf = self._buf
        counts = self._cb_frames
        report = self._on_consumed
        clock = self._clock
        applied = [1.0]  # the gain the last block ended on (ramp from it: no click)

        def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
            now = clock()
            link.last_callback = time.monotonic()
            need = frames * frame_bytes
            written = 0
            reports: list[_Report] | None = None
            level = SILENCE_DBFS
            with lock:
                while buf and (written < need or buf[0].end):
                    seg = buf[0]
                    sid = seg.sid
                    before = counts.get(sid, 0)
                    if seg.end:
                        buf.popleft()
                        f = written // frame_bytes
                        (reports := reports or []).append((sid, before, before, f, f, True))
                        continue
                    n = min(len(seg.data) - seg.offset, need - written)
                    outdata[written : written + n] = memoryview(seg.data)[seg.offset : seg.offset + n]
                    seg.offset += n
                    after = before + n // frame_bytes
                    counts[sid] = after
                    (reports := reports or []).append((sid, before, after, written // frame_bytes, (written + n) // frame_bytes, False))
                    written += n
                    level = seg.level
                    if seg.offset >= len(seg.data):
                        buf.popleft()
                self._buffered -= written
                underrun = written < need and self._cb_active
                gain = self._gain
            if written and (gain != 1.0 or applied[0] != 1.0):
                _apply_gain(outdata, written, applied[0], gain)
                applied[0] = gain
            if written < need:
                zeros = self._zeros
                if len(zeros) < need - written:
                    zeros = self._zeros = bytes(need)
                outdata[written:need] = memoryview(zeros)[: need - written]
            try:
                delay = float(time_info.outputBufferDacTime) - float(time_info.currentTime)
                if not 0.0 <= delay < 2.0 or time_info.outputBufferDacTime <= 0:
                    delay = _fallback_delay(link)
            except (AttributeError, TypeError, ValueError):
                delay = _fallback_delay(link)
            # the device ran dry: heard only while a route plays (idle silence that arrives late is silence)
            device_underflow = bool(getattr(status, "output_underflow", False)) and (self._cb_active or reports is not None)
            if reports is not None or underrun or device_underflow:
                with contextlib.suppress(RuntimeError):  # loop closed
                    loop.call_soon_threadsafe(report, gen, reports, now + delay, rate, level, underrun, device_underflow, delay, frames)

        return callback

    # -- event loop: reports --------------------------------------------------------
    def _on_opened(self, device: DeviceInfo, fmt: StreamFormat, stream: RawStream, gen: int) -> None:
        changed = self._fmt is not None and self._fmt != fmt
        self._fmt = fmt
        self._frame_bytes = 2 * fmt.channels
        self._block_frames = fmt.rate * self.block_ms // 1000
        self._zeros = bytes(self._block_frames * self._frame_bytes * 2)
        if changed:  # buffered audio is in the old device format
            with self._lock:
                self._buf.clear()
                self._buffered = 0
            for r in self._routes.values():
                r.pending.clear()
                r.resampler = None
            self._events.emit(AudioEvent("format", "output", device.name, f"device reopened at {fmt.describe()}; buffered audio dropped"))
        self._space.set()

    def _on_consumed(
        self,
        gen: int,
        reports: list[_Report] | None,
        dac_at: float,
        rate: int,
        level: float,
        underrun: bool,
        device_underflow: bool,
        delay: float,
        frames: int,
    ) -> None:
        link = self._link
        if link is None or gen != link.generation:
            return
        self._last_block_at = dac_at - delay  # when the device last asked for audio (it was running then)
        dac_at = self._after_previous_block(gen, dac_at, frames / rate if rate else 0.0)
        self.output_delay = delay
        self.level_dbfs = level if reports else SILENCE_DBFS
        if underrun or device_underflow:
            self.underruns += int(underrun)
            self.device_underflows += int(device_underflow)
            if dac_at - self._last_underrun_event >= _EVENT_COALESCE_S:
                self._last_underrun_event = dac_at
                what = "the stream did not deliver audio in time" if underrun else "the device ran dry"
                self._events.emit(
                    AudioEvent(
                        "underrun", "output", link.device_label, f"{what}; silence inserted", count=self.underruns + self.device_underflows
                    )
                )
        if reports:
            self._space.set()
            now = self._clock()
            touched: dict[str, _Route] = {}
            for sid, before, after, f0, f1, ended in reports:
                r = self._routes.get(sid)
                if r is None or r.ended:
                    continue
                r.frames_played = after
                t0, t1 = dac_at + f0 / rate, dac_at + f1 / rate
                if after > before:
                    r.timeline.append((t0, t1, before, after))
                r.audible_at = t1
                if ended:
                    touched.pop(sid, None)
                    pos = self._position(r, after, now)
                    pos.samples_played = r.received  # the whole route was handed out
                    self._finish_route(r, pos)
                else:
                    touched[sid] = r
            for r in touched.values():
                pos = self._position(r, r.frames_played, now)
                for cb in list(self._played_listeners):
                    _call(cb, pos)
        self._update_idle()

    def _after_previous_block(self, gen: int, dac_at: float, duration: float) -> float:
        """When a block handed out now becomes audible: not before the block before it has played.

        Over PulseAudio a loaded machine gets its callbacks in bursts that refill a deep server buffer while each
        reports a small DAC delay; taken alone those delays would count seconds still queued as heard. The
        reported delay jitters too, so a block may start up to ``_DAC_JITTER_S`` before the last one's end: the
        rule then never pushes the timeline later by more than one jitter (no ratchet from late estimates)."""
        if gen != self._dev_gen:
            self._dev_gen, self._dev_end = gen, 0.0
        start = max(dac_at, self._dev_end - _DAC_JITTER_S)
        self._dev_end = start + duration
        return start

    def _position(self, r: _Route, frames: int, now: float) -> PlayedPosition:
        src_rate = r.fmt.rate if r.fmt is not None else 0
        dev_rate = self._fmt.rate if self._fmt is not None else src_rate
        played = min(r.received, round(frames * src_rate / dev_rate)) if dev_rate else 0
        heard_frames = _heard_frames(r.timeline, now)
        heard = min(played, round(heard_frames * src_rate / dev_rate)) if dev_rate else 0
        return PlayedPosition(
            stream_id=r.sid,
            rate=src_rate,
            samples_played=played,
            samples_received=r.received,
            samples_heard=heard,
            ended=r.ended,
            interrupted=r.interrupted,
            audible_at=r.audible_at,
        )

    def _finish_route(self, r: _Route, pos: PlayedPosition) -> None:
        r.ended = True
        pos.ended = True
        pos.interrupted = r.interrupted
        if r.sid:
            self._closed_sids[r.sid] = None
            if len(self._closed_sids) > _CLOSED_SIDS:
                self._closed_sids.popitem(last=False)
        with self._lock:
            self._cb_frames.pop(r.sid, None)
        if self._routes.get(r.sid) is r:
            del self._routes[r.sid]
        for cb in list(self._played_listeners):
            _call(cb, pos)
        for cb in list(self._end_listeners):
            _call(cb, pos)

    def _update_idle(self) -> None:
        busy = bool(self._streams) or any(not r.ended for r in self._routes.values())
        active = any(r.started and not r.ended and not r.marker_queued for r in self._routes.values())
        with self._lock:
            self._cb_active = active
            if self._buffered > 0:
                busy = True
        if busy:
            self._idle.clear()
        else:
            self._idle.set()

    # -- event loop: feeding ----------------------------------------------------------
    async def _feed_all(self) -> None:
        try:
            while self._streams:
                stream = self._streams[0]
                try:
                    await self._feed(stream)
                finally:
                    if self._streams and self._streams[0] is stream:
                        self._streams.popleft()
            await self._play_out()
        except _DeviceGone:
            pass  # its routes were ended as lost
        finally:
            if asyncio.current_task() is self._feeder:
                self._feeder = None
            self._update_idle()

    async def _play_out(self) -> None:
        """End the open routes, move their audio and end markers into the buffer, wait until handed out."""
        mine = asyncio.current_task() is self._feeder
        self._playing_out = self._playing_out or mine
        try:
            for r in list(self._routes.values()):
                if not r.ended and not r.eos:
                    self._end_route(r, error="")
            while any(not r.marker_queued for r in self._routes.values() if not r.ended):
                await self._wait_space()
                self._fill_one()
            self._update_idle()
            await self._idle.wait()
        finally:
            if mine and asyncio.current_task() is self._feeder:
                self._playing_out = False

    async def _feed(self, stream: Stream) -> None:
        while True:
            await self._wait_space()
            if self._fill_one():
                continue
            try:
                chunk = await stream.next()
            except Done:
                break
            except Exception as e:  # the producer's end error: finish the routes it left open
                log.warning("player: stream ended with %r; ending its open routes", e)
                break
            self._handle(chunk)
        for r in list(self._routes.values()):
            if not r.ended and not r.eos:
                self._end_route(r, error="")

    async def _wait_space(self) -> None:
        """Wait for room in the device buffer. Never unbounded: while the device is lost, after
        ``stall_timeout`` the routes waiting for it end as lost (and their streams are let go)."""
        limit = self.lead_blocks * self._block_frames * self._frame_bytes
        while True:
            with self._lock:
                room = self._buffered < limit or self._block_frames == 0
            if room and self._fmt is not None:
                return
            self._space.clear()
            try:
                await within(self._space.wait(), self._stall_timeout)
            except TimeoutError:
                if self._link is not None and self._link.state in ("lost", "closed"):
                    self._lose_routes(f"the output device {self._link.device_label} is gone")
                    raise _DeviceGone() from None

    def _on_link_lost(self) -> None:
        label = self._link.device_label if self._link is not None else "?"
        self._lose_routes(f"the output device {label} was lost")

    def _lose_routes(self, reason: str) -> None:
        """The device is gone: audio handed to it but not yet audible was never heard. Every open route ends now,
        interrupted, counting only what was audible when the device last ran; the queued streams are let go
        (their answers are over) and nothing waits for the dead device."""
        self._streams.clear()
        feeder, self._feeder = self._feeder, None
        if feeder is not None and feeder is not asyncio.current_task():
            feeder.cancel()
        with self._lock:
            self._buf.clear()
            self._buffered = 0
            self._cb_active = False
        now = self._clock()
        ran_until = min(now, self._last_block_at) if self._last_block_at is not None else now
        for r in list(self._routes.values()):
            if r.ended:
                continue
            heard = min(_heard_frames(r.timeline, ran_until), r.frames_played)
            r.frames_played = heard  # what counts as played is what was played
            r.pending.clear()
            r.interrupted = True
            r.marker_queued = True
            pos = self._position(r, heard, ran_until)
            pos.error = reason
            self.lost_routes += 1
            self._finish_route(r, pos)
        self._last_block_at = None
        self._space.set()
        self._update_idle()

    def _fill_one(self) -> bool:
        """Move one block of pending audio (or an end marker) into the buffer; False if nothing to move."""
        block = self._block_frames * self._frame_bytes
        for r in self._routes.values():
            if r.ended or r.marker_queued:
                continue
            if r.pending:
                data = bytes(r.pending[:block])
                del r.pending[:block]
                seg = _Segment(r.sid, data, level=rms_dbfs(np.frombuffer(data, dtype="<i2")))
                r.started = True
                with self._lock:
                    self._buf.append(seg)
                    self._buffered += len(data)
                    self._cb_active = True
                return True
            if r.eos:
                r.marker_queued = True
                with self._lock:
                    self._buf.append(_Segment(r.sid, b"", end=True))
                return True
        return False

    def _handle(self, chunk: MessageChunk) -> None:
        sid = chunk.stream_id
        part = chunk.part
        is_audio = isinstance(part, Blob) and part.mime.startswith("audio/")
        r = self._routes.get(sid)
        if (r is not None and r.eos) or (r is None and sid in self._closed_sids):
            return  # after the route's EOS or stop: nothing more belongs to it
        if r is None:
            # A route starts with a control-only or audio BOS, or with its first audio.
            if not (is_audio or (chunk.is_begin_of_stream() and part is None)):
                return
            r = _Route(sid)
            self._routes[sid] = r
            self._idle.clear()
        if is_audio and isinstance(part, Blob) and part.data and not r.eos:
            self._add_audio(r, part)
        if chunk.is_end_of_stream() and (part is None or is_audio):
            self._end_route(r, error=chunk.error)

    def _add_audio(self, r: _Route, part: Blob) -> None:
        fmt = self._fmt
        if fmt is None or r.bad_format:
            return
        try:
            src = parse_l16(part.mime)
        except AudioFormatError as e:
            r.bad_format = True
            label = self._link.device_label if self._link is not None else "?"
            self._events.emit(AudioEvent("format", "output", label, f"route {r.sid or '(no id)'}: {e}"))
            return
        if r.fmt is None:
            r.fmt = src
        elif r.fmt != src:  # a format change inside a route: flush the old resampler first
            if r.resampler is not None:
                r.pending += upmix(r.resampler.flush(), fmt.channels).tobytes()
            r.resampler = None
            r.fmt = src
        if r.resampler is None or r.resampler.out_rate != fmt.rate:
            r.resampler = Resampler(src.rate, fmt.rate)
        mono = downmix(part.data, src.channels)
        r.received += mono.size
        out = r.resampler.process(mono)
        if out.size:
            r.pending += upmix(out, fmt.channels).tobytes()

    def _end_route(self, r: _Route, *, error: str) -> None:
        if r.eos or r.ended:
            return
        r.eos = True
        if not error:
            if r.resampler is not None and self._fmt is not None:
                r.pending += upmix(r.resampler.flush(), self._fmt.channels).tobytes()
            return
        # An EOS with an error (interrupted upstream): drop what was not handed out yet.
        r.pending.clear()
        r.interrupted = True
        with self._lock:
            kept = deque(s for s in self._buf if s.sid != r.sid)
            self._buffered = sum(len(s.data) - s.offset for s in kept)
            self._buf.clear()
            self._buf.extend(kept)
            frames = self._cb_frames.get(r.sid, r.frames_played)
        r.marker_queued = True
        r.frames_played = frames
        self._finish_route(r, self._position(r, frames, self._clock()))
        self._space.set()


class _DeviceGone(Exception):
    """The feeder's signal that the device is gone and its routes were ended (never leaves the player)."""


def _apply_gain(outdata: Any, nbytes: int, start: float, end: float) -> None:
    """Scale the first ``nbytes`` of int16 ``outdata`` in place, ramping the gain from ``start`` to ``end``."""
    x = np.frombuffer(outdata, dtype="<i2", count=nbytes // 2)
    ramp = np.linspace(start, end, x.size, dtype=np.float32) if start != end else np.float32(end)
    x[:] = np.clip(np.rint(x * ramp), -32768, 32767).astype("<i2")


# how much earlier than the previous block's end a block's reported DAC time may say it starts, and still be believed
_DAC_JITTER_S = 0.004


def _fallback_delay(link: DeviceLink) -> float:
    stream = link.stream
    return stream.latency if stream is not None else 0.0


def _heard_frames(timeline: deque[tuple[float, float, int, int]], now: float) -> int:
    """Device frames of a route audible at ``now`` according to its per-block timeline."""
    heard = 0
    for t0, t1, f0, f1 in reversed(timeline):
        if now >= t1:
            return f1
        if now > t0:
            return f0 + int((f1 - f0) * (now - t0) / (t1 - t0))
        heard = f0
    return heard


def _add(listeners: list[PositionListener], cb: PositionListener) -> Callable[[], None]:
    listeners.append(cb)

    def remove() -> None:
        with contextlib.suppress(ValueError):
            listeners.remove(cb)

    return remove


def _call(cb: PositionListener, pos: PlayedPosition) -> None:
    try:
        cb(pos)
    except Exception:
        log.exception("player position listener failed")
