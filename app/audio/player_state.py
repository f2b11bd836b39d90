"""What the player's parts share: its settings, the buffer the PortAudio callback reads, the routes on the loop.

:class:`_PlayerState` is the base of :class:`~app.audio.player.Player` and of the mixins it is made of
(:mod:`app.audio.player_callback`, :mod:`app.audio.player_intake`, :mod:`app.audio.player_feeder`,
:mod:`app.audio.player_device`): it holds the state they all read and the route book-keeping they all use
(a route's position, its end, whether the player is idle).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Literal

from app.audio.backend import AudioBackend
from app.audio.devices import StreamFormat
from app.audio.errors import AudioError
from app.audio.link import DeviceLink, EventHub
from app.audio.pcm import SILENCE_DBFS
from app.audio.player_routes import PlayedPosition, PositionListener, _heard_frames, _Route, _Segment
from genx.stream import Stream

log = logging.getLogger("app.audio.player")

StopMode = Literal["abort", "zeros"]
_CLOSED_SIDS = 1024


class _PlayerState:
    """The player's shared state; see the module docstring."""

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

    def _position(self, r: _Route, frames: int, now: float) -> PlayedPosition:
        src_rate = r.fmt.rate if r.fmt is not None else 0
        dev_rate = self._fmt.rate if self._fmt is not None else src_rate
        played = min(r.received, round(frames * src_rate / dev_rate)) if dev_rate else 0
        heard_frames = _heard_frames(r.timeline, now)
        if r.doubt_from is not None:  # the device ran dry: what was handed out since may not have been heard
            heard_frames = min(heard_frames, r.doubt_from)
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


def _call(cb: PositionListener, pos: PlayedPosition) -> None:
    try:
        cb(pos)
    except Exception:
        log.exception("player position listener failed")
