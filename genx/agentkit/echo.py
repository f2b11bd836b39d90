"""Keeping the assistant from hearing (and interrupting) itself.

Two layers, both optional:

* :class:`EchoCanceller`: WebRTC AEC3 (``pywebrtc_audio.AudioProcessor``) on the
  16 kHz capture, fed with the played (far-end) signal. The far end is kept on a
  timeline (:class:`FarEndTimeline`): the loop writes each block the player handed
  to the device with the time it becomes audible; each 10 ms capture frame is
  paired with the far-end audio that was audible when the frame was captured,
  shifted ``lead`` seconds into the future so that timing jitter never makes the
  reference lag the echo (AEC3 estimates the remaining delay itself, up to
  several hundred ms, but it needs the reference to lead).
* :class:`VadEchoFallback`: while the assistant speaks, the VAD gets stricter
  settings (aggressiveness 3, an energy floor, a higher onset ratio) and gets its
  normal settings back when playback ends. Used when AEC is disabled or the
  binding is missing, and on top of AEC with milder settings.

Everything here runs on the event loop: AEC3 costs ~60 µs per 10 ms frame.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from genx.errors import GenxError

log = logging.getLogger("genx.agentkit.echo")

RATE = 16000
FRAME = RATE // 100  # 10 ms


class EchoUnavailableError(GenxError):
    """The AEC binding is not installed or failed to initialise."""

    def __init__(self, why: str) -> None:
        super().__init__(f"acoustic echo cancellation is unavailable ({why}); install 'pywebrtc-audio' or rely on the VAD fallback")


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


class _Framer:
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


class _Processor(Protocol):
    def process(self, near: npt.NDArray[np.int16], far: npt.NDArray[np.int16] | None = None) -> npt.NDArray[np.int16]: ...


@dataclass(slots=True)
class EchoStats:
    frames: int = 0
    frames_with_far: int = 0
    near_energy: float = 0.0  # sum of squares of the near signal in frames with far-end audio
    out_energy: float = 0.0  # same, after cancellation

    @property
    def erle_db(self) -> float:
        """Echo return loss enhancement over frames with far-end audio (0 when unknown)."""
        if self.out_energy <= 0 or self.near_energy <= 0:
            return 0.0
        return 10.0 * math.log10(self.near_energy / self.out_energy)


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


class EchoCanceller:
    """AEC3 on 16 kHz mono int16 capture; see the module docstring.

    ``process(pcm, captured_at)``: ``pcm`` is capture audio (bytes, any length) whose
    *first* sample was captured at ``captured_at`` (loop clock). Returns the
    processed audio; output lags input by less than one 10 ms frame (a partial
    frame is kept until the next call).
    """

    __slots__ = ("_apm", "_framer", "delay", "estimator", "far", "lead", "max_ref_lead", "min_ref_lead", "stats")

    def __init__(
        self,
        *,
        far: FarEndTimeline | None = None,
        lead: float = 0.015,
        estimate_delay: bool = True,
        stream_delay_ms: int = 0,
        noise_suppression: bool = False,
        processor: _Processor | None = None,
    ) -> None:
        if processor is None:
            try:
                from pywebrtc_audio import AudioProcessor
            except ImportError as e:
                raise EchoUnavailableError(f"cannot import pywebrtc_audio: {e}") from e
            try:
                processor = AudioProcessor(
                    sample_rate=RATE,
                    num_channels=1,
                    echo_cancellation=True,
                    noise_suppression=noise_suppression,
                    high_pass_filter=True,
                    stream_delay_ms=stream_delay_ms,
                )
            except Exception as e:  # the binding reports init failures as plain exceptions
                raise EchoUnavailableError(str(e)) from e
        self._apm: _Processor = processor
        self.far = far if far is not None else FarEndTimeline()
        # the reference for a capture frame at t is the far end at t - delay + lead: it leads the echo by
        # `lead` (AEC3 only cancels a reference that leads, and only by a short delay)
        self.lead = lead
        self.delay = 0.0
        self.min_ref_lead = 0.0
        self.max_ref_lead = 0.25
        self.estimator = DelayEstimator(self.far) if estimate_delay else None
        self._framer = _Framer()
        self.stats = EchoStats()

    def played(self, pcm16k: npt.NDArray[np.int16], audible_at: float) -> None:
        """Far end: ``pcm16k`` (16 kHz mono) becomes audible at ``audible_at``."""
        self.far.played(pcm16k, audible_at)

    def process(self, pcm: bytes, captured_at: float) -> bytes:
        x, t0, n = self._framer.frames(pcm, captured_at)
        est = self.estimator
        if est is not None and n:
            est.feed(x[:n], t0)
            d = est.update()
            if d is not None:
                # AEC3 follows any fixed delay of a leading reference by itself, but every jump of the
                # reference costs it seconds of re-convergence: re-align only when the reference would lag
                # the echo (or lead it by more than AEC3 searches)
                ref_lead = self.lead - self.delay + d
                if not self.min_ref_lead <= ref_lead <= self.max_ref_lead:
                    log.debug("echo delay %.1f ms: re-aligning the reference (it led by %.1f ms)", d * 1000, ref_lead * 1000)
                    self.delay = d
        out = np.empty(n, dtype=np.int16)
        st = self.stats
        shift = self.lead - self.delay
        for i in range(0, n, FRAME):
            near = np.ascontiguousarray(x[i : i + FRAME])
            far = self.far.read(t0 + i / RATE + shift, FRAME)
            y = self._apm.process(near, far)
            out[i : i + FRAME] = y
            st.frames += 1
            if far.any():
                st.frames_with_far += 1
                nf = near.astype(np.float64)
                yf = y.astype(np.float64)
                st.near_energy += float(np.dot(nf, nf))
                st.out_energy += float(np.dot(yf, yf))
        return out.astype("<i2").tobytes()


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
        self._framer = _Framer()
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


class Tunable(Protocol):
    """What the fallback needs from the VAD (``genx.local.vad.VadTransformer.tune``)."""

    def tune(self, **changes: Any) -> Any: ...


STRICT_VAD: Mapping[str, Any] = {"aggressiveness": 3, "onset_ratio": 0.8, "min_energy_dbfs": -30.0}
# with the echo canceller and the gate in front: only the clearest speech counts. (A faster onset,
# 3 voiced frames of 4, cut barge-in by ~40 ms but let residual echo bursts through on the looped-back
# speaker: the assistant interrupted itself.)
MILD_VAD: Mapping[str, Any] = {"aggressiveness": 3, "min_energy_dbfs": -42.0}


class VadEchoFallback:
    """Stricter VAD while the assistant speaks; restores the previous settings afterwards."""

    __slots__ = ("_active", "_saved", "strict", "vad")

    def __init__(self, vad: Tunable, strict: Mapping[str, Any] = STRICT_VAD) -> None:
        self.vad = vad
        self.strict = dict(strict)
        self._saved: dict[str, Any] | None = None
        self._active = False

    @property
    def active(self) -> bool:
        return self._active

    def speaking(self, on: bool) -> None:
        if on == self._active:
            return
        try:
            if on:
                current = getattr(self.vad, "settings", None)
                self._saved = {k: getattr(current, k) for k in self.strict} if current is not None else None
                self.vad.tune(**self.strict)
            elif self._saved is not None:
                self.vad.tune(**self._saved)
            self._active = on
        except Exception:
            log.exception("could not retune the VAD for echo fallback")


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


EchoFactory = Callable[[], EchoCanceller]


def try_echo_canceller(**kw: Any) -> EchoCanceller | None:
    """An :class:`EchoCanceller`, or None (logged) when the binding is unavailable."""
    try:
        return EchoCanceller(**kw)
    except EchoUnavailableError as e:
        log.warning("%s", e)
        return None


__all__ = [
    "FRAME",
    "MILD_VAD",
    "RATE",
    "STRICT_VAD",
    "DelayEstimator",
    "EchoCanceller",
    "EchoGate",
    "EchoStats",
    "EchoUnavailableError",
    "FarEndTimeline",
    "LevelMeter",
    "Resampler16k",
    "VadEchoFallback",
    "try_echo_canceller",
]
