"""KeywordLabeler: deterministic labels from word patterns, no model (the offline recall default).

Each label has one regular expression (case-insensitive, matched on the
query); a label is chosen when its pattern matches and it is a candidate.
Score: ``hits / (hits + 1)`` for ``hits`` distinct matches, so two matching
words rank above one. Runs in microseconds: recall at the start of an answer
uses it, a model labeler only when configured.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from genx.labelers import Label, nothing_to_label, select_labels, unique


class KeywordLabeler:
    __slots__ = ("_patterns",)

    def __init__(self, patterns: Mapping[str, str]) -> None:
        self._patterns = {name: re.compile(p, re.IGNORECASE) for name, p in patterns.items()}

    async def label(self, pattern: str, query: str, candidates: Sequence[str], top_k: int) -> list[Label]:
        return self.label_now(query, candidates, top_k)

    def label_now(self, query: str, candidates: Sequence[str], top_k: int) -> list[Label]:
        """The same as :meth:`label`, callable from a worker thread or sync code."""
        if nothing_to_label(query, candidates, top_k):
            return []
        chosen: list[tuple[str, float]] = []
        for name in unique(candidates):
            rx = self._patterns.get(name)
            if rx is None:
                continue
            hits = len({m.group(0).lower() for m in rx.finditer(query)})
            if hits:
                chosen.append((name, hits / (hits + 1)))
        return select_labels(chosen, candidates, top_k)


def from_config(spec: Any, generators: Any = None) -> KeywordLabeler:
    """``options.patterns`` = ``{label: regex}``."""
    from genx.modelloader.errors import ConfigError

    options = dict(getattr(spec, "options", None) or {})
    patterns = options.get("patterns") or {}
    if not isinstance(patterns, Mapping) or not all(isinstance(v, str) for v in patterns.values()):
        raise ConfigError('options.patterns must be a table of label = "regular expression"', key="options.patterns")
    try:
        return KeywordLabeler({str(k): str(v) for k, v in patterns.items()})
    except re.error as e:
        raise ConfigError(f"a pattern is not a valid regular expression: {e}", key="options.patterns") from e


__all__ = ["KeywordLabeler", "from_config"]
