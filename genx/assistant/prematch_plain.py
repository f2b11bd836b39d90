"""Terse, non-native and misheard phrasings the pre-match reads as the common ones (round 17).

:func:`usual_words` rewrites the cleaned utterance before the matchers see it: "which time is now in Moscow", "what
time is there in Lima" → "what time is it in …"; "date in two weeks" → "what's the date in two weeks"; "how much make
15 plus 27" → "how much is …"; "remember me to <do something>" → "remind me to …" (not "remember me to your mother", a
greeting); a reminder's task straight after its wait with no "to", "reminder in 45 minutes move the car" → "remind me in
45 minutes to move the car"; "can sell" before a timer, an alarm or a reminder → "cancel" ("can sell the car" stays).

:func:`match_terse_time` reads a place's time said with no preposition, "time Tokyo", "current time Dubai", for a place
with a known zone only ("time flies" is none). :func:`match_still_set` reads a yes/no question whether an item is set or
still going, "is my alarm for tomorrow set", "any timers still going", "did I already set an alarm for the morning", as
the list.

:func:`before_check` reads a question for the time or the date followed by a yes/no question checking it, "what time is
it is it bedtime yet", "what day is it today is it Tuesday", as the first question; :func:`without_kin` drops a parent or
grandparent called at the end of a question that says its own value, "how many days to Halloween mommy" ("remind me to
call mommy" keeps it: there it is the task).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.patterns import rewrite, rewrites
from genx.assistant.patterns import rx as _rx
from genx.assistant.slot_reads import reads

__all__ = ["before_check", "match_still_set", "match_terse_time", "usual_words", "without_kin"]

_KINDS = r"(?:timers?|alarms?|reminders?|countdowns?)"
_WAIT = r"in (?:\d+(?:\.\d+)?|an?|half an?|[a-z]+(?:[ -][a-z]+)?) (?:minutes?|mins?|hours?|hrs?|seconds?|secs?|days?|weeks?)"
#: Who "remember me to" greets rather than asks to be reminded: "remember me to your mother".
_GREETED = r"(?:your|his|her|their|the|my|our|them|him|everyone|everybody|all|all of)\b"

_USUAL = rewrites(
    (
        (r"^(?:what|which) time (?:is (?:it )?now|is there|is it there|it is now|now is) in ", "what time is it in "),
        (r"^(?:the )?date (?=in \S+ (?:days?|weeks?|months?|years?)$)", "what's the date "),
        (r"^how much (?:make|makes|do|does) (?=\S+ (?:times|plus|minus|divided by|multiplied by)\b)", "how much is "),
        (rf"\bremember (me|us) to (?!{_GREETED})(?=[a-z])", r"remind \1 to "),
        (rf"^(?:set )?(?:a )?reminder ({_WAIT}),? (?!to\b|for\b|that\b|about\b)(?=[a-z])", r"remind me \1 to "),
        (rf"^can sell (?=(?:(?:the|my|that|this|all|all the) )?(?:[a-z0-9:']+ ){{0,3}}{_KINDS}$)", "cancel "),
    )
)


def usual_words(text: str) -> str:
    """``text`` with the module's terse, non-native and misheard phrasings said the common way (module docstring)."""
    return rewrite(text, _USUAL)


_TERSE_TIME = _rx(r"(?:the )?(?:current |local |exact )?time (?:now )?(?P<place>[a-z][a-z .'-]+)")
#: Words after "time" that are no place: "time flies", "time please", "time for bed".
_NOT_PLACE = frozenset("for to is flies out up please now check left remaining zone zones off of".split())


def match_terse_time(t: str) -> Intent | None:
    """The time of a place said with no preposition: "time Tokyo" (a place with a known zone only)."""
    if not (m := _TERSE_TIME.fullmatch(t)):
        return None
    place = m["place"].strip(" .")
    if place.lower().split()[0] in _NOT_PLACE or not reads("place", place):
        return None
    return Intent("current_time", {"place": place})


_GOING = r"(?:still )?(?:going|running|on|set|left|active|pending|ticking)"
_STILL_SET = [
    _rx(rf"(?:is|are) (?:my|the|all my) (?:[a-z0-9:]+ )?{_KINDS}(?: for [a-z0-9: ]+)? {_GOING}"),
    _rx(rf"(?:are there |are |do i have |have i got |is there |got )?any (?:of (?:my|the) )?{_KINDS} {_GOING}"),
    # whether the speaker set one: "did I already set an alarm for the morning", "have we started a timer yet"
    _rx(
        rf"(?:did|have) (?:i|we) (?:already |actually )?(?:set|start(?:ed)?|put on) (?:a|an|any|my|the) (?:[a-z0-9:]+ )?{_KINDS}"
        r"(?: for [a-z0-9: ]+)?(?: yet| already)?"
    ),
]


def match_still_set(t: str) -> Intent | None:
    """A yes/no question whether an item is set or still going: the list answers it."""
    return Intent("list_timers", {}) if any(rx.fullmatch(t) for rx in _STILL_SET) else None


#: A yes/no question checking the answer, straight after the question: "… is it bedtime yet", "… is it tuesday".
_CHECK = re.compile(r",? (?=is it (?:\S+ ?){1,4}$)", re.IGNORECASE)
_CLOCK_TOOLS = frozenset(("current_time", "date_info"))
#: A parent or grandparent called at the end (a child asking): "… mommy", "… grandpa".
_KIN = re.compile(r",? (?:mommy|mummy|mom|mum|mama|daddy|dad|papa|grandma|granny|grandpa|nana|nan)$", re.IGNORECASE)
_VALUE_TOOLS = frozenset(("convert_units", "calculate", "current_time", "date_info"))


def before_check(t: str, match: Callable[[str], Intent | None]) -> Intent | None:
    """The time or the date asked, then a yes/no question checking it: the first question alone."""
    for cut in _CHECK.finditer(t):
        if (intent := match(t[: cut.start()])) is not None and intent.tool in _CLOCK_TOOLS:
            return intent
    return None


def without_kin(t: str, match: Callable[[str], Intent | None]) -> Intent | None:
    """A question that says its own value with a parent called after it: the question alone."""
    if not (m := _KIN.search(t)) or (intent := match(t[: m.start()])) is None or intent.tool not in _VALUE_TOOLS:
        return None
    return intent if intent.arguments and all(reads(k, v) for k, v in intent.arguments.items()) else None
