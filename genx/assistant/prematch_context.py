"""Requests wrapped in context: why said before or after, the value said first, time for another person (round 22).

:func:`context_words` rewrites the cleaned utterance, each rewrite one family:

- whose clock, said as where someone lives or is: "what time is it where my sister lives in Vancouver" is the time in
  Vancouver; "my son's studying in Perth, what time is it for him" is the time in Perth (the place said of the person
  the question is for);
- "do me a …", "get me a …" before a timer, an alarm or a reminder is setting it ("could you do me a six minute timer");
- "sharp" or "on the dot" after a clock time says it exactly ("wake me up at 6 am sharp");
- "have I got any reminders coming up", "do we have any alarms set": the list question "what reminders have I got".

:func:`around_context` reads an utterance whose request is one clause of two, when nothing else read it:

- the value first as a sentence of its own, then the request ("ten minutes. set a timer", "Tea timer. Four minutes."):
  the request with the value; after a request that is whole by itself ("Chicago. What time is it in Chicago", "Grandpa
  here. Please, an alarm for 9") the first sentence adds nothing;
- a clause of context after a pause, before or after a whole request ("my son's 4 feet tall now, what's 4 feet in cm",
  "alarm for 6:45 in the morning, I've got an early shift"): the request alone, only when it says a value and every slot
  reads; context first only when it is no request itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.patterns import rewrite, rewrites, rx
from genx.assistant.prematch_scene import REQUEST
from genx.assistant.slot_reads import reads

__all__ = ["around_context", "context_words"]

_PERSON = r"(?:my|our|his|her|their) [a-z]+(?: [a-z]+)?"
_THINGS = r"(timers|alarms|reminders|countdowns)"

_TABLE = rewrites(
    (
        (rf"\bwhere {_PERSON} (?:lives|live|is|are|works|work|studies|study|stays|stay|is staying|is living) (?=in\b)", ""),
        (
            rf"^{_PERSON}(?:'s| is| are) [a-z]+ (?:in|at) (?P<place>[^,]+), "
            r"(?P<q>what time is it|what's the time|what is the time) for (?:her|him|them)\b",
            r"\g<q> in \g<place>",
        ),
        (r"\b(?:do|get|make) me (?=(?:a|an) (?:[a-z0-9]+ ){0,3}(?:timer|alarm|reminder|countdown)\b)", "set "),
        # a clock time said exactly: "at 6 am sharp", "for 7 on the dot"
        (r"\b(\d|[ap]\.?m\.?|o'clock|noon|midnight) (?:sharp|on the dot)\b", r"\1"),
        (
            rf"^(?:have|do) (?:i|we) (?:got|have|have got) any {_THINGS}(?: (?:coming up|set|running|on|pending|going))?$",
            r"what \1 have I got",
        ),
    )
)


def context_words(t: str) -> str:
    """``t`` with the module's phrasings of whose clock, "do me a timer" and "have I got any …" said plainly."""
    return rewrite(t, _TABLE)


#: A sentence break between the value and the request ("ten minutes. set a timer").
_SENTENCE = re.compile(r"\. +(?=\S)")
#: What a clause of context after the request starts with: a subject of its own, or a word saying why.
_AFTER = rx(r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|it|it's|it'll|it needs|that's|they|they're|the|my|our|so|but|because|cause)\b")
_LEAD = rx(r"^(?:but|so|and|then)[ ,]+")


def _whole(intent: Intent | None) -> Intent | None:
    """``intent`` when it says a value and every slot reads, else ``None``: a question with no value of its own ("the movie
    starts at 8, what time is it") may be about the context, and stays with the model."""
    if intent is None or not intent.arguments or not all(reads(k, v) for k, v in intent.arguments.items()):
        return None
    return intent


def _value_first(t: str, clean: Callable[[str], str], match: Callable[[str], Intent | None]) -> Intent | None:
    parts = _SENTENCE.split(t)
    if len(parts) != 2:
        return None
    first, then = (clean(p) for p in parts)
    if len(first.split()) > 3:
        return None
    if (whole := _whole(match(then))) is not None:  # "Chicago. What time is it in Chicago", "Grandpa here. Please, …"
        return whole
    return _whole(match(f"{then} for {first}")) or _whole(match(f"{first} for {then}"))


def around_context(t: str, clean: Callable[[str], str], match: Callable[[str], Intent | None]) -> Intent | None:
    """The request of ``t`` when the rest is the value said first or context said around it (module docstring)."""
    if (intent := _value_first(t, clean, match)) is not None:
        return intent
    cuts = list(re.finditer(r", ", t))
    for cut in cuts:  # the request first, then why
        if _AFTER.match(t, cut.end()) and (intent := _whole(match(clean(t[: cut.start()])))) is not None:
            return intent
    for cut in reversed(cuts):  # why first, then the request; a request first is one of two ("what's 5 plus 5, set a timer …")
        if not REQUEST.match(t) and (intent := _whole(match(clean(_LEAD.sub("", t[cut.end() :]))))) is not None:
            return intent
    return None
