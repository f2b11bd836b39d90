"""The residual echo gate: capture frames no louder than the echo the far end explains are silenced.

Does not own: the far end (:mod:`.far_end`), the echo canceller in front of it
(:mod:`.echo`), the VAD fallback (:mod:`.echo_vad`).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from genx.agentkit.echo_delay import DelayEstimator
from genx.agentkit.far_end import FRAME, RATE, FarEndTimeline, Framer, frame_db


class _Offset:
    """A learned echo offset (dB of near over far): a high percentile of recent differences."""

    __slots__ = ("_diffs", "initial", "min_frames", "minimum", "percentile")

    def __init__(self, window: int, min_frames: int, percentile: float, initial: float, minimum: float) -> None:
        self._diffs: deque[float] = deque(maxlen=window)
        self.min_frames = min_frames
        self.percentile = percentile
        self.initial = initial
        self.minimum = minimum

    def add(self, diff: float) -> None:
        self._diffs.append(diff)

    def reset(self) -> None:
        self._diffs.clear()

    @property
    def value(self) -> float:
        if len(self._diffs) < self.min_frames:
            return self.initial
        p = float(np.percentile(np.fromiter(self._diffs, dtype=np.float64), self.percentile))
        return max(p, self.minimum)


class EchoGate:
    """Residual echo gate: silences capture frames that are no louder than the echo the far end explains.

    While the far end is audible (its loudest 10 ms frame around the echo's source is
    above ``active_db``; the source is ``[t - delay ± window_s]`` with an echo delay
    estimate, else ``[t - lookback, t + lead]``), a capture frame passes only when it
    is at least ``margin_db`` louder than ``far level + offset``. ``offset`` is the
    echo path gain learned from the signal itself: a high percentile of
    ``near − far`` over the last ``window`` active frames (user speech during the
    assistant's speech is rare and short, so the percentile tracks the echo). Until
    ``min_frames`` were seen it is ``initial_offset_db`` (echo as loud as played); it
    never goes below ``min_offset_db``: a converged canceller leaves a residual that
    is mostly very quiet but spiky, and user speech more than ~25 dB below the played
    level is not a plausible barge-in.

    After the echo canceller (``process(out, t, raw=capture)``) the decision is taken
    on the raw capture against the learned echo level, not on the canceller's
    output: here AEC3's cancellation varied from 60 dB to under 10 dB within one
    answer (re-convergence after timing jumps, double talk), and a residual burst
    is enough for a barge-in. The canceller's output is what passes (it is cleaner
    for the ASR), unless it also suppressed the user's voice (AEC3 may attenuate
    the near end while the far end plays); then the raw frame passes.

    Learning is delayed by ``confirm_s``: a frame's difference joins the statistics
    only once that much later audio was processed without :meth:`forget_recent`
    (which the loop calls on a barge-in). So the user's own barge-in never teaches
    the gate that speech is echo, while echo bursts that did not interrupt do.
    Speech over a ducked answer is not a barge-in (yet) but it is the user too:
    :meth:`hold_learning` stops learning while it lasts, or the gate would learn
    the user as echo within ``confirm_s`` and then silence the rest of the
    interruption and every later onset.
    """

    __slots__ = (
        "_delay_used",
        "_framer",
        "_hold_until",
        "_last_t",
        "_off",
        "_off_raw",
        "_pending",
        "active_db",
        "confirm_s",
        "estimator",
        "far",
        "gated",
        "lead",
        "lookback",
        "margin_db",
        "own_estimator",
        "passed",
        "passed_raw",
        "trace",
        "window_s",
    )

    def __init__(
        self,
        far: FarEndTimeline,
        *,
        margin_db: float = 3.0,
        lookback: float = 0.25,
        lead: float = 0.02,
        active_db: float = -50.0,
        window: int = 400,
        min_frames: int = 100,
        percentile: float = 99.0,
        initial_offset_db: float = 0.0,
        min_offset_db: float = -30.0,
        estimator: DelayEstimator | None = None,
        own_estimator: bool = False,
        window_s: float = 0.04,
        confirm_s: float = 0.4,
    ) -> None:
        self.far = far
        self.confirm_s = confirm_s
        self._pending: deque[tuple[float, float, float | None]] = deque()
        self._delay_used: float | None = None
        self._last_t = -math.inf  # capture time of the end of the last processed audio
        self._hold_until = -math.inf
        self.margin_db = margin_db
        self.lookback = lookback
        self.lead = lead
        self.active_db = active_db
        # with an echo delay estimate the far level is taken around the echo's source only (a tighter,
        # lower threshold for the user); own_estimator: this gate feeds it (no canceller in front)
        self.estimator = estimator
        self.own_estimator = own_estimator
        self.window_s = window_s
        self._off = _Offset(window, min_frames, percentile, initial_offset_db, min_offset_db)
        self._off_raw = _Offset(window, min_frames, percentile, initial_offset_db, min_offset_db)
        self._framer = Framer()
        self.gated = 0
        self.passed = 0
        self.passed_raw = 0
        # diagnostics: when a list, (t, far_db, near_db, raw_db, threshold, raw_threshold, verdict) per active frame
        self.trace: list[tuple[float, float, float, float | None, float, float, str]] | None = None

    @property
    def offset_db(self) -> float:
        return self._off.value

    @property
    def raw_offset_db(self) -> float:
        return self._off_raw.value

    def forget_recent(self, hold: float = 0.6) -> None:
        """Do not learn from the audio not yet confirmed, nor from the next ``hold`` seconds.

        Called on a barge-in: that audio is the user, not echo, and the user goes on
        talking while the far end still looks active (the lookback window).
        """
        self._pending.clear()
        self._hold_until = self._last_t + hold

    def hold_learning(self, on: bool, hold: float = 0.6) -> None:
        """Learn nothing from now on (``on``: the user talks over the answer), or again ``hold`` seconds from now."""
        self._pending.clear()
        self._hold_until = math.inf if on else self._last_t + hold

    def _learn(self, now: float) -> None:
        pend = self._pending
        while pend and pend[0][0] <= now - self.confirm_s:
            _, d, d_raw = pend.popleft()
            self._off.add(d)
            if d_raw is not None:
                self._off_raw.add(d_raw)

    def process(self, pcm: bytes, captured_at: float, raw: bytes | None = None) -> bytes:
        x, t0, n = self._framer.frames(pcm, captured_at)
        self._learn(t0)
        self._last_t = t0 + n / RATE
        r = np.frombuffer(raw[: len(raw) - len(raw) % 2], dtype="<i2") if raw is not None else None
        if r is not None and r.size != x.size:
            r = None  # not frame-aligned with the canceller's output (it carried a partial frame)
        out = x[:n].copy()
        est = self.estimator
        if est is not None and self.own_estimator and n:
            est.feed(x[:n], t0)
            est.update()
        delay = est.delay if est is not None else None
        used = self._delay_used
        if (delay is None) != (used is None) or (delay is not None and used is not None and abs(delay - used) > 0.02):
            # the far level is now measured over another window: what was learned no longer applies
            self._delay_used = delay
            self._off.reset()
            self._off_raw.reset()
            self._pending.clear()
        off = self._off.value
        off_raw = self._off_raw.value
        for i in range(0, n, FRAME):
            t = t0 + i / RATE
            if delay is None:
                far_db = self.far.level_db(t - self.lookback, t + self.lead + FRAME / RATE)
            else:  # the echo's source is known to within a few ms
                far_db = self.far.level_db(t - delay - self.window_s, t - delay + self.window_s + FRAME / RATE)
            if far_db < self.active_db:
                continue
            near_db = frame_db(x[i : i + FRAME])
            raw_db = frame_db(r[i : i + FRAME]) if r is not None else None
            if t >= self._hold_until:
                self._pending.append((t, near_db - far_db, None if raw_db is None else raw_db - far_db))
            thr, thr_raw = far_db + off + self.margin_db, far_db + off_raw + self.margin_db
            verdict = "gated"
            if raw_db is None:
                if near_db >= thr:
                    self.passed += 1
                    verdict = "passed"
            elif raw_db >= thr_raw:
                # decided on the raw capture: louder than the echo. Keep the canceller's output unless it
                # ate the voice too (AEC3 may suppress the near end while the far end plays)
                if near_db >= raw_db - 10.0:
                    self.passed += 1
                    verdict = "passed"
                else:
                    out[i : i + FRAME] = r[i : i + FRAME]  # type: ignore[index]
                    self.passed_raw += 1
                    verdict = "raw"
            if verdict == "gated":
                out[i : i + FRAME] = 0
                self.gated += 1
            if self.trace is not None:
                self.trace.append((t, far_db, near_db, raw_db, thr, thr_raw, verdict))
        return out.astype("<i2").tobytes()


__all__ = ["EchoGate"]
