"""How far the echo in the capture lags the far end (GCC-PHAT), for the canceller and the gate.

Does not own: the far end (:mod:`.far_end`), cancelling or gating (:mod:`.echo`, :mod:`.echo_gate`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from genx.agentkit.far_end import RATE, FarEndTimeline


class DelayEstimator:
    """How far the echo in the capture lags the far-end timeline (GCC-PHAT over recent audio).

    ``feed(near, t0)`` keeps the last ``span`` seconds of capture; :meth:`update`
    (at most every ``every`` seconds, when both sides carry sound) cross-correlates
    it with the far end for delays in ``[min_delay, max_delay]``; a peak standing
    ``min_peak`` times above the correlation's typical level is accepted when the
    previous estimate agreed (within 4 ms).
    ``delay`` is the latest accepted estimate (None before the first).
    """

    __slots__ = (
        "_buf",
        "_candidate",
        "_last",
        "_t_end",
        "delay",
        "estimates",
        "every",
        "far",
        "max_delay",
        "min_delay",
        "min_peak",
        "span",
    )

    def __init__(
        self,
        far: FarEndTimeline,
        *,
        span: float = 1.5,
        min_delay: float = -0.1,
        max_delay: float = 0.4,
        every: float = 1.0,
        min_peak: float = 6.0,
    ) -> None:
        self.far = far
        self.span = span
        self.min_delay = min_delay
        self.max_delay = max_delay
        self.every = every
        self.min_peak = min_peak
        self._buf = np.zeros(0, dtype=np.int16)
        self._t_end = 0.0
        self._last = -math.inf
        self.delay: float | None = None
        self._candidate: float | None = None
        self.estimates = 0

    def feed(self, near: npt.NDArray[np.int16], t0: float) -> None:
        keep = int(self.span * RATE)
        self._buf = np.concatenate([self._buf, near])[-keep:]
        self._t_end = t0 + near.size / RATE

    def update(self) -> float | None:
        """Re-estimate when due; returns the new delay when one was accepted."""
        n = self._buf.size
        if n < int(self.span * RATE) or self._t_end - self._last < self.every:
            return None
        self._last = self._t_end
        t_s = self._t_end - n / RATE
        extra = int((self.max_delay - self.min_delay) * RATE)
        far = self.far.read(t_s - self.max_delay, n + extra).astype(np.float64)
        near = self._buf.astype(np.float64)
        if not far.any() or float(np.dot(near, near)) < n * 100.0:  # either side silent (< −50 dBFS)
            return None
        size = 1 << math.ceil(math.log2(n + extra))
        cross = np.conj(np.fft.rfft(near, size)) * np.fft.rfft(far, size)
        cross /= np.abs(cross) + 1e-9  # PHAT: keep only the phase
        c = np.fft.irfft(cross, size)[: extra + 1]
        k = int(np.argmax(c))
        typical = float(np.median(np.abs(c))) + 1e-12
        if c[k] / typical < self.min_peak:
            return None
        d = self.max_delay - k / RATE
        # accept only what two estimates in a row agree on: without an echo path the peak is noise
        cand, self._candidate = self._candidate, d
        if cand is None or abs(cand - d) > 0.004:
            return None
        self.delay = d
        self.estimates += 1
        return self.delay


__all__ = ["DelayEstimator"]
