"""Recall: the facts relevant to what the user just said, formatted within a token budget.

Order of work (all of it in one worker thread, a few milliseconds):

1. Focus: a relation word ("my sister") or a known name in the question
   narrows recall to that person's facts (and the fact naming them). Asked
   about a relation nobody told ("my brother"), recall finds nothing rather
   than the user's own facts: a missing fact must not be replaced by another.
2. Otherwise labels: the deterministic keyword labeler (or a configured
   :class:`~genx.labelers.Labeler`) picks among the labels of the stored facts,
   and full-text search (FTS5, every content word of the question) adds facts
   whose words match.
3. With an :class:`~genx.embeddings.Embedder` configured, facts whose vector is
   close to the question's are added (async path only).
4. Facts are ranked (label score + search bonus + confidence) and formatted,
   best first, until ``token_budget`` (≈ 4 characters a token) or
   ``max_facts`` is reached.
"""

from __future__ import annotations

import math
import re
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from genx.labelers import Label
from genx.labelers.keywords import KeywordLabeler
from genx.memory.store import Fact, MemoryStore
from genx.memory.vocabulary import RELATIONS, USER, label_pattern, normalize_words

HEADER = "What you remember about the user from earlier conversations (use it only when it helps):"

_STOP = frozenset(
    "a an the and or of to in on at for from by with about is are am was were be been do does did doing done have has had "
    "i me my mine myself you your yours we our it its this that these those what whats which who whom whose where when why "
    "how s t can could would should will shall may might must please tell know remember recall again still now anymore "
    "there here any some something anything so just really very much many lot say said think living".split()
)


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def content_words(query: str) -> list[str]:
    words = re.findall(r"[^\W_]+", normalize_words(query).lower().replace("'s", ""))
    return [w for w in dict.fromkeys(words) if w not in _STOP and len(w) > 1]


def pack(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def unpack(blob: bytes) -> list[float]:
    a = array("f")
    a.frombytes(blob)
    return a.tolist()


@dataclass(frozen=True, slots=True)
class Recalled:
    """The recalled facts (best first) and what found them."""

    facts: tuple[Fact, ...] = ()
    labels: tuple[str, ...] = ()
    elapsed_ms: float = 0.0
    note: str = ""  # e.g. "labeler failed: …" (never a fact's words)
    header: str = HEADER

    def text(self) -> str:
        if not self.facts:
            return ""
        return self.header + "\n" + "\n".join(f"- {f.text}" for f in self.facts)


@dataclass(slots=True)
class _Scores:
    by_id: dict[int, float] = field(default_factory=dict)
    facts: dict[int, Fact] = field(default_factory=dict)

    def add(self, fact: Fact, score: float) -> None:
        self.facts[fact.id] = fact
        self.by_id[fact.id] = self.by_id.get(fact.id, 0.0) + score


class Recaller:
    """See the module docstring. Sync methods run in a worker thread; :meth:`recall` is the async entry."""

    def __init__(self, store: MemoryStore, *, token_budget: int = 200, max_facts: int = 6, top_labels: int = 4) -> None:
        self.store = store
        self.token_budget = token_budget
        self.max_facts = max_facts
        self.top_labels = top_labels

    # -- the deterministic path (worker thread) ---------------------------------------------------
    def recall_now(self, query: str, *, labels: Sequence[Label] | None = None) -> Recalled:
        """Recall for ``query``; ``labels`` from a model labeler replace the keyword labels when given."""
        t0 = time.perf_counter()
        facts = self.store.list()
        scores = _Scores()
        chosen: list[Label] = []
        focused = self._focus(query, facts, scores)
        if not focused:
            user_facts = [f for f in facts if f.subject == USER]
            candidates = sorted({lab for f in user_facts for lab in f.labels})
            if labels is None:
                labeler = KeywordLabeler({c: label_pattern(c) for c in candidates})
                chosen = labeler.label_now(normalize_words(query), candidates, self.top_labels)
            else:
                chosen = list(labels)
            wanted = {lab.name: lab.score for lab in chosen}
            for f in user_facts:
                hit = max((wanted[lab] for lab in f.labels if lab in wanted), default=0.0)
                if hit:
                    scores.add(f, hit)
            words = content_words(query)
            if words:
                for f, _rank in self.store.search(" ".join(words), limit=self.max_facts * 2):
                    if f.subject == USER:  # a question without a name is about the user
                        scores.add(f, 0.5)
        return self.finish(scores, chosen, t0)

    def _focus(self, query: str, facts: Sequence[Fact], scores: _Scores) -> bool:
        """Facts about the people the question names; True when it names any (even unknown ones)."""
        q = normalize_words(query)
        relations = [r for r in RELATIONS if re.search(label_pattern(r), q, re.IGNORECASE)]
        names = {f.subject for f in facts if f.subject != USER and re.search(rf"\b{re.escape(f.subject)}\b", q, re.IGNORECASE)}
        if not relations and not names:
            return False
        for f in facts:
            if f.subject == USER and f.attribute in relations:
                scores.add(f, 1.0)
                names.add(f.value)
        about = [f for f in facts if f.subject.lower() in {n.lower() for n in names}]
        rest = " ".join(w for w in content_words(q) if not any(re.fullmatch(label_pattern(r), w) for r in relations))
        specific = [f for f in about if any(re.search(label_pattern(lab), rest, re.IGNORECASE) for lab in f.labels)] if rest else []
        for f in specific or about:
            scores.add(f, 0.9)
        return True

    def finish(self, scores: _Scores, labels: Sequence[Label], t0: float, note: str = "", *, budget: int = 0, limit: int = 0) -> Recalled:
        ranked = sorted(scores.facts.values(), key=lambda f: (-(scores.by_id[f.id] + 0.1 * f.confidence), f.id))
        budget = (budget or self.token_budget) - estimate_tokens(HEADER)
        limit = limit or self.max_facts
        kept: list[Fact] = []
        for f in ranked:
            cost = estimate_tokens(f.text) + 1
            if len(kept) >= limit or cost > budget:
                break
            kept.append(f)
            budget -= cost
        return Recalled(tuple(kept), tuple(lab.name for lab in labels), (time.perf_counter() - t0) * 1000, note)

    def everything(self, subject: str = USER) -> Recalled:
        """Every current fact about ``subject`` (then the others), within twice the budget: "what do you know about me"."""
        t0 = time.perf_counter()
        scores = _Scores()
        for f in self.store.list():
            scores.add(f, 1.0 if f.subject == subject else 0.5)
        out = self.finish(scores, [], t0, budget=2 * self.token_budget, limit=50)
        return Recalled(out.facts, (), out.elapsed_ms, out.note, "Everything you remember about the user:")

    def similar(self, vector: Sequence[float], *, threshold: float = 0.6) -> list[tuple[Fact, float]]:
        """Current facts whose stored vector has a cosine ≥ ``threshold`` with ``vector``."""
        from genx.embeddings import cosine

        out: list[tuple[Fact, float]] = []
        for fact_id, blob in self.store.embeddings():
            sim = cosine(vector, unpack(blob))
            if sim >= threshold:
                fact = self.store.get(fact_id)
                if fact is not None and fact.retired_at is None:
                    out.append((fact, sim))
        return out


__all__ = ["HEADER", "Recalled", "Recaller", "content_words", "estimate_tokens", "pack", "unpack"]
