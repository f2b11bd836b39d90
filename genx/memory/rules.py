"""Deterministic fact extraction: first-person statements matched by patterns, no model.

"I moved to Berlin" → ``(user, lives_in, Berlin)``; "my sister's name is Anna"
→ ``(user, sister, Anna)``; "my favourite colour is green" →
``(user, favourite_colour, green)``; "I no longer live in Lisbon" → retire
``(user, lives_in, Lisbon)``. Questions ("do I live in Berlin?") and negated
statements are not facts.

Doubt keeps memory unchanged: when one turn gives two different values for a
single-valued attribute, the later one is kept only after a correction word
("actually", "no wait", "I mean", "sorry", "rather"); otherwise neither is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from genx.memory.vocabulary import RELATIONS, USER, attribute, normalize_words

# A value runs to punctuation, the end, or a joining word.
_STOPS = (
    "and|but|because|so|since|now|anymore|though|which|who|where|with|at|in|for|on|from|last|this|next|ago|recently"
    "|these days|nowadays|too|as well|by"
)
_V = (
    r"(?P<v>[^\W\d_][\w'’\- ]{0,58}?|\d[\w'’\- ]{0,20}?)"
    rf"(?=\s*(?:[,.;:!?]|$|\s+(?:{_STOPS})\b))"
)
_REL = "|".join(RELATIONS) + "|mom|mum|dad|puppy|kitten|best friend"
_REL_ALIAS = {"mom": "mother", "mum": "mother", "dad": "father", "puppy": "dog", "kitten": "cat", "best friend": "friend"}
_I = r"\b(?:i|i'm|i am)\b"

Op = Literal["add", "retire"]


@dataclass(frozen=True, slots=True)
class Extracted:
    subject: str
    attribute: str
    value: str
    op: Op = "add"
    confidence: float = 0.9
    position: int = 0  # where in the text it was said


def _rx(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


# (attribute or None = from the "k" group, pattern, op)
_RULES: list[tuple[str | None, re.Pattern[str], Op]] = [
    ("name", _rx(rf"\bmy name(?:'s| is)\s+{_V}"), "add"),
    ("name", _rx(rf"\b(?:call me|i'm called|i am called|people call me)\s+{_V}"), "add"),
    (
        "lives_in",
        _rx(rf"\bi(?:'ve| have)?\s+(?:now\s+|just\s+|recently\s+|finally\s+)*(?:live|lived|moved|relocated)\s+(?:in|to)\s+{_V}"),
        "add",
    ),
    ("lives_in", _rx(rf"\b(?:i'm|i am)\s+(?:now\s+)?(?:living|based|staying)\s+in\s+{_V}"), "add"),
    ("lives_in", _rx(rf"\bmy (?:home|house|flat|apartment) is in\s+{_V}"), "add"),
    ("lives_in", _rx(rf"\bi (?:no longer|don't|do not) live in\s+{_V}"), "retire"),
    ("hometown", _rx(rf"\b(?:i'm|i am)\s+(?:originally\s+)?from\s+{_V}"), "add"),
    ("hometown", _rx(rf"\bi (?:grew up|was born) in\s+{_V}"), "add"),
    ("job", _rx(rf"\bi(?:'m| am)?\s*(?:now\s+)?(?:work|working)\s+as\s+(?:an?\s+)?{_V}"), "add"),
    ("job", _rx(rf"\bmy (?:job|profession|occupation) is\s+(?:an?\s+)?{_V}"), "add"),
    ("job", _rx(rf"\bi(?:'ve| have)?\s+(?:just\s+)?(?:became|become)\s+an?\s+{_V}"), "add"),
    ("job", _rx(rf"\b(?:i'm|i am) an? {_V}(?=\s+by (?:profession|trade))"), "add"),
    ("employer", _rx(rf"\bi(?:'m| am)?\s*(?:now\s+)?(?:work|working)\s+(?:at|for)\s+{_V}"), "add"),
    ("employer", _rx(rf"\bi (?:just\s+)?(?:joined|started (?:a new job )?at)\s+{_V}"), "add"),
    ("employer", _rx(rf"\bi (?:no longer|don't|do not) work (?:at|for)\s+{_V}"), "retire"),
    ("age", _rx(r"\b(?:i'm|i am)\s+(?:now\s+)?(?P<v>\d{1,3})\s+(?:years?|yrs?)(?:\s+old)?\b"), "add"),
    ("age", _rx(r"\bi (?:just\s+)?turned\s+(?P<v>\d{1,3})\b"), "add"),
    ("birthday", _rx(rf"\bmy birthday is\s+(?:on\s+)?{_V}"), "add"),
    ("birthday", _rx(rf"\bi was born on\s+{_V}"), "add"),
    ("allergy", _rx(rf"\b(?:i'm|i am)\s+(?:very\s+|severely\s+)?allergic to\s+{_V}"), "add"),
    ("diet", _rx(r"\b(?:i'm|i am)\s+(?:now\s+)?(?:a\s+)?(?P<v>vegetarian|vegan|pescatarian)\b"), "add"),
    ("likes", _rx(rf"\bi (?:really\s+)?(?:love|enjoy|adore)\s+{_V}"), "add"),
    ("likes", _rx(rf"\b(?:i'm|i am) (?:really\s+)?into\s+{_V}"), "add"),
    ("likes", _rx(rf"\bmy hobby is\s+{_V}"), "add"),
    ("dislikes", _rx(rf"\bi (?:really\s+)?(?:hate|dislike|can't stand|cannot stand)\s+{_V}"), "add"),
    ("languages", _rx(rf"\bi speak\s+{_V}"), "add"),
    ("car", _rx(rf"\bi (?:now\s+)?drive an?\s+{_V}"), "add"),
    (None, _rx(rf"\bmy (?:new\s+)?(?:all-time\s+)?favou?rite\s+(?P<k>[a-z]+(?: [a-z]+)?)\s+(?:is|are)\s+{_V}"), "add"),
    (None, _rx(rf"\bmy (?P<k>{_REL})(?:'s name is| is called| is named|'s called| named| called)\s+{_V}"), "add"),
    (None, _rx(rf"\bi have an? (?P<k>{_REL}) (?:named|called)\s+{_V}"), "add"),
]
_PERSON_LIVES = _rx(rf"\bmy (?P<k>{_REL}) (?P<n>[A-Z][\w'-]+) (?:lives|is living|moved) (?:in|to)\s+{_V}")
_CORRECTION = re.compile(r"\b(?:actually|no wait|wait|i mean|sorry|rather|correction|no,)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*(?:do|does|did|am|is|are|was|were|what|where|who|when|which|how|can|could|would|will)\b", re.IGNORECASE)


def _clean(value: str) -> str:
    v = " ".join(value.replace("’", "'").split()).strip(" '\"-")
    return re.sub(r"^(?:the city of|a|an)\s+", "", v, flags=re.IGNORECASE) if not re.fullmatch(r"(?i)an?", v) else v


def _attr_from(k: str, rule_attr: str | None, pattern: re.Pattern[str]) -> str:
    if rule_attr is not None:
        return rule_attr
    k = k.lower()
    if "favou" in pattern.pattern:
        return "favourite_" + re.sub(r"[^a-z]+", "_", normalize_words(k).lower()).strip("_")
    return _REL_ALIAS.get(k, k)


def _sentences(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for m in re.finditer(r"[^.!?]+[.!?]?", text):
        s = m.group(0)
        if s.strip():
            out.append((m.start(), s))
    return out


def extract(text: str) -> list[Extracted]:
    """The facts ``text`` states about the user (and the people they name), in order; see the module doc."""
    found: list[Extracted] = []
    for start, sentence in _sentences(text):
        if sentence.rstrip().endswith("?") or _QUESTION.match(sentence):
            continue
        for rule_attr, rx, op in _RULES:
            for m in rx.finditer(sentence):
                k = m.groupdict().get("k") or ""
                value = _clean(m.group("v"))
                if not value or len(value) > 60:
                    continue
                found.append(Extracted(USER, _attr_from(k, rule_attr, rx), value, op, position=start + m.start()))
        for m in _PERSON_LIVES.finditer(sentence):
            rel = _REL_ALIAS.get(m.group("k").lower(), m.group("k").lower())
            found.append(Extracted(USER, rel, m.group("n"), position=start + m.start()))
            found.append(Extracted(m.group("n"), "lives_in", _clean(m.group("v")), position=start + m.start("v")))
    found.sort(key=lambda e: e.position)
    return _resolve(text, _dedupe(found))


def _dedupe(found: list[Extracted]) -> list[Extracted]:
    seen: set[tuple[str, str, str, str]] = set()
    out: list[Extracted] = []
    for e in found:
        key = (e.subject, e.attribute, e.value.lower(), e.op)
        # "I work as a nurse at …": the employer pattern does not also take "as a nurse"
        if key in seen or (e.attribute == "employer" and e.value.lower().startswith("as ")):
            continue
        seen.add(key)
        out.append(e)
    return out


def _resolve(text: str, found: list[Extracted]) -> list[Extracted]:
    """Apply the one-turn doubt rule for single-valued attributes (module doc)."""
    by_key: dict[tuple[str, str], list[Extracted]] = {}
    for e in found:
        if e.op == "add" and not attribute(e.attribute).multi:
            by_key.setdefault((e.subject, e.attribute), []).append(e)
    drop: set[int] = set()
    for items in by_key.values():
        values = {i.value.lower() for i in items}
        if len(values) < 2:
            continue
        last = items[-1]
        corrected = any(_CORRECTION.search(text, i.position, last.position) for i in items[:-1])
        for i in items:
            if i is not last or not corrected:
                drop.add(id(i))
    return [e for e in found if id(e) not in drop]


__all__ = ["Extracted", "extract"]
