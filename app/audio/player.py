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

The player is one class made of one module per concern: :mod:`app.audio.player_routes` (the records: positions,
routes, buffered blocks, a route's heard position), :mod:`app.audio.player_state` (the state the parts share and
the route book-keeping), :mod:`app.audio.player_callback` (the PortAudio callback and its per-block DAC-time
accounting), :mod:`app.audio.player_intake` (chunks → routes), :mod:`app.audio.player_feeder` (pulling the streams
as the buffer makes room), :mod:`app.audio.player_device` (the device reopened or lost); this module has the public
API.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from app.audio.backend import RawStream, load_backend
from app.audio.devices import DeviceInfo, StreamFormat
from app.audio.errors import AudioError
from app.audio.link import DeviceLink, EventListener, cancel_and_wait
from app.audio.player_callback import _Callback
from app.audio.player_feeder import _Feeder
from app.audio.player_routes import PlayedPosition, PositionListener
from app.audio.player_state import StopMode
from genx.stream import Stream

log = logging.getLogger(__name__)

__all__ = ["PlayedPosition", "Player", "PositionListener", "StopMode"]


class Player(_Feeder, _Callback):
    """Plays genx audio streams on one output device; see the module docstring."""

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


def _add(listeners: list[PositionListener], cb: PositionListener) -> Callable[[], None]:
    listeners.append(cb)

    def remove() -> None:
        with contextlib.suppress(ValueError):
            listeners.remove(cb)

    return remove
