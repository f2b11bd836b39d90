"""How the pre-match and the router's guards write their patterns: one case-insensitive compile."""

from __future__ import annotations

import re

__all__ = ["Rewrites", "rewrite", "rewrites", "rx"]

#: (compiled pattern, replacement) pairs applied in order: how the pre-match reads other words as the common ones
Rewrites = tuple[tuple[re.Pattern[str], str], ...]


def rx(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled case-insensitively (what a user says has no fixed case)."""
    return re.compile(pattern, re.IGNORECASE)


def rewrites(pairs: tuple[tuple[str, str], ...]) -> Rewrites:
    """The ``(pattern, replacement)`` pairs with their patterns compiled as :func:`rx` does."""
    return tuple((rx(pattern), repl) for pattern, repl in pairs)


def rewrite(text: str, table: Rewrites) -> str:
    """``text`` with every rewrite of ``table`` applied, in order."""
    for pattern, repl in table:
        text = pattern.sub(repl, text)
    return text
