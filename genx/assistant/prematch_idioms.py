"""Idioms, word orders and recogniser slips the pre-match reads as the common phrasings (round 20).

:func:`idiom_words` rewrites the cleaned utterance before the matchers see it, each rewrite one family:

- the British clock "half seven" (7:30) after a word that puts a time there, "an alarm for half seven", "at half eight
  tonight" (not "half an hour", "half 7 minutes");
- a question asked inside another with the statement's order, "(I wonder if you could tell me) what the time is in Madrid",
  "what the date is today": the question "what's the time …";
- a day said as two words by the recogniser, "to day", "to morrow", at the end or before a part of the day;
- "said an alarm", "said a timer": "set" heard as "said" before the thing it sets;
- a list question in the statement's order, "what alarms I've got", "what's pending in my reminders"; "what time have we
  got" (the whole question) asks the time;
- whose clock before the place, "what time is it for the team in Bangalore" (the time in Bangalore);
- "four" heard for "for" between a timer or an alarm and its number, "set the timer four 15 minutes";
- non-native orders: "which day falls Easter" ("what day is Easter"), "how many days left for X" ("… until X"), "how many
  days is it now till X" (no "now"), "if I divide 96 by 8, what I get" ("what do I get if I divide …").
"""

from __future__ import annotations

import re

from genx.assistant.patterns import rewrite, rewrites

__all__ = ["idiom_words"]

_HOURS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12,
}  # fmt: skip
_HOUR = rf"(?:{'|'.join(_HOURS)}|1[012]|[1-9])"
#: "half seven" is 7:30 only after a word that puts a time there and when no unit or "an hour" follows ("half past" has no hour).
_HALF_HOUR = re.compile(
    rf"\b(?P<lead>at|for|by|until|till|from|around|about|after|before) half (?P<hour>{_HOUR})\b"
    r"(?! (?:an? |hours?\b|minutes?\b|seconds?\b|mins?\b|hrs?\b))",
    re.IGNORECASE,
)

#: A verb of calculation after "if I": the condition said before its question, "if I add 35 and 47 …, what do I get".
_IF_I_THEN = re.compile(
    r"^if i (?P<sum>(?:add|divide|multiply|subtract|take|times|double|halve|square|split) .+?),? "
    r"what (?:do |would |will |should )?i (?:get|have|end up with)$",
    re.IGNORECASE,
)

_TABLE = rewrites(
    (
        # the statement's order inside a question: "what the time is in Madrid", "what the date is today"
        (r"^what the (time|date|day) is\b", r"what's the \1"),
        # the recogniser's two words for one: "what's the date to day" (only at the end or before a part of the day)
        (r"\bto (day|morrow)(?=$|,| (?:morning|afternoon|evening|night|at)\b)", r"to\1"),
        # "set" heard as "said" before what it sets: "said an alarm for 2:15 pm"
        (r"^said (?=(?:an?|the|my|me an?) (?:[a-z]+ )?(?:alarm|timer|reminder|countdown)\b)", "set "),
        # "for" heard as "four" between a timer or an alarm and its number: "set the timer four 15 minutes"
        (r"\b(timer|alarm|countdown) (?:four|fore) (?=\d)", r"\1 for "),
        # the statement's order in a list question: "what alarms I've got" ("what alarms have I got")
        (r"^what (alarms|timers|reminders|countdowns) (i|we)(?:'ve| have) got\b", r"what \1 have \2 got"),
        (r"^what's (pending|set|waiting|scheduled|running|on) in my (alarms|timers|reminders)$", r"what \2 are \1"),
        # the informal "what time have we got" asks the time (only the whole question)
        (r"^what time have (?:we|you) got$", "what time is it"),
        # whose clock said before the place: "what time is it for the team in Bangalore" is the time in Bangalore
        (
            r"^(what time is it|what's the time) for (?:the|my|our|your) [a-z]+(?: [a-z]+)? (?:over |out |up |down )?in (?=[A-Za-z])",
            r"\1 in ",
        ),
        # non-native orders of a date question
        (r"^(?:which|what) (day|date) (?:falls|fall|does fall|will fall|comes) (?:on )?(?=\S)", r"what \1 is "),
        (r"\b(how many (?:days|weeks|months|sleeps)(?: are)? left) for\b", r"\1 until"),
        (r"\b(how many (?:days|weeks|months|sleeps) (?:is it|are there|are left|left)) now (?=till|until|to|before)\b", r"\1 "),
    )
)


def _half_hour(m: re.Match[str]) -> str:
    hour = m["hour"].lower()
    return f"{m['lead']} {_HOURS.get(hour, hour)}:30"


def idiom_words(t: str) -> str:
    """``t`` with the module's idioms, orders and slips said as the common phrasings (module docstring)."""
    t = _HALF_HOUR.sub(_half_hour, rewrite(t, _TABLE))
    return _IF_I_THEN.sub(r"what do i get if i \g<sum>", t)
