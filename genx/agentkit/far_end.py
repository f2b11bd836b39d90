"""The far end on a timeline, and the 10 ms frames the echo handling works in.

:class:`FarEndTimeline` holds the played (far-end) audio, resampled to 16 kHz by
:class:`Resampler16k`, at the loop-clock time it becomes audible; the echo
canceller (:mod:`.echo`), the delay estimator (:mod:`.echo_delay`) and the gate
(:mod:`.echo_gate`) read it. :class:`Framer` cuts capture audio into 10 ms frames;
:func:`frame_db` is a frame's level; :class:`LevelMeter` throttles the mic level.

Does not own: what is done with the frames (the echo modules), the player.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

RATE = 16000
FRAME = RATE // 100  # 10 ms


class FarEndTimeline:
    """Far-end (played) 16 kHz mono audio on a continuous timeline (seconds, loop clock).

    ``write(pcm, audible_at)`` places samples; gaps are silence; overlapping writes
    (the player restarted early) overwrite. ``read(t, n)`` returns the ``n`` samples
    starting at time ``t`` (zeros where nothing was written). Keeps ``keep`` seconds.
    """

    __slots__ = ("_base", "_bias", "_buf", "_keep", "_next", "drift_alpha", "max_drift", "max_jitter")

    def __init__(self, keep: float = 2.0, max_jitter: float = 0.04, max_drift: float = 0.02, drift_alpha: float = 0.01) -> None:
        self._base: int | None = None  # absolute sample index of _buf[0]
        self._buf = np.zeros(0, dtype=np.int16)
        self._keep = int(keep * RATE)
        # The played signal is continuous but the reported times jitter (PortAudio over PulseAudio:
        # callbacks come in bursts, ±25 ms), and AEC3 needs a continuous reference. A block reported
        # within max_jitter of where the previous one ended is placed right after it; the mean of
        # those deviations (a real gap such as an underrun, or clock drift) is followed in steps once
        # it exceeds max_drift. Farther off → re-anchored at the reported time.
        self.max_jitter = max_jitter
        self.max_drift = max_drift
        self.drift_alpha = drift_alpha
        self._next: float | None = None
        self._bias = 0.0

    def played(self, pcm16k: npt.NDArray[np.int16], audible_at: float) -> None:
        """Append played audio that becomes audible at about ``audible_at`` (kept continuous, see above)."""
        nxt = self._next
        if nxt is not None and abs(audible_at - nxt) <= self.max_jitter:
            self._bias = (1.0 - self.drift_alpha) * self._bias + self.drift_alpha * (audible_at - nxt)
            if abs(self._bias) > self.max_drift:
                nxt += self._bias
                self._bias = 0.0
            audible_at = nxt
        else:
            self._bias = 0.0
        self.write(pcm16k, audible_at)
        self._next = audible_at + pcm16k.size / RATE

    def truncate(self, t: float) -> None:
        """Nothing after ``t`` will be played (playback was stopped and its buffers discarded)."""
        if self._base is None:
            return
        cut = self.index(t) - self._base
        if cut < self._buf.size:
            self._buf[max(cut, 0) :] = 0
        self._next = None

    def level_db(self, t0: float, t1: float) -> float:
        """The loudest 10 ms frame (dBFS) of the far end between ``t0`` and ``t1``; −120 when silent."""
        x = self.read(t0, max(FRAME, round((t1 - t0) * RATE)))
        k = x.size // FRAME
        if k == 0 or not x.any():
            return -120.0
        w = x[: k * FRAME].astype(np.float32).reshape(k, FRAME)
        ms = float(np.max(np.mean(w * w, axis=1)))
        return -120.0 if ms < 1e-6 else max(-120.0, 10.0 * math.log10(ms / (32768.0 * 32768.0)))

    @staticmethod
    def index(t: float) -> int:
        return math.floor(t * RATE + 0.5)

    def write(self, pcm: npt.NDArray[np.int16], audible_at: float) -> None:
        if pcm.size == 0:
            return
        start = self.index(audible_at)
        if self._base is None:
            self._base = start
        end = start + pcm.size
        buf_end = self._base + self._buf.size
        if end > buf_end:
            self._buf = np.concatenate([self._buf, np.zeros(end - buf_end, dtype=np.int16)])
        if start < self._base:
            pcm = pcm[self._base - start :]
            start = self._base
        if pcm.size:
            off = start - self._base
            self._buf[off : off + pcm.size] = pcm
        excess = self._buf.size - self._keep
        if excess > 0:
            self._buf = self._buf[excess:]
            self._base += excess

    def read(self, t: float, n: int) -> npt.NDArray[np.int16]:
        out = np.zeros(n, dtype=np.int16)
        if self._base is None:
            return out
        start = self.index(t)
        lo = max(start, self._base)
        hi = min(start + n, self._base + self._buf.size)
        if hi > lo:
            out[lo - start : hi - start] = self._buf[lo - self._base : hi - self._base]
        return out

    def clear(self) -> None:
        self._base = None
        self._next = None
        self._buf = np.zeros(0, dtype=np.int16)


class Framer:
    """Cuts capture audio into 10 ms frames, carrying a partial frame (and its time) to the next call."""

    __slots__ = ("_carry", "_carry_t")

    def __init__(self) -> None:
        self._carry = np.zeros(0, dtype=np.int16)
        self._carry_t = 0.0

    def frames(self, pcm: bytes, captured_at: float) -> tuple[npt.NDArray[np.int16], float, int]:
        """``(samples, time of samples[0], n)``: the first ``n`` samples are whole frames; the rest is carried."""
        x = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2")
        if self._carry.size:
            t0 = self._carry_t
            x = np.concatenate([self._carry, x])
        else:
            t0 = captured_at
        n = (x.size // FRAME) * FRAME
        self._carry = x[n:].copy()
        self._carry_t = t0 + n / RATE
        return x, t0, n


def frame_db(x: npt.NDArray[np.int16]) -> float:
    if x.size == 0:
        return -120.0
    f = x.astype(np.float32)
    ms = float(np.mean(f * f))
    return -120.0 if ms < 1e-6 else max(-120.0, 10.0 * math.log10(ms / (32768.0 * 32768.0)))


class LevelMeter:
    """dBFS of capture blocks, throttled to ``rate_hz`` publications."""

    __slots__ = ("_last", "_peak", "interval")

    def __init__(self, rate_hz: float = 25.0) -> None:
        self.interval = 1.0 / rate_hz
        self._last = -math.inf
        self._peak = -120.0

    @staticmethod
    def dbfs(pcm: bytes) -> float:
        x = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2").astype(np.float32)
        if x.size == 0:
            return -120.0
        rms = float(np.sqrt(np.mean(x * x)))
        return -120.0 if rms < 1e-3 else max(-120.0, 20.0 * math.log10(rms / 32768.0))

    def feed(self, pcm: bytes, now: float) -> float | None:
        """The level to publish now (max since the last publication), or None."""
        self._peak = max(self._peak, self.dbfs(pcm))
        if now - self._last < self.interval:
            return None
        self._last = now
        v, self._peak = self._peak, -120.0
        return round(v, 1)


class Resampler16k:
    """Streaming int16 mono resampler from ``rate`` to 16 kHz (for the far end)."""

    __slots__ = ("_r", "rate")

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._r: Any = None
        if rate != RATE:
            import soxr

            self._r = soxr.ResampleStream(rate, RATE, 1, dtype="int16")

    def __call__(self, pcm: bytes) -> npt.NDArray[np.int16]:
        x = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2")
        if self._r is None:
            return x.astype(np.int16, copy=True)
        out: npt.NDArray[np.int16] = self._r.resample_chunk(x)
        return out


__all__ = ["FRAME", "RATE", "FarEndTimeline", "Framer", "LevelMeter", "Resampler16k", "frame_db"]
