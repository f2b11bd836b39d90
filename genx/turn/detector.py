"""The end-of-turn detector contract, its verdict, the silence rule and the typed errors.

A :class:`TurnDetector` is asked at a pause: given the utterance audio so far
(16 kHz mono little-endian int16 PCM, from the utterance's onset) and, when the
ASR has one, the provisional transcript, is the user's turn complete? The
answer is a :class:`TurnVerdict`: the probability that it is complete, the
decision (probability against the detector's threshold) and what the check
cost. Detectors score on a worker thread (:func:`score_on_thread`), so a check
never blocks the event loop; each call keeps its own inputs and results (no
detector-wide state but the loaded model).

Errors: :class:`TurnModelError` (a model file missing, corrupt or of the wrong
kind: the caller falls back to :class:`SilenceRule` and warns),
:class:`TurnAudioError` (input that is not int16 PCM), :class:`TurnModelBusyError`
(a shared model stayed busy past the check's deadline: this check has no answer).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from genx.errors import GenxError
from genx.local.models import LocalModelError

if TYPE_CHECKING:
    from genx.model import ModelContext

T = TypeVar("T")

RATE = 16000  # Hz: what every detector reads
NO_TRANSCRIPT = "no transcript"  # the note of a text verdict that had nothing to score


class TurnModelError(LocalModelError):
    """An end-of-turn model that cannot be used (missing, corrupt, wrong kind); the message says what to do."""

    def __init__(self, what: str, problem: str, todo: str) -> None:
        self.what = what
        self.problem = problem
        super().__init__(f"{what}: {problem}; {todo}")


class TurnAudioError(GenxError, ValueError):
    """Audio given to a detector that is not 16 kHz mono int16 PCM bytes."""

    def __init__(self, why: str) -> None:
        super().__init__(f"end-of-turn check: {why}; pass the utterance as 16 kHz mono little-endian int16 PCM bytes")


class TurnModelBusyError(GenxError):
    """A shared model (the llama.cpp context) stayed busy longer than the check may wait."""

    def __init__(self, what: str, waited_ms: float) -> None:
        self.what = what
        self.waited_ms = waited_ms
        super().__init__(f"{what} was busy for {waited_ms:.0f} ms (an answer is being generated); this check has no verdict")


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """One check's answer. ``cost_ms``: scoring time on the worker; ``elapsed_ms``: call → verdict (waits included)."""

    complete: bool
    probability: float  # that the turn is complete, 0..1
    detector: str  # "silence", "smart-turn", "text", "combined"
    cost_ms: float = 0.0
    elapsed_ms: float = 0.0
    parts: tuple[TurnVerdict, ...] = ()  # a combined verdict's inputs
    note: str = ""  # why a combined verdict ignored a part, etc.


class TurnDetector(Protocol):
    """Scores a pause; see the module docstring."""

    @property
    def name(self) -> str: ...

    async def warm(self) -> None:
        """Load the model now (in a worker thread); raises :class:`TurnModelError` when it cannot."""
        ...

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdict:
        """The verdict for ``audio`` (the utterance so far); ``context``: the conversation before it, if known."""
        ...


class SilenceRule:
    """Today's rule: every pause is an end of turn; the voice loop's silence timer decides when."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return "silence"

    async def warm(self) -> None:
        """Nothing to load."""

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdict:
        return TurnVerdict(True, 1.0, "silence")


def pcm_to_float(audio: bytes | bytearray | memoryview) -> np.ndarray:  # type: ignore[type-arg]
    """int16 PCM bytes → float32 samples in [-1, 1); :class:`TurnAudioError` for anything else."""
    if not isinstance(audio, bytes | bytearray | memoryview):
        raise TurnAudioError(f"expected bytes, got {type(audio).__name__}")
    if len(audio) % 2:
        raise TurnAudioError(f"{len(audio)} bytes is not a whole number of int16 samples")
    return np.frombuffer(audio, dtype="<i2").astype(np.float32) / 32768.0


async def score_on_thread(fn: Callable[[], T]) -> tuple[T, float, float]:
    """Run ``fn`` on a worker thread: ``(result, cost_ms on the worker, elapsed_ms since this call)``."""
    t0 = time.perf_counter()

    def timed() -> tuple[T, float]:
        t1 = time.perf_counter()
        value = fn()
        return value, (time.perf_counter() - t1) * 1000.0

    value, cost_ms = await asyncio.to_thread(timed)
    return value, cost_ms, (time.perf_counter() - t0) * 1000.0


__all__ = [
    "NO_TRANSCRIPT",
    "RATE",
    "SilenceRule",
    "TurnAudioError",
    "TurnDetector",
    "TurnModelBusyError",
    "TurnModelError",
    "TurnVerdict",
    "pcm_to_float",
    "score_on_thread",
]
