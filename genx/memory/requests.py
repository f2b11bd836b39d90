"""Explicit requests and the facts they write: "remember that …", "forget that …", "forget everything".

Pure helpers over a :class:`~genx.memory.store.MemoryStore` (called from worker
threads by :class:`~genx.memory.service.Memory`): what "remember that …" stores
(:func:`remember_plan`), which facts "forget that …" means (:func:`matching`),
and the instruction the answer model gets for each request (:func:`instruction`),
the same whether the request was carried out or only previewed (a held answer).

Does not own: matching the request (:mod:`genx.memory.intents`), when to carry it out (the service).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from genx.memory.extract import rule_changes
from genx.memory.intents import Intent
from genx.memory.recall import content_words
from genx.memory.rules import Extracted
from genx.memory.store import Fact, MemoryStore, NewFact
from genx.memory.vocabulary import USER, attribute, sentence


@dataclass(frozen=True, slots=True)
class TurnInfo:
    """A finished turn as the memory needs it. ``at`` is when the user spoke (epoch seconds)."""

    user_text: str
    turn_id: str = ""
    conversation_id: str = ""
    at: float | None = None
    assistant_text: str = ""


def third_person(text: str) -> str:
    """ "my key is under the mat" → "The user's key is under the mat." (for free-text notes)."""
    t = " ".join(text.strip().rstrip(".!").split())
    for pattern, repl in ((r"\bI am\b|\bI'm\b", "the user is"), (r"\bmy\b", "the user's"), (r"\bI\b", "the user"), (r"\bme\b", "the user")):
        t = re.sub(pattern, repl, t, flags=re.IGNORECASE)
    return (t[:1].upper() + t[1:] + ".") if t else ""


def new_fact(e: Extracted, turn: TurnInfo, source: str, confidence: float) -> NewFact:
    a = attribute(e.attribute)
    return NewFact(
        e.subject,
        e.attribute,
        e.value,
        sentence(e.subject, e.attribute, e.value),
        confidence,
        source,
        turn.turn_id,
        turn.conversation_id,
        (e.attribute,),
        a.terms,
        turn.at,
    )


def write(store: MemoryStore, new: list[NewFact], retire: list[Extracted]) -> list[Fact]:
    stored = [f for f in store.add_many(new) if f is not None]
    for e in retire:
        store.retire(e.subject, e.attribute, e.value or None)
    return stored


def matching(store: MemoryStore, text: str) -> list[int]:
    """Ids of the current facts ``text`` describes (read only)."""
    ids: list[int] = []
    for e in rule_changes(text):
        for f in store.current(e.subject):
            if f.attribute == e.attribute and (not e.value or e.value.lower() in f.value.lower() or f.value.lower() in e.value.lower()):
                ids.append(f.id)
    if not ids:
        words = content_words(text)
        if words:
            ids = [f.id for f, _ in store.search(" ".join(words), all_terms=True)]
    return list(dict.fromkeys(ids))


def forget_matching(store: MemoryStore, text: str) -> list[int]:
    return [i for i in matching(store, text) if store.forget(i)]


def remember_plan(text: str, turn: TurnInfo) -> list[tuple[str, NewFact | None]]:
    """What "remember that ``text``" stores: (sentence, new fact) pairs; a retirement alone has no new fact."""
    changes = rule_changes(text)
    if not changes:
        note = third_person(text)
        if not note:
            return []
        return [(note, NewFact(USER, "note", note, note, 1.0, "explicit", turn.turn_id, turn.conversation_id, ("note",), "", turn.at))]
    return [(nf.text, nf) for nf in (new_fact(e, turn, "explicit", 1.0) for e in changes if e.op == "add")]


def edit(store: MemoryStore, fact_id: int, value: str, at: float) -> Fact | None:
    """The user corrected fact ``fact_id`` to ``value``: the old one is forgotten (it never comes back), the new one
    kept with the same subject, attribute and source turn. None when there is no such fact or ``value`` is empty."""
    old = store.get(fact_id)
    value = " ".join(value.split()).strip()
    if old is None or old.retired_at is not None or not value:
        return None
    a = attribute(old.attribute)
    text = value if old.attribute == "note" else sentence(old.subject, old.attribute, value)
    new = NewFact(old.subject, old.attribute, value, text, 1.0, "explicit", old.turn_id, old.conversation_id, old.labels, a.terms, at)
    store.forget(fact_id)
    return store.add(new)


def instruction(intent: Intent, done: object) -> str:
    """The answer model's instruction for an explicit request; ``done``: the saved sentences, deleted ids or count."""
    if intent.kind == "remember":
        said = " ".join(done) if isinstance(done, list) else ""
        return f"You saved this to memory: {said} Confirm in one short sentence." if said else "Nothing was saved. Say so briefly."
    if intent.kind == "forget":
        n = len(done) if isinstance(done, list) else 0
        if n:
            return f"You deleted {n} fact(s) from memory for good. Confirm briefly."
        return "Nothing in memory matched what the user asked to forget. Say so briefly."
    return f"You deleted everything from memory ({done} facts). Confirm briefly."


__all__ = ["TurnInfo", "edit", "forget_matching", "instruction", "matching", "new_fact", "remember_plan", "third_person", "write"]
