"""The memory's records: a fact to store (:class:`NewFact`), a stored fact (:class:`Fact`), its tombstone key.

Pure data, no database: :data:`COLUMNS` and :func:`fact_from_row` map a row of
the ``facts`` table (see :mod:`genx.memory.schema`) to a :class:`Fact`; the
store (:mod:`genx.memory.store`) owns reading and writing them.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NewFact:
    """A fact to store. ``at`` is when it was said (the turn's time); now when None."""

    subject: str
    attribute: str
    value: str
    text: str
    confidence: float = 1.0
    source: str = "rules"
    turn_id: str = ""
    conversation_id: str = ""
    labels: tuple[str, ...] = ()
    terms: str = ""
    at: float | None = None

    def key(self) -> str:
        return fact_key(self.subject, self.attribute, self.value)


@dataclass(frozen=True, slots=True)
class Fact:
    id: int
    subject: str
    attribute: str
    value: str
    text: str
    confidence: float
    source: str
    turn_id: str
    conversation_id: str
    created_at: float
    retired_at: float | None
    replaced_by: int | None
    labels: tuple[str, ...]


def fact_key(subject: str, attr: str, value: str) -> str:
    """The tombstone key: a hash, so a forgotten fact's words are not kept."""
    raw = "\x1f".join((subject.strip().lower(), attr.strip().lower(), " ".join(value.lower().split())))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


COLUMNS = "id, subject, attribute, value, text, confidence, source, turn_id, conversation_id, created_at, retired_at, replaced_by, labels"


def fact_from_row(row: sqlite3.Row | tuple[object, ...]) -> Fact:
    r = tuple(row)
    labels = tuple(str(r[12]).split()) if r[12] else ()
    return Fact(
        int(r[0]),  # type: ignore[call-overload]
        str(r[1]),
        str(r[2]),
        str(r[3]),
        str(r[4]),
        float(r[5]),  # type: ignore[arg-type]
        str(r[6]),
        str(r[7]),
        str(r[8]),
        float(r[9]),  # type: ignore[arg-type]
        None if r[10] is None else float(r[10]),  # type: ignore[arg-type]
        None if r[11] is None else int(r[11]),  # type: ignore[call-overload]
        labels,
    )


__all__ = ["COLUMNS", "Fact", "NewFact", "fact_from_row", "fact_key"]
