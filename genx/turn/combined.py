"""Smart Turn (audio) and the SmolLM2 text signal combined into one verdict.

The rule (:class:`CombinationRule`, thresholds measured by ``bench/turn_detect.py``):
the text probability decides when it is clear — at or above ``text_complete``
the turn is complete, at or below ``text_incomplete`` it is not — and Smart
Turn decides in the band between, or alone when there is no text verdict (no
transcript yet, or the llama.cpp model is busy with an answer). On piper and
espeak-ng voices the text signal was right on every question and on every
fragment heard right (the misses were fragments misheard as whole sentences,
which Smart Turn also called complete), while Smart Turn alone judged the flat
synthetic intonation right on only about two thirds.

Order: the text check first (one short prefill, ~30-60 ms), Smart Turn only when
the text leaves the question open (~35-120 ms more), so the usual check costs
the text alone and the CPU stays free for the preemptive answer. The verdict's
``parts`` holds what ran, ``cost_ms`` their sum.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from genx.errors import GenxError
from genx.turn.detector import NO_TRANSCRIPT, TurnDetector, TurnModelBusyError, TurnVerdict

if TYPE_CHECKING:
    from genx.model import ModelContext


class CombinationRuleError(GenxError, ValueError):
    def __init__(self, why: str) -> None:
        super().__init__(f"end-of-turn combination rule: {why}")


@dataclass(frozen=True, slots=True)
class CombinationRule:
    text_complete: float = 0.03  # text probability at or above: complete
    text_incomplete: float = 0.01  # text probability at or below: incomplete
    audio_threshold: float = 0.5  # between the two (or no text verdict): Smart Turn at or above this

    def validate(self) -> CombinationRule:
        if not 0.0 < self.text_incomplete <= self.text_complete < 1.0:
            raise CombinationRuleError(f"need 0 < text_incomplete ({self.text_incomplete}) <= text_complete ({self.text_complete}) < 1")
        if not 0.0 < self.audio_threshold < 1.0:
            raise CombinationRuleError(f"audio_threshold {self.audio_threshold} must be between 0 and 1")
        return self

    def text_decision(self, text: TurnVerdict | None) -> tuple[bool, str] | None:
        """``(complete, note)`` when the text verdict is clear on its own, else None."""
        if text is None or text.note == NO_TRANSCRIPT:
            return None
        if text.probability >= self.text_complete:
            return True, "text: clearly complete"
        if text.probability <= self.text_incomplete:
            return False, "text: clearly unfinished"
        return None

    def decide(self, audio: TurnVerdict, text: TurnVerdict | None) -> tuple[bool, float, str]:
        """``(complete, probability, note)``: the text verdict where it is clear, else Smart Turn's."""
        clear = self.text_decision(text)
        if clear is not None and text is not None:
            return clear[0], text.probability, clear[1]
        why = "no text verdict" if text is None or text.note == NO_TRANSCRIPT else "text uncertain"
        return audio.probability >= self.audio_threshold, audio.probability, f"smart-turn decides ({why})"


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
        skipped = ""
        try:
            text: TurnVerdict | None = await self.text.check(audio, transcript, context=context)
        except TurnModelBusyError as exc:
            text, skipped = None, f"; {exc}"
        clear = self.rule.text_decision(text)
        if clear is not None and text is not None:
            return TurnVerdict(clear[0], text.probability, self.name, text.cost_ms, _since(t0), (text,), clear[1])
        heard = await self.audio.check(audio, transcript, context=context)
        complete, p, note = self.rule.decide(heard, text)
        parts = (heard,) if text is None else (text, heard)
        return TurnVerdict(complete, p, self.name, sum(v.cost_ms for v in parts), _since(t0), parts, note + skipped)


def _since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


__all__ = ["CombinationRule", "CombinationRuleError", "CombinedDetector"]
