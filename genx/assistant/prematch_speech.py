"""Artefacts of speech the pre-match reads past: words said twice, and talk to someone else before the request.

:func:`collapse_repeats` makes a run of one to three words said twice in a row
one run where a request starts ("set a set a timer", "what time what time is it", "I'm out, cancel cancel the
reminder": Whisper's and a speaker's restarts). A run with a number or an operator
in it stays ("2 times 2 times 2", "two two"): it may be the amount. :func:`addressed`
is the part of an utterance said to Parley once its name is said after other talk
("Okay kids, quiet please. Parley, what time is it?"), or after a speaker's
introduction ("Grandpa here. Please, an alarm for 9"); ``None`` when there is no such
part. The part must still be a whole request by itself. :func:`said_twice` is a whole request said twice in one breath
said once ("what's the date what's the date"). :func:`unaddressed` drops a pet name said with no pause at the end or
before a reason ("… for my stew sweetie", "what time is it darling I've lost track"; not "my darling") and "for me"
after the thing asked for ("set an alarm for me for 9": the alarm is no one's name).
"""

from __future__ import annotations

import re

__all__ = ["addressed", "collapse_repeats", "said_twice", "unaddressed"]

#: A run said twice where a request starts (the utterance's or a clause's start), followed by more words: a restart.
#: Inside a clause a doubled word may be meant: "remind me to say bye bye to Nan".
_REPEAT = re.compile(r"(?:^|(?<=[,.!?] ))((?:[a-z']+ ){1,3}?)\1(?=\S)", re.IGNORECASE)
#: Words of an amount or an operation: said twice they may be the value ("times 2 times 2"), not a restart.
_COUNTING = frozenset(
    "zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million half quarter "
    "times plus minus over by point and".split()
)


def _collapse(m: re.Match[str]) -> str:
    run = m[1]
    return m[0] if any(w.lower() in _COUNTING for w in run.split()) else run


def collapse_repeats(text: str) -> str:
    """``text`` with each run said twice in a row said once (module docstring)."""
    return _REPEAT.sub(_collapse, text)


#: Parley's name as an address after other talk: at a sentence or clause start, followed by a pause.
_ADDRESS = re.compile(r"(?:^|[.!?,] )(?:(?:hey|ok|okay|oh|so) )?parley[,.!?] +(?=\S)", re.IGNORECASE)
#: A speaker saying who speaks, as a sentence of its own: "Grandpa here.", "It's Tom.", "This is Anna speaking."
_INTRODUCTION = re.compile(
    r"^(?:[a-z]+ (?:[a-z]+ )?here|(?:it's|it is|this is) [a-z]+(?: [a-z]+)?(?: here| speaking)?)[.!] +(?=\S)", re.IGNORECASE
)


def addressed(text: str) -> str | None:
    """What was said to Parley after talk to others or an introduction, or ``None`` (module docstring)."""
    ends = [m.end() for m in _ADDRESS.finditer(text) if m.start() > 0]
    if ends:
        return text[ends[-1] :]
    if m := _INTRODUCTION.match(text):
        return text[m.end() :]
    return None


#: The whole utterance, of two words or more, said twice with no pause (or a comma): "cancel it cancel it".
_TWICE = re.compile(r"(?P<once>\S+(?: \S+)+?),? (?P=once)", re.IGNORECASE)


def said_twice(text: str) -> str:
    """``text`` said once when the whole of it is said twice in a row, else ``text``."""
    return m["once"] if (m := _TWICE.fullmatch(text)) else text


#: A pet name with no pause, at the end or before a reason; not one said of someone ("my darling", "oh dear").
_PET_NAME = re.compile(
    r"(?<!\bmy)(?<!\boh)(?<!\bthe)(?<!\ba)(?<!\bso) (?:dear|darling|sweetie|sweetheart)"
    r"(?=$| (?:i|i'm|i've|i'll|i'd|we|we're|we've|because|cause)\b)",
    re.IGNORECASE,
)
_FOR_ME = re.compile(r"\b(timer|alarm(?: clock)?|reminder|countdown) for (?:me|us) (?=(?:for|at|in|on|by)\b)", re.IGNORECASE)


def unaddressed(text: str) -> str:
    """``text`` without a pet name said with no pause, and without "for me" after the thing asked for (module docstring)."""
    return _FOR_ME.sub(r"\1 ", _PET_NAME.sub("", text))
