"""Short spoken fillers for a tool that takes a while ("One moment.", "Let me check."), never the same twice in a row."""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["FILLERS", "Fillers"]

FILLERS = ("One moment.", "Let me check.", "Just a second.", "Let me see.", "Hang on a moment.", "Working on it.")


class Fillers:
    """Picks a filler at random, never the one said last (needs at least two phrases)."""

    __slots__ = ("_last", "_rng", "phrases")

    def __init__(self, phrases: Sequence[str] = FILLERS, *, rng: random.Random | None = None) -> None:
        self.phrases = tuple(p.strip() for p in phrases if p.strip())
        if len(self.phrases) < 2:
            raise ValueError("fillers need at least two different phrases, so that none is said twice in a row")
        self._rng = rng if rng is not None else random.Random()
        self._last = ""

    def next(self) -> str:
        choice = self._rng.choice([p for p in self.phrases if p != self._last])
        self._last = choice
        return choice
