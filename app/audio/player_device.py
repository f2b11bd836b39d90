"""The player's device events: the output stream (re)opened, or lost.

A reopen at another format drops the audio buffered in the old one. A loss ends every open route at once,
interrupted, counting only what was audible when the device last ran, and lets the queued streams go.
"""

from __future__ import annotations

import asyncio

from app.audio.backend import RawStream
from app.audio.devices import DeviceInfo, StreamFormat
from app.audio.link import AudioEvent
from app.audio.player_routes import _heard_frames
from app.audio.player_state import _PlayerState


class _DeviceEvents(_PlayerState):
    """What the device link tells the player (a mixin of ``Player``)."""

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
