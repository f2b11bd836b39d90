"""Phrasings of a working day at a desk and in a kitchen the pre-match reads as the common ones (round 18).

:func:`everyday_words` rewrites the cleaned utterance before the matchers see it: an hour and a part of one, "an hour and
a quarter", "2 hours and three quarters" → "1 hour 15 minutes", "2 hours 45 minutes" (the timer tool reads "and a half"
itself, not the quarters), and a number "and a half" before its unit, "one and a half hour" → "1 hour 30 minutes".

:func:`before_tail` reads a whole request followed, with no pause, by what it is for: "please" and a clause, "a timer for 5
minutes please the kids are brushing their teeth", or "so" and what the speaker means to do or not to miss, "set an alarm
for 3 pm so I don't miss the pickup": the request alone decides, when every slot it says reads with its tool's parser.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.slot_reads import reads

__all__ = ["before_tail", "everyday_words"]

#: Hours and a part of one: "an hour and a quarter", "2 hours and 3 quarters".
_HOURS_AND_PART = re.compile(
    r"\b(?:(?:an?|one|1) hour|(?P<n>\d+) hours) and (?P<part>(?:a|1|one) quarter|(?:3|three) quarters)\b", re.IGNORECASE
)
#: A whole number of a unit and a half said before the unit: "one and a half hour(s)", "2 and a half minutes".
_AND_A_HALF = re.compile(
    r"\b(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten) and a half (?P<unit>hour|minute)s?\b", re.IGNORECASE
)
_SMALL = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_HALF_OF = {"hour": "30 minutes", "minute": "30 seconds"}

#: Where a finished request ends and what it is for begins, no pause: "please" before a clause with its own subject, or
#: "so (that)" before what the speaker means to do ("so I don't miss …", "so we can …").
_TAIL_CUT = re.compile(
    r" (?=please (?:the|my|our|his|her|their|i|we|they|he|she|you|it's|i'm|we're|they're) [a-z']+ [a-z']+)|"
    r" (?=so(?: that)? (?:i|we|they|he|she|you) (?:don't |do not |won't |can't |can |could |will |remember to )?[a-z']+)",
    re.IGNORECASE,
)


def _hours_and_minutes(m: re.Match[str]) -> str:
    hours = int(m["n"] or 1)
    minutes = 15 if "quarters" not in m["part"].lower() else 45
    return f"{hours} hour{'s' if hours != 1 else ''} {minutes} minutes"


def _and_a_half(m: re.Match[str]) -> str:
    n = int(_SMALL.get(m["n"].lower(), m["n"]))
    unit = m["unit"].lower()
    return f"{n} {unit}{'s' if n != 1 else ''} {_HALF_OF[unit]}"


def everyday_words(t: str) -> str:
    """``t`` with an hour and a quarter (or three), and "one and a half hour", said as hours and minutes."""
    return _AND_A_HALF.sub(_and_a_half, _HOURS_AND_PART.sub(_hours_and_minutes, t))


def before_tail(t: str, match: Callable[[str], Intent | None]) -> Intent | None:
    """A whole request, then "please" and a clause or "so" and a purpose: the request alone, its slots reading."""
    for cut in _TAIL_CUT.finditer(t):
        intent = match(t[: cut.start()].rstrip(" ,"))
        if intent is not None and all(reads(name, value) for name, value in intent.arguments.items()):
            return intent
    return None
