"""Disfluent speech the pre-match reads past: stutters, restarts after a pause, thinking aloud, a stray last word (round 22).

:func:`fluent` rewrites the raw utterance (one line, before the other cleaning):

- a word said twice in a row is said once anywhere ("the the time", "in in Nairobi", "cancel all all the timers"), except
  an amount's or an operation's words ("two two", "twenty twenty") and words whose doubling is meant ("bye bye", "no no",
  "very very", "ha ha");
- a restart after a pause: the words since the last pause that the speaker says anew after it are said once. The next
  clause begins with a word said earlier in this one, and what lies between is either the start of the next clause again
  ("the time, the time in Madrid", "remind me, remind me to …", "three, um, three minutes") or unfinished (it ends in an
  article, a possessive or a preposition: "what's the, what time is it", "until my, until Thanksgiving") or one or two
  words ("what's today's, what's the date"); a hesitation between the two ("…, um, …") is part of the pause;
- a hesitation as the lead or the last word ("uh huh okay …", "mm what's …", "…, hmm"), thinking aloud before the request
  ("hmm let me think, …", "let me think, okay, …"; "wait" before a question);
- a stray last word after a whole request: an article ("… in Lisbon the") or "yeah"/"yep".

Each step is one pass over the words; the restart looks back within one clause only.
"""

from __future__ import annotations

import re

from genx.assistant.patterns import rx

__all__ = ["fluent"]

_HES = r"(?:uh huh|um+|uh+|uhm|er+m?|hmm+|mm+|mhm)"
#: Doubling that is meant, or an amount said twice ("two two", "twenty twenty" may be the value).
_MEANT = frozenset(
    "bye ha no very really so knock tut night choo bang yum hush ta blah bla chop there now "
    "zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million times plus minus".split()
)
#: A word said twice, the second maybe with "'s" ("what what's the date"); not "for for" or "to to" before a unit of time or
#: the rest of a clock time, where "for for minutes", "wake me up for for fifteen" hold "four" or "two" heard as a word.
_DOUBLE = rx(
    r"\b([a-z']+) (\1(?:'s)?)\b(?!')"
    r"(?<!\bfor for)(?<!\bto to)(?<!\btoo too)(?<!\bfore fore)"
    r"|\b(?:for for|to to|too too|fore fore)\b(?! (?:and a half )?(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|o'clock|oh|[ap]\.?m\.?|"
    r"thirty|fifteen|forty|twenty|ten|five|fifty|\d\d)\b)"
)
#: A word begun and broken off, then said whole: "un until", "Chris Christmas"; not a short word of its own ("to tomorrow").
_BROKEN = rx(r"\b([a-z]{2,4}) (?=\1[a-z]{2,}\b)")
_WORDS = frozenset(
    "an in on at to of is it as be by do go he me my no so up us we or and the for how can are all any one two six ten "
    "now new our out set get let who why was has had her him his its not off per see she too two way yes you".split()
)
#: A pause, with a hesitation in it or none: ", ", ", um, ", ", uh "
_PAUSE = rx(rf",(?: {_HES},?)? ")
#: Words that leave a phrase unfinished when said last before a pause.
_UNFINISHED = frozenset("the a an my your our his her their its to for of in on at until till is are what's".split())
_LEAD = rx(
    rf"^(?:(?:{_HES}|okay|ok|so|and|well)[ ,]+)*(?:(?:let me think|lemme think|let me see|let's see|thinking)[ ,]+"
    rf"(?:(?:okay|ok|so|right|um|uh)[ ,]+)*|wait[ ,]+(?=(?:wait )?(?:what|how|when|which|is|do)\b))?"
)
_TAIL = rx(rf"(?:[ ,]+(?:{_HES}|the|yeah|yep))+$")


#: Words a clause restarts with that begin another phrase too: "the timer, the meeting …" is no restart unless said again.
_ARTICLES = frozenset("the a an my your our his her their this that".split())


def _undouble(m: re.Match[str]) -> str:
    if m[1] is None:  # "for for" before no unit and no clock time: a stutter
        return m[0].split()[0]
    return m[0] if m[1].lower() in _MEANT else m[2]


def _unbroken(m: re.Match[str]) -> str:
    return m[0] if m[1].lower() in _WORDS else ""


def _stem(word: str) -> str:
    w = word.lower()
    return w[:-2] if w.endswith("'s") else w


def _restarted(clause: str, rest: str) -> str | None:
    """``clause`` without the words ``rest`` says anew, or ``None`` when ``rest`` restarts nothing of it."""
    words, again = clause.split(), rest.split()
    if not words or not again:
        return None
    first = _stem(again[0])
    for i in range(len(words) - 1, max(-1, len(words) - 8), -1):
        if _stem(words[i]) != first:
            continue
        dropped = words[i:]
        prefix = [w.lower() for w in again[: len(dropped)]] == [w.lower() for w in dropped]
        if prefix or dropped[-1].lower() in _UNFINISHED or (len(dropped) <= 2 and first not in _ARTICLES):
            return " ".join(words[:i])
        return None
    return None


def _restarts(t: str) -> str:
    """``t`` with each restart after a pause said once (module docstring)."""
    clauses, pauses = [], []
    pos = 0
    for m in _PAUSE.finditer(t):
        clauses.append(t[pos : m.start()])
        pauses.append(m[0])
        pos = m.end()
    clauses.append(t[pos:])
    out = clauses[0]
    for pause, clause in zip(pauses, clauses[1:], strict=True):
        # the clause restarted is what was said since the last pause kept
        cut = out.rfind(", ") + 2 if ", " in out else 0
        kept = _restarted(out[cut:], clause)
        out = f"{out}{pause}{clause}" if kept is None else f"{out[:cut]}{kept} {clause}"
    return " ".join(out.split())


def fluent(text: str) -> str:
    """``text`` with its stutters, restarts, hesitations and stray last word gone (module docstring)."""
    t = _BROKEN.sub(_unbroken, _DOUBLE.sub(_undouble, text))
    t = _LEAD.sub("", t)
    t = _TAIL.sub("", t)
    return _restarts(t).strip(" ,") or text
