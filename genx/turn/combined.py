"""Smart Turn (audio) and the SmolLM2 text signal combined into one verdict.

The rule (:class:`CombinationRule`, thresholds measured by ``bench/turn_detect.py``):
the text probability decides when it is clear — at or above ``text_complete``
the turn is complete, at or below ``text_incomplete`` it is not — and Smart
Turn decides in the band between, or alone when there is no text verdict (no
transcript yet, or the llama.cpp model is busy with an answer). The text signal
separates finished questions from fragments by two orders of magnitude on
synthetic voices, while Smart Turn alone judges prosody (which a flat TTS voice
or a misheard word does not change) and was right on only two thirds of them.

Both checks run at once, each on its own worker thread; the verdict's ``parts``
holds both, its ``cost_ms`` the larger of the two.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from genx.errors import GenxError
from genx.turn.detector import TurnDetector, TurnModelBusyError, TurnVerdict

if TYPE_CHECKING:
    from genx.model import ModelContext


class CombinationRuleError(GenxError, ValueError):
    def __init__(self, why: str) -> None:
        super().__init__(f"end-of-turn combination rule: {why}")


@dataclass(frozen=True, slots=True)
class CombinationRule:
    text_complete: float = 0.02  # text probability at or above: complete
    text_incomplete: float = 0.002  # text probability at or below: incomplete
    audio_threshold: float = 0.5  # between the two (or no text verdict): Smart Turn at or above this

    def validate(self) -> CombinationRule:
        if not 0.0 < self.text_incomplete <= self.text_complete < 1.0:
            raise CombinationRuleError(f"need 0 < text_incomplete ({self.text_incomplete}) <= text_complete ({self.text_complete}) < 1")
        if not 0.0 < self.audio_threshold < 1.0:
            raise CombinationRuleError(f"audio_threshold {self.audio_threshold} must be between 0 and 1")
        return self

    def decide(self, audio: TurnVerdict, text: TurnVerdict | None) -> tuple[bool, float, str]:
        """``(complete, probability, note)``: the text verdict where it is clear, else Smart Turn's."""
        if text is None or text.note == "no transcript":
            return audio.probability >= self.audio_threshold, audio.probability, "smart-turn decides (no text verdict)"
        if text.probability >= self.text_complete:
            return True, text.probability, "text: clearly complete"
        if text.probability <= self.text_incomplete:
            return False, text.probability, "text: clearly unfinished"
        return audio.probability >= self.audio_threshold, audio.probability, "smart-turn decides (text uncertain)"


class CombinedDetector:
    """Smart Turn and the text signal under :class:`CombinationRule`; see the module docstring."""

    __slots__ = ("audio", "rule", "text")

    def __init__(self, audio: TurnDetector, text: TurnDetector, rule: CombinationRule | None = None) -> None:
        self.audio = audio
        self.text = text
        self.rule = (rule or CombinationRule()).validate()

    @property
    def name(self) -> str:
        return "combined"

    async def warm(self) -> None:
        await asyncio.gather(self.audio.warm(), self.text.warm())

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdict:
        t0 = time.perf_counter()
        a, t = await asyncio.gather(
            self.audio.check(audio, transcript, context=context),
            self.text.check(audio, transcript, context=context),
            return_exceptions=True,
        )
        if isinstance(a, BaseException):
            raise a
        if isinstance(t, BaseException) and not isinstance(t, TurnModelBusyError):
            raise t
        text_verdict = None if isinstance(t, BaseException) else t
        complete, p, note = self.rule.decide(a, text_verdict)
        if text_verdict is None:
            note += f"; {t}"
        parts = (a,) if text_verdict is None else (a, text_verdict)
        return TurnVerdict(complete, p, self.name, max(v.cost_ms for v in parts), (time.perf_counter() - t0) * 1000.0, parts, note)


__all__ = ["CombinationRule", "CombinationRuleError", "CombinedDetector"]
