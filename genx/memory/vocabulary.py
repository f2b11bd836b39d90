"""What Parley knows how to remember: attributes, their recall words, and how a fact is said.

An attribute is one kind of fact about a subject (``user`` or a named person,
place or thing): ``lives_in``, ``job``, ``sister``, ``favourite_colour`` …
Each known attribute has

* ``words``: the recall words of its label (a regular expression the
  deterministic labeler matches on a question) and extra search terms indexed
  with the fact (so "what city am I in" finds "lives in Berlin");
* ``multi``: whether several values hold at once (``likes``, ``allergy``); for
  the others a new value replaces the old one;
* a sentence template for the recalled text.

Unknown attributes (from a model, or ``favourite_<thing>``) get their words
from their own name. Pure data and functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

USER = "user"


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    words: str  # regex alternatives (no outer group) that point a question at this attribute
    terms: str = ""  # extra search words indexed with the fact
    multi: bool = False
    template: str = "{subject} {name}: {value}."


RELATIONS = (
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "sister",
    "brother",
    "mother",
    "father",
    "son",
    "daughter",
    "friend",
    "boss",
    "dog",
    "cat",
)
_RELATION_WORDS = {
    "mother": r"mother|mom|mum|mommy",
    "father": r"father|dad|daddy",
    "wife": r"wife|spouse",
    "husband": r"husband|spouse",
    "friend": r"(?:best )?friend",
    "dog": r"dog|puppy|pets?",
    "cat": r"cat|kitten|pets?",
}

_ATTRIBUTES = [
    Attribute(
        "name", r"my name|who am i|what am i called|call me|what should you call me", "name called", template="{poss} name is {value}."
    ),
    Attribute(
        "lives_in",
        r"live|lives|(?<!a )living|reside|home|city|town|moved|based|address",
        "live home city town",
        template="{subject} {lives} in {value}.",
    ),
    Attribute(
        "hometown",
        r"from|grew up|grow up|born in|hometown|originally",
        "from grew up hometown born",
        template="{subject} {is} originally from {value}.",
    ),
    Attribute(
        "job", r"job|work|for a living|profession|occupation|career", "job work profession", template="{subject} {works} as {a} {value}."
    ),
    Attribute("employer", r"work|company|employer|employ", "work company employer", template="{subject} {works} at {value}."),
    Attribute("age", r"old|age", "age years old", template="{subject} {is} {value} years old."),
    Attribute("birthday", r"birthday|born on|when was i born|birth", "birthday born", template="{poss} birthday is {value}."),
    Attribute("allergy", r"allerg\w*", "allergic allergy", multi=True, template="{subject} {is} allergic to {value}."),
    Attribute("diet", r"vegetarian|vegan|diet|meat|eat", "diet eat", template="{subject} {is} {value}."),
    Attribute(
        "likes",
        r"like|love|enjoy|hobby|hobbies|into|fun|free time",
        "likes loves enjoys hobby",
        multi=True,
        template="{subject} {likes} {value}.",
    ),
    Attribute("dislikes", r"hate|dislike|can't stand|cannot stand", "hates dislikes", multi=True, template="{subject} {dislikes} {value}."),
    Attribute("languages", r"speak|language", "speaks language", multi=True, template="{subject} {speaks} {value}."),
    Attribute("car", r"car|drive", "car drives", template="{subject} {drives} {value}."),
    Attribute("note", r"(?!)", "", multi=True, template="{value}"),
    *(
        Attribute(
            r,
            _RELATION_WORDS.get(r, r),
            _RELATION_WORDS.get(r, r).replace("|", " ").replace("(?:best )?", ""),
            template="{poss} " + r + " is {value}.",
        )
        for r in RELATIONS
    ),
]
ATTRIBUTES: dict[str, Attribute] = {a.name: a for a in _ATTRIBUTES}

_WORD_FIX = {"favorite": "favourite", "color": "colour", "colors": "colours", "fav": "favourite"}
_GENERIC = frozenset({"favourite", "my", "the", "new"})


def normalize_words(text: str) -> str:
    """American / short spellings folded to one form (search and labels use it on both sides)."""
    return re.sub(r"[A-Za-z]+", lambda m: _WORD_FIX.get(m.group(0).lower(), m.group(0)), text)


def attribute(name: str) -> Attribute:
    """The known attribute, or one derived from the name (``favourite_colour`` → words ``colour|colours``)."""
    known = ATTRIBUTES.get(name)
    if known is not None:
        return known
    words = [w for w in normalize_words(name.replace("_", " ")).lower().split() if w not in _GENERIC]
    alts = "|".join(f"{re.escape(w)}s?" for w in words) or r"(?!)"
    label = " ".join(words) or name.replace("_", " ")
    if name.startswith("favourite_"):
        return Attribute(name, alts, f"favourite {label}", template="{poss} favourite " + label + " is {value}.")
    return Attribute(name, alts, label, template="{poss} " + label + " is {value}.")


def label_pattern(name: str) -> str:
    """The deterministic labeler's pattern for the label of ``name`` (whole words)."""
    return rf"\b(?:{attribute(name).words})\b"


def sentence(subject: str, attr: str, value: str) -> str:
    """How a fact is recalled: "The user lives in Berlin." / "Anna's job: nurse."."""
    a = attribute(attr)
    user = subject == USER
    words = {
        "subject": "The user" if user else subject,
        "poss": "The user's" if user else f"{subject}'s",
        "name": attr.replace("_", " "),
        "value": value,
        "a": "an" if value[:1].lower() in "aeiou" else "a",
        "is": "is",
        "lives": "lives",
        "works": "works",
        "likes": "likes",
        "dislikes": "dislikes",
        "speaks": "speaks",
        "drives": "drives",
    }
    return a.template.format(**words)


__all__ = ["ATTRIBUTES", "RELATIONS", "USER", "Attribute", "attribute", "label_pattern", "normalize_words", "sentence"]
