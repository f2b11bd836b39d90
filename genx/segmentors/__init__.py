"""Segmentors: split a conversation into segments, each with a summary, its entities and their relations.

Owns the :class:`Segmentor` protocol, the segment types (:class:`Segment`,
:class:`Entity`, :class:`Relation`) and their validation
(:func:`parse_segments`), the topic-pattern
:class:`~genx.segmentors.mux.SegmentorMux` and the generator-backed
:class:`~genx.segmentors.generator.GeneratorSegmentor`.

Rules: no messages with text → no segments (no model call). An entity has a
non-empty name and a type (``person``, ``place``, ``thing``, ``user`` …, free
text, lower-cased); entity names repeat once per segment at most (first kept).
A relation whose subject or object is not an entity of its segment is dropped
(counted in :attr:`Segment.dropped`), so what is kept is always consistent.
A malformed answer is a :class:`~genx.structured.StructuredOutputError`.

Does not own: deciding what becomes a fact (profilers, the memory), storing anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from genx.chunk import Message
from genx.structured import StructuredOutputError, field

WHAT = "segmentor"


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    type: str = "thing"


@dataclass(frozen=True, slots=True)
class Relation:
    subject: str
    predicate: str
    object: str


@dataclass(frozen=True, slots=True)
class Segment:
    summary: str
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    dropped: int = 0  # relations left out because an end is not an entity of this segment

    def entity(self, name: str) -> Entity | None:
        key = name.strip().lower()
        return next((e for e in self.entities if e.name.lower() == key), None)


@runtime_checkable
class Segmentor(Protocol):
    async def segment(self, pattern: str, messages: Sequence[Message]) -> list[Segment]:
        """The segments of ``messages`` (see the module rules)."""
        ...


def has_text(messages: Sequence[Message]) -> bool:
    return any(m.text().strip() for m in messages)


def _text(item: dict[str, Any], key: str) -> str:
    return str(field(item, key, str, WHAT)).strip()


def parse_segments(data: dict[str, Any]) -> list[Segment]:
    """Validate a model's ``{"segments": [...]}`` answer into :class:`Segment` s."""
    out: list[Segment] = []
    for raw in field(data, "segments", list, WHAT):
        if not isinstance(raw, dict):
            raise StructuredOutputError(WHAT, f"each segment must be an object, got {type(raw).__name__}")
        entities: dict[str, Entity] = {}
        for e in raw.get("entities") or []:
            if not isinstance(e, dict):
                raise StructuredOutputError(WHAT, "each entity must be an object with name and type")
            name = _text(e, "name")
            if not name:
                raise StructuredOutputError(WHAT, "an entity has an empty name")
            entities.setdefault(name.lower(), Entity(name, str(e.get("type") or "thing").strip().lower() or "thing"))
        relations: list[Relation] = []
        dropped = 0
        for r in raw.get("relations") or []:
            if not isinstance(r, dict):
                raise StructuredOutputError(WHAT, "each relation must be an object with subject, predicate and object")
            rel = Relation(_text(r, "subject"), _text(r, "predicate"), _text(r, "object"))
            if rel.subject.lower() in entities and rel.object.lower() in entities and rel.predicate:
                relations.append(rel)
            else:
                dropped += 1
        out.append(Segment(_text(raw, "summary"), tuple(entities.values()), tuple(relations), dropped))
    return out


__all__ = ["Entity", "Relation", "Segment", "Segmentor", "has_text", "parse_segments"]
