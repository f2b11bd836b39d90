"""Labelers: choose recall labels for a query from candidate labels.

Owns the :class:`Labeler` protocol, :class:`Label`, the selection rules
(:func:`select_labels`), the topic-pattern :class:`~genx.labelers.mux.LabelerMux`,
the generator-backed :class:`~genx.labelers.generator.GeneratorLabeler`
(structured ``Generator.invoke``) and the deterministic
:class:`~genx.labelers.keywords.KeywordLabeler`.

Rules (genx-behaviours, "labelers"): an empty query, no candidates or
``top_k <= 0`` give an empty result (no model call); duplicates are removed
(first occurrence kept); results are ordered by score (stable) and cut to
``top_k``; a label that is not a candidate, or a score outside [0, 1], is an
:class:`InvalidLabelError`.

Does not own: what the labels mean or where they come from (the memory store
keeps them), calling a model (``genx.generators``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from genx.structured import StructuredOutputError


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    score: float = 1.0


class InvalidLabelError(StructuredOutputError, ValueError):
    """A labeler answered a label that is not a candidate, or a score outside [0, 1]."""

    def __init__(self, detail: str) -> None:
        super().__init__("labeler", detail)


@runtime_checkable
class Labeler(Protocol):
    async def label(self, pattern: str, query: str, candidates: Sequence[str], top_k: int) -> list[Label]:
        """At most ``top_k`` of ``candidates`` that fit ``query``, best first (see the module rules)."""
        ...


def unique(items: Iterable[str]) -> list[str]:
    """``items`` without repeats, in first-seen order."""
    return list(dict.fromkeys(items))


def nothing_to_label(query: str, candidates: Sequence[str], top_k: int) -> bool:
    """True when the rules give an empty result without asking anyone."""
    return not query.strip() or not candidates or top_k <= 0


def select_labels(chosen: Iterable[tuple[str, float]], candidates: Sequence[str], top_k: int) -> list[Label]:
    """Apply the rules to raw ``(label, score)`` answers: validate, de-duplicate, order, cut."""
    allowed = set(candidates)
    seen: set[str] = set()
    out: list[Label] = []
    for name, score in chosen:
        if name not in allowed:
            raise InvalidLabelError(f"label {name!r} is not a candidate (candidates: {', '.join(unique(candidates))})")
        if not isinstance(score, int | float) or isinstance(score, bool) or math.isnan(score) or not 0.0 <= score <= 1.0:
            raise InvalidLabelError(f"invalid score {score!r} for label {name!r}: scores are between 0 and 1")
        if name in seen:
            continue
        seen.add(name)
        out.append(Label(name, float(score)))
    out.sort(key=lambda lab: -lab.score)
    return out[: max(0, top_k)]


__all__ = ["InvalidLabelError", "Label", "Labeler", "nothing_to_label", "select_labels", "unique"]
