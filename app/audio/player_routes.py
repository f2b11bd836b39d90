"""The player's records: the position it reports per route, a route's state, a block of buffered audio.

A route's *heard* position comes from its timeline: per device block, when the block's frames of that route are
audible (from PortAudio's DAC time, :mod:`app.audio.player_callback`) and how many device frames of the route had
been handed out before and after it (:func:`_heard_frames`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from app.audio.pcm import SILENCE_DBFS, PcmFormat, Resampler

_TIMELINE_LEN = 256


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
        "clean_frames",
        "doubt_from",
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
        # the device ran dry while it played: frames after doubt_from may have been lost (PulseAudio drops audio
        # handed out then) and count as heard only after clean_frames of clean playback (DOUBT_CLEARS_S)
        self.doubt_from: int | None = None
        self.clean_frames = 0
        # (audible_from, audible_to, frames_before, frames_after) per callback block
        self.timeline: deque[tuple[float, float, int, int]] = deque(maxlen=_TIMELINE_LEN)


#: after the device ran dry, this much playback without it again before what was played counts as heard
DOUBT_CLEARS_S = 0.5


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
