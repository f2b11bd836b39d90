"""Microphone capture: PortAudio input blocks → a genx Stream of ``audio/L16; rate=16000; channels=1`` chunks.

The PortAudio callback only copies the block (``bytes(indata)``), reads the clock and hands
``(generation, data, capture_time, overflow)`` to the event loop with
``loop.call_soon_threadsafe``. Everything else happens on the loop: down-mixing, resampling
(soxr) to the output rate, cutting fixed ``chunk_ms`` chunks, the level meter and pushing
into a :class:`~genx.stream.StreamBuilder`.

Timestamps: each chunk's ``timestamp`` is the capture time of its first sample in
milliseconds of ``clock`` (``time.monotonic`` by default). The time of a block's first frame
is ``clock() - (currentTime - inputBufferAdcTime)`` (PortAudio's own clock mapped to
``clock``); chunk times are then derived from the sample count, so consecutive chunks are
exactly ``chunk_ms`` apart. The anchor is re-taken after a discontinuity (overflow, device
reopened) or when the sample clock drifts more than 40 ms from PortAudio's; such chunks carry
``meta={"discontinuity": True}``.

Mute keeps the timeline: chunks keep flowing but carry silence (``level_dbfs`` still shows
the real input level so a UI can warn "you are muted"). A consumer that does not keep up
loses the newest chunks beyond ``max_queue_ms`` (counted in ``dropped``, reported once per
burst) instead of growing memory without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from app.audio.backend import AudioBackend, RawStream, StreamCallback, load_backend
from app.audio.devices import DeviceInfo, StreamFormat
from app.audio.errors import AudioError
from app.audio.link import AudioEvent, DeviceLink, EventHub, EventListener
from app.audio.pcm import SILENCE_DBFS, Resampler, downmix, l16_mime, rms_dbfs
from genx.chunk import MessageChunk, Role
from genx.stream import Stream, StreamBuilder

DRIFT_REANCHOR_S = 0.040
_EVENT_COALESCE_S = 1.0


class Capture:
    """A microphone as a genx Stream; see the module docstring for timing and threading."""

    def __init__(
        self,
        device: str | int | None = None,
        *,
        rate: int = 16000,
        chunk_ms: int = 20,
        latency: float | str = "low",
        backend: AudioBackend | None = None,
        clock: Callable[[], float] = time.monotonic,
        reopen: bool = True,
        stall_timeout: float = 2.5,
        backoff: tuple[float, float] = (0.25, 4.0),
        max_queue_ms: int = 10_000,
        role: Role = Role.USER,
    ) -> None:
        if not 10 <= chunk_ms <= 30:
            raise AudioError(f"capture chunk_ms={chunk_ms} is out of range; use 10 to 30 ms")
        if rate not in (8000, 16000, 24000, 32000, 48000):
            raise AudioError(f"capture rate {rate} Hz is not supported; use 8000, 16000, 24000, 32000 or 48000")
        self.device_spec = device
        self.rate = rate
        self.chunk_ms = chunk_ms
        self.mime = l16_mime(rate, 1)
        self._chunk_samples = rate * chunk_ms // 1000
        self._chunk_bytes = self._chunk_samples * 2
        self._silence = bytes(self._chunk_bytes)
        self._latency = latency
        self._backend = backend
        self._clock = clock
        self._reopen = reopen
        self._stall_timeout = stall_timeout
        self._backoff = backoff
        self._max_queued = max(1, max_queue_ms // chunk_ms)
        self._role = role
        self._events = EventHub()
        self._builder: StreamBuilder | None = None
        self._link: DeviceLink | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fmt: StreamFormat | None = None
        self._resampler: Resampler | None = None
        self._pending = bytearray()
        self._in_frames = 0  # device frames received since the anchor epoch
        self._out_emitted = 0  # output samples emitted since the anchor epoch
        self._t_offset: float | None = None  # clock time of the epoch's sample 0
        self._discontinuity = False
        self._last_ts_ms = 0
        self._last_overflow_event = -1e9
        self._dropping = False
        self._stop_task: asyncio.Task[None] | None = None
        self.muted = False
        self.level_dbfs = SILENCE_DBFS
        self.overflows = 0
        self.dropped = 0
        self.chunks = 0

    # -- public API ------------------------------------------------------
    def add_listener(self, listener: EventListener) -> Callable[[], None]:
        """Receive :class:`AudioEvent` s (opened, overflow, device_lost, reopened, …) on the loop."""
        return self._events.add(listener)

    @property
    def stream(self) -> Stream:
        if self._builder is None:
            raise AudioError("capture not started; await capture.start() first")
        return self._builder.stream

    @property
    def device(self) -> DeviceInfo | None:
        return self._link.device if self._link is not None else None

    @property
    def device_format(self) -> StreamFormat | None:
        return self._fmt

    @property
    def latency(self) -> float:
        """Input latency PortAudio reports for the open stream (seconds), 0 when closed."""
        link = self._link
        return link.stream.latency if link is not None and link.stream is not None else 0.0

    @property
    def state(self) -> str:
        return self._link.state if self._link is not None else "idle"

    async def start(self) -> Stream:
        """Open the device and return the chunk stream (idempotent).

        Raises :class:`~app.audio.errors.AudioDeviceError` (or its subclasses
        ``NoAudioDeviceError``/``PortAudioMissingError``) when the device cannot be opened.
        """
        if self._builder is not None:
            return self._builder.stream
        self._loop = asyncio.get_running_loop()
        backend = self._backend if self._backend is not None else load_backend()
        builder = StreamBuilder()
        link = DeviceLink(
            direction="input",
            spec=self.device_spec,
            rate=self.rate,
            latency=self._latency,
            backend=backend,
            blocksize=lambda fmt: fmt.rate * self.chunk_ms // 1000,
            make_callback=self._make_callback,
            on_opened=self._on_opened,
            on_lost=self._on_lost,
            events=self._events,
            reopen=self._reopen,
            stall_timeout=self._stall_timeout,
            backoff=self._backoff,
        )
        self._link = link
        await link.open()
        self._builder = builder
        builder.on_close(self._on_consumer_close)
        return builder.stream

    async def stop(self) -> None:
        """Close the device and end the stream normally (Done)."""
        if self._link is not None:
            await self._link.close()
        b = self._builder
        if b is not None and not b.ended:
            b.done()

    async def __aenter__(self) -> Capture:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- PortAudio thread ------------------------------------------------
    def _make_callback(self, fmt: StreamFormat, gen: int) -> StreamCallback:
        loop = self._loop
        assert loop is not None
        link = self._link
        assert link is not None
        handoff = self._on_block
        clock = self._clock
        block_s = (fmt.rate * self.chunk_ms // 1000) / fmt.rate

        def callback(indata: Any, frames: int, time_info: Any, status: Any) -> None:
            now = clock()
            link.last_callback = time.monotonic()
            try:
                lag = float(time_info.currentTime) - float(time_info.inputBufferAdcTime)
                if not 0.0 <= lag < 1.0 or time_info.inputBufferAdcTime <= 0:
                    lag = block_s
            except (AttributeError, TypeError, ValueError):
                lag = block_s
            overflow = bool(getattr(status, "input_overflow", False))
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens any more
                loop.call_soon_threadsafe(handoff, gen, bytes(indata), now - lag, overflow)

        return callback

    # -- event loop --------------------------------------------------------
    def _on_opened(self, device: DeviceInfo, fmt: StreamFormat, stream: RawStream, gen: int) -> None:
        self._fmt = fmt
        if self._resampler is None or self._resampler.in_rate != fmt.rate:
            self._resampler = Resampler(fmt.rate, self.rate)
        self._reset_epoch()

    def _on_lost(self) -> None:
        self._reset_epoch()

    def _reset_epoch(self) -> None:
        if self._resampler is not None:
            self._resampler.flush()
        self._pending.clear()
        self._in_frames = 0
        self._out_emitted = 0
        self._t_offset = None
        self._discontinuity = self.chunks > 0

    def _on_block(self, gen: int, data: bytes, t0: float, overflow: bool) -> None:
        link, b, fmt, rs = self._link, self._builder, self._fmt, self._resampler
        if link is None or b is None or fmt is None or rs is None or gen != link.generation or b.ended:
            return
        if overflow:
            self.overflows += 1
            self._reset_epoch()
            self._discontinuity = True
            if t0 - self._last_overflow_event >= _EVENT_COALESCE_S:
                self._last_overflow_event = t0
                self._events.emit(
                    AudioEvent(
                        "overflow", "input", link.device_label, "input overflow: audio was lost (system busy?)", count=self.overflows
                    )
                )
        mono = downmix(data, fmt.channels)
        start_s = self._in_frames / fmt.rate
        measured = t0 - start_s
        if self._t_offset is None or abs(measured - self._t_offset) > DRIFT_REANCHOR_S:
            if self._t_offset is not None:
                self._discontinuity = True
            self._t_offset = measured
        self._in_frames += mono.size
        out = rs.process(mono)
        if out.size:
            self._pending += out.tobytes()
        self._emit_chunks(b)

    def _emit_chunks(self, b: StreamBuilder) -> None:
        size = self._chunk_bytes
        pending = self._pending
        t_offset = self._t_offset if self._t_offset is not None else self._clock()
        while len(pending) >= size:
            data = bytes(pending[:size])
            del pending[:size]
            ts = t_offset + self._out_emitted / self.rate
            self._out_emitted += self._chunk_samples
            self.level_dbfs = rms_dbfs(data)
            if b.queued() >= self._max_queued:
                self.dropped += 1
                self._discontinuity = True
                if not self._dropping:
                    self._dropping = True
                    label = self._link.device_label if self._link is not None else "?"
                    self._events.emit(
                        AudioEvent("dropped", "input", label, "consumer too slow; dropping newest chunks", count=self.dropped)
                    )
                continue
            self._dropping = False
            ts_ms = max(round(ts * 1000), self._last_ts_ms + 1)  # strictly increasing, even after a backward re-anchor
            self._last_ts_ms = ts_ms
            chunk = MessageChunk.blob(self.mime, self._silence if self.muted else data, role=self._role, timestamp=ts_ms)
            if self._discontinuity:
                chunk.meta = {"discontinuity": True}
                self._discontinuity = False
            self.chunks += 1
            b.push(chunk)

    def _on_consumer_close(self, exc: BaseException | None) -> None:
        if self._loop is not None and self._stop_task is None:
            self._stop_task = self._loop.create_task(self.stop())
