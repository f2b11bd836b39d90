"""The player's feeder: the task that pulls the queued streams as the buffer makes room.

It pulls the next chunk only when the buffer holds fewer than ``lead_blocks`` blocks, moves converted audio into
the buffer block by block, and plays the routes out at the end. Its wait for room is bounded while the device is
lost (``stall_timeout``).
"""

from __future__ import annotations

import asyncio
import logging

import numpy as np

from app.audio.pcm import rms_dbfs
from app.audio.player_device import _DeviceEvents
from app.audio.player_intake import _Intake
from app.audio.player_routes import _Segment
from genx.deadline import within
from genx.errors import Done
from genx.stream import Stream

log = logging.getLogger("app.audio.player")


class _Feeder(_Intake, _DeviceEvents):
    """Pulls the streams into the buffer, at the pace the device plays (a mixin of ``Player``)."""

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
            # only the routes open now are this play-out's: a route opened later (the next stream's, by a newer
            # feeder) may have nothing to move yet, and waiting for it here would spin without ever awaiting
            mine_routes = [r for r in self._routes.values() if not r.ended]
            for r in mine_routes:
                if not r.eos:
                    self._end_route(r, error="")
            while any(not r.marker_queued for r in mine_routes if not r.ended):
                await self._wait_space()
                if not self._fill_one():
                    break  # (cannot happen for an ended route: it has audio or its marker to move)
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


class _DeviceGone(Exception):
    """The feeder's signal that the device is gone and its routes were ended (never leaves the player)."""
