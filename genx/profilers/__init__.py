"""Profilers: update an entity's profile from new segments — add, change and retire facts, noting their source.

Owns the :class:`Profiler` protocol, the profile types (:class:`Profile`,
:class:`ProfileFact`, :class:`FactChange`) and the change rules
(:func:`check_changes`), the topic-pattern
:class:`~genx.profilers.mux.ProfilerMux` and the generator-backed
:class:`~genx.profilers.generator.GeneratorProfiler`.

Rules: no segments → no changes (no model call). Attributes are lower-case
words joined by ``_``. ``add`` and ``change`` need a non-empty value; a
``change`` of an attribute the profile does not have becomes an ``add``; a
``retire`` of an attribute it does not have is an error; a confidence outside
[0, 1] is an error; ``source`` is the index of the segment the change comes
from and must exist. Errors are :class:`~genx.structured.StructuredOutputError`
(the caller then changes nothing).

Does not own: storing profiles, resolving conflicts over time (the memory store
retires the old fact when a change arrives), segmenting.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, runtime_checkable

from genx.segmentors import Segment
from genx.structured import StructuredOutputError

WHAT = "profiler"
Op = Literal["add", "change", "retire"]
OPS: tuple[Op, ...] = ("add", "change", "retire")
_ATTRIBUTE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")


@dataclass(frozen=True, slots=True)
class ProfileFact:
    attribute: str
    value: str


@dataclass(frozen=True, slots=True)
class Profile:
    """What is known about one entity now (``user`` for the user)."""

    entity: str
    type: str = "thing"
    facts: tuple[ProfileFact, ...] = ()

    def value(self, attribute: str) -> str | None:
        return next((f.value for f in self.facts if f.attribute == attribute), None)


@dataclass(frozen=True, slots=True)
class FactChange:
    op: Op
    attribute: str
    value: str = ""
    confidence: float = 1.0
    source: int = 0  # index of the segment it comes from


@runtime_checkable
class Profiler(Protocol):
    async def profile(self, pattern: str, profile: Profile, segments: Sequence[Segment]) -> list[FactChange]:
        """The changes ``segments`` make to ``profile`` (see the module rules)."""
        ...


def normalize_attribute(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def check_changes(profile: Profile, changes: Sequence[FactChange], n_segments: int) -> list[FactChange]:
    """Validate and normalise ``changes`` against ``profile`` (see the module rules)."""
    have = {f.attribute for f in profile.facts}
    out: list[FactChange] = []
    for c in changes:
        attr = normalize_attribute(c.attribute)
        if c.op not in OPS:
            raise StructuredOutputError(WHAT, f"unknown operation {c.op!r}; use add, change or retire")
        if not _ATTRIBUTE.match(attr):
            raise StructuredOutputError(WHAT, f"attribute {c.attribute!r} is not a short lower-case name")
        if math.isnan(c.confidence) or not 0.0 <= c.confidence <= 1.0:
            raise StructuredOutputError(WHAT, f"invalid confidence {c.confidence!r} for {attr!r}: use 0 to 1")
        if not 0 <= c.source < max(1, n_segments):
            raise StructuredOutputError(WHAT, f"source segment {c.source} does not exist (there are {n_segments})")
        value = c.value.strip()
        op: Op = c.op
        if op == "retire":
            if attr not in have:
                raise StructuredOutputError(WHAT, f"cannot retire {attr!r}: the profile of {profile.entity!r} has no such fact")
        elif not value:
            raise StructuredOutputError(WHAT, f"{op} of {attr!r} needs a value")
        elif op == "change" and attr not in have:
            op = "add"
        out.append(replace(c, op=op, attribute=attr, value=value))
    return out


__all__ = ["OPS", "FactChange", "Op", "Profile", "ProfileFact", "Profiler", "check_changes", "normalize_attribute"]
