"""Extraction: a finished turn's words → fact changes, by rules and (when configured) by a model.

* :func:`rule_changes` is the deterministic path (:mod:`genx.memory.rules`): instant, always on.
* :class:`ModelExtractor` runs a segmentor then a profiler (structured
  ``Generator.invoke``, the offline model by default) on the user's words. Its
  answer is checked before anything is kept: every value must appear in what
  the user said (a small model must not invent), attributes are the memory's
  vocabulary, and invalid JSON, a broken rule or a timeout give no change at
  all. It is async (the generator decodes in its own worker thread) and
  cancellable: the memory cancels it when the next answer starts.

Does not own: storing (the memory store), deciding when to run (the memory service).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from genx.chunk import Message, Role, Text
from genx.errors import GenxError
from genx.memory.rules import Extracted, extract
from genx.memory.vocabulary import ATTRIBUTES, USER, normalize_words
from genx.profilers import Profile, Profiler
from genx.segmentors import Segmentor

log = logging.getLogger(__name__)

#: Attributes the model may name (its schema's enum); free-text notes are left to explicit requests.
MODEL_ATTRIBUTES = tuple(a for a in ATTRIBUTES if a != "note")
MODEL_CONFIDENCE_CAP = 0.7


def rule_changes(text: str) -> list[Extracted]:
    return extract(text)


def grounded(value: str, text: str) -> bool:
    """Every word of ``value`` occurs in ``text`` (case and spelling folded)."""
    said = set(re.findall(r"[^\W_]+", normalize_words(text).lower()))
    words = re.findall(r"[^\W_]+", normalize_words(value).lower())
    return bool(words) and all(w in said for w in words)


@dataclass(slots=True)
class ExtractionStats:
    calls: int = 0
    failures: int = 0
    kept: int = 0
    dropped_ungrounded: int = 0
    last_error: str = field(default="")  # the error's type and the tool name only


class ModelExtractor:
    """Segmentor + profiler over the user's words (see the module docstring)."""

    def __init__(
        self,
        segmentor: Segmentor,
        profiler: Profiler,
        *,
        segmentor_name: str = "memory/segments",
        profiler_name: str = "memory/profile",
        max_entities: int = 2,
    ) -> None:
        self.segmentor = segmentor
        self.profiler = profiler
        self.segmentor_name = segmentor_name
        self.profiler_name = profiler_name
        self.max_entities = max_entities
        self.stats = ExtractionStats()

    async def changes(self, user_text: str, profiles: dict[str, Profile]) -> list[Extracted]:
        """Fact changes the model finds in ``user_text``; [] on any failure (memory unchanged)."""
        if not user_text.strip():
            return []
        self.stats.calls += 1
        try:
            segments = await self.segmentor.segment(self.segmentor_name, [Message(Role.USER, [Text(user_text)])])
            if not segments:
                return []
            subjects = [USER]
            for seg in segments:
                for e in seg.entities:
                    if e.type == "person" and e.name.lower() not in {s.lower() for s in subjects} and grounded(e.name, user_text):
                        subjects.append(e.name)
            out: list[Extracted] = []
            for subject in subjects[: 1 + self.max_entities]:
                profile = profiles.get(subject) or Profile(subject, "user" if subject == USER else "person")
                for c in await self.profiler.profile(self.profiler_name, profile, segments):
                    if c.op != "retire" and not grounded(c.value, user_text):
                        self.stats.dropped_ungrounded += 1
                        continue
                    value = c.value if c.op != "retire" else (profile.value(c.attribute) or "")
                    out.append(
                        Extracted(
                            subject, c.attribute, value, "retire" if c.op == "retire" else "add", min(c.confidence, MODEL_CONFIDENCE_CAP)
                        )
                    )
        except GenxError as e:
            self.stats.failures += 1
            self.stats.last_error = type(e).__name__
            log.info("memory extraction by the model gave nothing usable (%s)", type(e).__name__)
            return []
        self.stats.kept += len(out)
        return out


def merge(rules: Sequence[Extracted], model: Sequence[Extracted]) -> list[Extracted]:
    """Rule facts win over model facts for the same subject + attribute (they are exact)."""
    taken = {(e.subject, e.attribute) for e in rules}
    return [*rules, *(e for e in model if (e.subject, e.attribute) not in taken)]


__all__ = ["MODEL_ATTRIBUTES", "ExtractionStats", "ModelExtractor", "grounded", "merge", "rule_changes"]
