"""Stabilising partial transcripts: local agreement of the last two hypotheses.

Each re-decode of the growing utterance gives a hypothesis. A word is
*committed* once two consecutive hypotheses agree on it and on every word before
it (compared without case and punctuation); the committed prefix only ever grows,
so what a UI shows as settled never flickers. The rest of the latest hypothesis
is *tentative*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NON_WORD = re.compile(r"[^\w']+")


def _norm(word: str) -> str:
    return _NON_WORD.sub("", word.lower())


@dataclass(slots=True)
class LocalAgreement:
    committed: list[str] = field(default_factory=list)
    _prev: list[str] | None = None

    def update(self, hypothesis: str) -> tuple[str, str]:
        """Take a new hypothesis; return ``(committed, tentative)`` text."""
        words = hypothesis.split()
        norm = [_norm(w) for w in words]
        n_committed = len(self.committed)
        consistent = [_norm(w) for w in self.committed] == norm[:n_committed]
        prev = self._prev
        if prev is not None and consistent:
            agree = 0
            for a, b in zip(prev, norm, strict=False):
                if a != b:
                    break
                agree += 1
            if agree > n_committed:
                self.committed.extend(words[n_committed:agree])
        self._prev = norm
        tentative = words[len(self.committed) :] if consistent else words[min(len(words), n_committed) :]
        return " ".join(self.committed), " ".join(tentative)

    def reset(self) -> None:
        self.committed = []
        self._prev = None


def join_text(*parts: str) -> str:
    return " ".join(p for p in (s.strip() for s in parts) if p)
