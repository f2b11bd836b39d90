"""Keeping one device stream alive: open with negotiation, watch for loss, reopen with backoff.

A :class:`DeviceLink` owns the PortAudio stream of a :class:`~app.audio.capture.Capture` or
:class:`~app.audio.player.Player`. The stream is *lost* when PortAudio finishes it on its own
(``finished_callback``, ``active`` turning False: the server died, the device was unplugged)
or when its callback stops for ``stall_timeout`` seconds. A loss is reported as an
:class:`AudioEvent` (and logged); then the link closes the dead stream and tries to open the
same device (by name, re-resolved every time) every ``backoff[0]`` … ``backoff[1]`` seconds,
doubling, until it succeeds or the link is closed. A device chosen by name that cannot be reopened at once is
replaced by the system default (a ``fallback`` event); every ``return_interval`` seconds the link then tries the
chosen device again, and when it opens the default stream is closed (``returned``). Each (re)open gets a new *generation*
number; callbacks carry it so that blocks from a dead stream are ignored.

Blocking PortAudio control calls (open, start, abort, close) run in short-lived daemon
threads: a device that hangs in close() cannot stall the event loop or the interpreter exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from app.audio.backend import AudioBackend, Direction, OpenRequest, RawStream, StreamCallback
from app.audio.devices import DeviceInfo, StreamFormat, find_device, open_negotiated
from app.audio.errors import AudioDeviceError, AudioError
from app.audio.events import AudioEvent, EventHub, EventKind, EventListener
from genx.deadline import within
from genx.threads import start_thread

log = logging.getLogger(__name__)

T = TypeVar("T")
LOOP_STALL_S = 0.5  # the watchdog waking this much later than asked: the process stalled, not the device

LinkState = Literal["idle", "opening", "running", "lost", "closed"]


async def run_blocking(
    fn: Callable[[], T],
    *,
    limit_s: float | None = None,
    what: str = "audio call",
    on_abandoned: Callable[[T], None] | None = None,
) -> T:
    """Run ``fn`` in a daemon thread; raise TimeoutError after ``limit_s`` (the thread is abandoned).

    When ``fn`` returns after the timeout or after the caller was cancelled, ``on_abandoned(result)``
    runs on a thread: it releases what the late result holds (a stream opened too late).
    """
    fut = start_thread(fn, name=f"parley-{what}", daemon=True, on_abandoned=on_abandoned)
    if limit_s is None:
        return await fut
    return await within(fut, limit_s)


async def cancel_and_wait(task: asyncio.Task[object] | asyncio.Task[None] | None) -> None:
    """Cancel ``task`` and wait for it; a cancellation of the caller itself still propagates."""
    if task is None or task.done():
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
    except Exception:
        log.exception("audio task failed while being cancelled")


def _shut(stream: RawStream, *, abort: bool) -> None:
    """Stop (or abort) and close ``stream``, ignoring errors of a dead device; blocking."""
    with contextlib.suppress(Exception):
        if abort:
            stream.abort()
        else:
            stream.stop()
    with contextlib.suppress(Exception):
        stream.close()


class DeviceLink:
    """One supervised device stream (see module docstring). Loop-affine except ``last_callback``."""

    def __init__(
        self,
        *,
        direction: Direction,
        spec: str | int | None,
        rate: int,
        latency: float | str,
        backend: AudioBackend,
        blocksize: Callable[[StreamFormat], int],
        make_callback: Callable[[StreamFormat, int], StreamCallback],
        on_opened: Callable[[DeviceInfo, StreamFormat, RawStream, int], None],
        on_lost: Callable[[], None],
        events: EventHub,
        reopen: bool = True,
        stall_timeout: float = 2.5,
        backoff: tuple[float, float] = (0.25, 4.0),
        poll_interval: float = 0.2,
        control_timeout: float = 5.0,
        fallback_to_default: bool = True,
        return_interval: float = 2.0,
        can_return: Callable[[], bool] = lambda: True,
    ) -> None:
        self.direction = direction
        self.spec = spec
        self.rate = rate
        self._latency = latency
        self._backend = backend
        self._blocksize = blocksize
        self._make_callback = make_callback
        self._on_opened = on_opened
        self._on_lost = on_lost
        self._events = events
        self._reopen = reopen
        self.stall_timeout = stall_timeout
        self.backoff = backoff
        self._poll = poll_interval
        self._control_timeout = control_timeout
        self.state: LinkState = "idle"
        self.generation = 0
        self.device: DeviceInfo | None = None
        self.format: StreamFormat | None = None
        self.stream: RawStream | None = None
        self.last_callback = 0.0  # time.monotonic() of the latest callback; written by the PortAudio thread
        self.paused = False  # True while the owner deliberately stops the stream (abort/restart)
        self._device_name: str | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self._reopen_task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.losses = 0
        self._background: set[asyncio.Task[None]] = set()
        self._fallback = fallback_to_default
        self.return_interval = return_interval
        self._can_return = can_return  # the owner may hold the switch back (the player mid-answer)
        self.on_fallback = False  # running on the system default while the chosen device is away
        self._return_task: asyncio.Task[None] | None = None

    @property
    def device_label(self) -> str:
        return self.device.name if self.device is not None else str(self.spec if self.spec is not None else "default")

    # -- opening -------------------------------------------------------
    async def open(self) -> None:
        """First open; errors propagate (AudioDeviceError, NoAudioDeviceError, PortAudioMissingError)."""
        if self.state not in ("idle", "closed"):
            return
        self._loop = asyncio.get_running_loop()
        self.state = "opening"
        try:
            try:
                await self._open_once(self.spec)
            except AudioDeviceError:
                # listed but not openable (a PulseAudio device that is not there yet): the default stands in
                if not (self._fallback and self.named and await self._listed()) or not await self._try_default():
                    raise
        except BaseException:
            self.state = "idle"
            raise
        self._events.emit(AudioEvent("opened", self.direction, self.device_label, self._describe()))
        self._watch_task = asyncio.create_task(self._watch(), name=f"audio-{self.direction}-watchdog")

    def _describe(self) -> str:
        fmt = self.format.describe() if self.format is not None else "?"
        lat = f", latency {self.stream.latency * 1000:.0f} ms" if self.stream is not None else ""
        dev = self.device.label() if self.device is not None else self.device_label
        return f"opened {dev} at {fmt}{lat}"

    async def _open_once(self, spec: str | int | None) -> None:
        gen = self.generation + 1
        loop = self._loop
        assert loop is not None

        def finished() -> None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._on_finished, gen)

        def work() -> tuple[DeviceInfo, StreamFormat, RawStream]:
            device = find_device(spec, self.direction, backend=self._backend)

            def request(fmt: StreamFormat) -> OpenRequest:
                return OpenRequest(
                    direction=self.direction,
                    device=device.index,
                    rate=fmt.rate,
                    channels=fmt.channels,
                    blocksize=self._blocksize(fmt),
                    latency=self._latency,
                    callback=self._make_callback(fmt, gen),
                    finished_callback=finished,
                )

            stream, fmt = open_negotiated(self._backend, device, self.direction, self.rate, request)
            try:
                stream.start()
            except AudioError:
                with contextlib.suppress(Exception):
                    stream.close()
                raise
            return device, fmt, stream

        def abandoned(result: tuple[DeviceInfo, StreamFormat, RawStream]) -> None:
            # The open finished after we gave up (timeout, cancellation): a running stream nobody owns.
            stream = result[2]
            log.warning("the %s device %s opened after the caller gave up; closing that stream", self.direction, result[0].name)
            _shut(stream, abort=True)

        try:
            device, fmt, stream = await run_blocking(
                work, limit_s=self._control_timeout, what=f"{self.direction}-open", on_abandoned=abandoned
            )
        except TimeoutError:
            raise AudioDeviceError(
                f"opening the {self.direction} device {self.device_label} did not finish in {self._control_timeout:.0f} s; "
                "the sound server may be hung (restart PulseAudio/PipeWire)"
            ) from None
        if self.state == "closed":  # closed while the open was in flight
            await self._close_quietly(stream, abort=False)
            raise AudioDeviceError(f"the {self.direction} stream was closed while opening")
        self.generation = gen
        self.device, self.format, self.stream = device, fmt, stream
        if spec is not None:  # the chosen device's full name (not the default's, on the fallback)
            self._device_name = device.name
        self.last_callback = time.monotonic()
        self.state = "running"
        self._on_opened(device, fmt, stream, gen)

    # -- loss and reopen -----------------------------------------------
    def _on_finished(self, gen: int) -> None:
        # PortAudio also calls finished_callback after our own abort(); a restarted stream is active again.
        if gen != self.generation or self.state != "running" or self.paused:
            return
        if self.stream is not None and self.stream.active:
            return
        self._lost("PortAudio ended the stream (device unplugged or sound server gone)")

    async def _watch(self) -> None:
        watched = time.monotonic()
        resumed = -math.inf  # when the event loop last came back from a stall of its own
        while self.state in ("running", "lost"):
            await asyncio.sleep(self._poll)
            now = time.monotonic()
            if now - watched > self._poll + LOOP_STALL_S:
                # the watchdog itself woke late: the whole process (or machine) stalled, and the PortAudio threads
                # with it; their silence is counted from now, not from before the stall
                resumed = now
            watched = now
            if self.state != "running" or self.paused or self.stream is None:
                continue
            if not self.stream.active:
                self._lost("the stream is no longer active")
            elif now - max(self.last_callback, resumed) > self.stall_timeout:
                self._lost(f"no audio callback for {self.stall_timeout:.1f} s")

    @property
    def named(self) -> bool:
        """The device was chosen (by name or index), not "the system default"."""
        return self.spec is not None and not (isinstance(self.spec, str) and self.spec.strip().lower() in ("", "default"))

    def _lost(self, reason: str) -> None:
        self.state = "lost"
        if self._return_task is not None:
            self._return_task.cancel()
            self._return_task = None
        self.losses += 1
        self.generation += 1  # blocks of the dead stream are ignored from now on
        old, self.stream = self.stream, None
        self._events.emit(AudioEvent("device_lost", self.direction, self.device_label, reason, count=self.losses))
        self._on_lost()
        if old is not None:
            task = asyncio.get_running_loop().create_task(self._close_quietly(old, abort=True))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        if self._reopen:
            self._reopen_task = asyncio.get_running_loop().create_task(self._reopen_loop(), name=f"audio-{self.direction}-reopen")

    async def _close_quietly(self, stream: RawStream, *, abort: bool) -> None:
        def work() -> None:
            _shut(stream, abort=abort)

        try:
            await run_blocking(work, limit_s=self._control_timeout, what=f"{self.direction}-close")
        except TimeoutError:
            log.warning("closing the %s stream of %s hung; abandoned it", self.direction, self.device_label)

    async def _reopen_loop(self) -> None:
        delay, cap = self.backoff
        attempts = 0
        while self.state == "lost":
            await asyncio.sleep(delay)
            if self.state != "lost":
                return
            attempts += 1
            spec = self._device_name if self._device_name is not None and self.spec is not None else self.spec
            try:
                try:
                    await self._open_once(spec)
                except AudioDeviceError:
                    # A replugged device is only seen after a re-scan, which PortAudio allows with no stream open.
                    if self._backend.open_stream_count() != 0:
                        raise
                    await run_blocking(self._backend.rescan, limit_s=self._control_timeout, what="rescan")
                    await self._open_once(spec)
            except (AudioError, TimeoutError) as e:
                if self.state != "lost":
                    return
                if self._fallback and self.named and await self._try_default():
                    return
                if attempts == 1 or attempts % 10 == 0:
                    self._events.emit(
                        AudioEvent("reopen_failed", self.direction, self.device_label, f"attempt {attempts}: {e}; retrying", count=attempts)
                    )
                delay = min(delay * 2, cap)
                continue
            self.on_fallback = False
            self._events.emit(AudioEvent("reopened", self.direction, self.device_label, f"after {attempts} attempt(s): {self._describe()}"))
            return

    async def _listed(self) -> bool:
        def work() -> bool:
            try:
                find_device(self.spec, self.direction, backend=self._backend)
            except AudioError:
                return False
            return True

        return await run_blocking(work, limit_s=self._control_timeout, what=f"{self.direction}-find")

    async def _try_default(self) -> bool:
        """The chosen device is away: run on the system default until it is back (True when that opened)."""
        try:
            await self._open_once(None)
        except (AudioError, TimeoutError) as e:
            log.info("the default %s device did not open either: %s", self.direction, e)
            return False
        self.on_fallback = True
        what = "microphone" if self.direction == "input" else "speaker"
        msg = f"{self._device_name or self.spec} is not available: using the system default {what} until it is back"
        self._events.emit(AudioEvent("fallback", self.direction, self.device_label, msg))
        self._return_task = asyncio.get_running_loop().create_task(self._return_loop(), name=f"audio-{self.direction}-return")
        return True

    async def _return_loop(self) -> None:
        """On the fallback: open the chosen device again as soon as it can be, then close the default stream."""
        name = self._device_name or self.spec
        while self.state == "running" and self.on_fallback and name is not None:
            await asyncio.sleep(self.return_interval)
            if self.state != "running" or not self.on_fallback or not self._can_return():
                continue
            old = self.stream
            try:
                await self._open_once(name)
            except (AudioError, TimeoutError):
                continue
            self.on_fallback = False
            if old is not None and old is not self.stream:
                await self._close_quietly(old, abort=True)
            self._events.emit(AudioEvent("returned", self.direction, self.device_label, f"{name} is back: {self._describe()}"))

    # -- owner controls ------------------------------------------------
    async def control(self, fn: Callable[[RawStream], None], what: str) -> None:
        """Run a blocking control call (abort/start) on the live stream with the watchdog paused."""
        stream = self.stream
        if stream is None or self.state != "running":
            return
        self.paused = True
        try:
            await run_blocking(lambda: fn(stream), limit_s=self._control_timeout, what=what)
        finally:
            self.last_callback = time.monotonic()
            self.paused = False

    async def _close_stream(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            await self._close_quietly(stream, abort=False)

    async def close(self) -> None:
        if self.state == "closed":
            return
        was_open = self.state in ("running", "lost")
        self.state = "closed"
        self.generation += 1
        for task in (self._watch_task, self._reopen_task, self._return_task):
            await cancel_and_wait(task)
        await self._close_stream()
        if was_open:
            self._events.emit(AudioEvent("closed", self.direction, self.device_label, "closed"))


__all__ = ["AudioEvent", "DeviceLink", "EventHub", "EventKind", "EventListener", "LinkState", "cancel_and_wait", "run_blocking"]
