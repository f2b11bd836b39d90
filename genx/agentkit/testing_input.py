"""Test stand-ins, the input side: the virtual clock, a scripted microphone and an energy VAD.

``RATE``, ``MIME``, :class:`VirtualClock` and :func:`tone` are what every stand-in of :mod:`genx.agentkit.testing`
shares: 16 kHz mono PCM, seconds advanced by the test, a loud tone as "speech".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from genx.chunk import MessageChunk, Role
from genx.stream import Stream, StreamBuilder

RATE = 16000
MIME = "audio/l16; channels=1; rate=16000"


class VirtualClock:
    __slots__ = ("t",)

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def tone(n: int, amp: int = 8000, phase: int = 0) -> bytes:
    t = np.arange(phase, phase + n)
    return (amp * np.sin(t * 2 * math.pi * 220 / RATE)).astype("<i2").tobytes()


class ScriptedMic:
    """Capture stream: speech (a tone) during the scripted intervals, silence elsewhere."""

    def __init__(self, clock: VirtualClock, speech: Sequence[tuple[float, float]] = (), amp: int = 8000) -> None:
        self.clock = clock
        self.speech: list[tuple[float, float]] = list(speech)
        self.amp = amp
        self.builder = StreamBuilder()
        self._n = 0

    @property
    def stream(self) -> Stream:
        return self.builder.stream

    def say(self, start: float, end: float) -> None:
        self.speech.append((start, end))

    def speaking(self, t: float) -> bool:
        return any(a <= t < b for a, b in self.speech)

    def tick(self, t0: float, dt: float) -> None:
        """Push the capture of ``[t0, t0 + dt)`` (10 ms frames)."""
        n = round(dt * RATE)
        frame = RATE // 100
        for i in range(0, n, frame):
            t = t0 + i / RATE
            data = tone(frame, self.amp, self._n) if self.speaking(t) else bytes(frame * 2)
            self._n += frame
            if not self.builder.ended:
                self.builder.push(MessageChunk.blob(MIME, data, role=Role.USER, timestamp=round(t * 1000)))


class EnergyClassifier:
    """VAD frame classifier for tests: voiced when the frame's peak exceeds ``threshold``."""

    def __init__(self, threshold: int = 1000) -> None:
        self.threshold = threshold

    def is_speech(self, frame: bytes) -> bool:
        a = np.frombuffer(frame, dtype="<i2")
        return bool(a.size and int(np.abs(a.astype(np.int32)).max()) > self.threshold)

    def set_aggressiveness(self, level: int) -> None:
        pass


def energy_vad(end_silence_ms: int = 300, **kw: Any) -> Any:
    """A real ``VadTransformer`` with :class:`EnergyClassifier` frames."""
    from genx.local.vad import VadSettings, VadTransformer

    settings = VadSettings(end_silence_ms=end_silence_ms, **kw)
    return VadTransformer(settings, classifier_factory=lambda s: EnergyClassifier())
