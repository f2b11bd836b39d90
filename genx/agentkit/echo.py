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
  binding is missing, and on top of AEC with milder settings (:mod:`.echo_vad`).

The residual echo gate after the canceller is :mod:`.echo_gate`, the echo delay
estimate :mod:`.echo_delay`, the far end and the 10 ms framing :mod:`.far_end`.

Everything here runs on the event loop: AEC3 costs ~60 µs per 10 ms frame.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

# the echo handling's other parts are importable from here too (their names were here before the split)
from genx.agentkit.echo_delay import DelayEstimator
from genx.agentkit.echo_gate import EchoGate
from genx.agentkit.echo_vad import MILD_VAD, STRICT_VAD, VadEchoFallback
from genx.agentkit.far_end import FRAME, RATE, FarEndTimeline, Framer, LevelMeter, Resampler16k, frame_db
from genx.errors import GenxError

log = logging.getLogger("genx.agentkit.echo")


class EchoUnavailableError(GenxError):
    """The AEC binding is not installed or failed to initialise."""

    def __init__(self, why: str) -> None:
        super().__init__(f"acoustic echo cancellation is unavailable ({why}); install 'pywebrtc-audio' or rely on the VAD fallback")


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
        self._framer = Framer()
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
    "frame_db",
    "try_echo_canceller",
]
