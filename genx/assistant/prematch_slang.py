"""Casual speech the pre-match reads as the plain words: requests for a reminder said casually, and Whisper's homophones
of a number. Informal spellings of plain words ("gimme", "wanna", "lemme") are :mod:`.prematch_shorthand`'s, read first.

:func:`plain_words` rewrites casual leads ("I want to be reminded to …" → "remind me to …"; "going to need a reminder …"
→ "I need a reminder …") and the words a
transcriber writes for a number where only a number can stand: after "for" or "in" before a unit of time ("a timer for
to minutes" → "for two minutes", "in for hours" → "in four hours"), after "at" in a wake-up or an alarm ("wake me at for
thirty" → "at four thirty"; "for" too, "an alarm for to thirty"), "too" for "to" after "remind me" ("remind me too call
…"; "two" too, not before a length of time), "for" or "to" straight before an operator ("what's for times nine"), "four"
before an alarm's time with am/pm ("an alarm four 7 am" → "for 7 am"), "an our" → "an hour", after an operator that
follows a number ("ten divided by for" → "divided by four"), after "convert" before a unit and its target ("convert to
pints into litres" → "convert two pints …"), and at the end of a cancelled timer's number ("stop timer to" → "timer
two"). Elsewhere the words stay: "I'm off to bed", "waiting for for ever" are no numbers. Short names of a unit after a
number are the unit ("500 gigs" → "500 gigabytes"; "a gig" is a concert). "Set a time for 50 seconds" is a timer: "time"
heard for "timer" before a length of time. "The same timer again" is another one ("same timer again, eight minutes" →
"another timer, eight minutes"). Whole words only, case-insensitively.

:func:`match_nudge` reads a request for a nudge, "ping me" or "give me a shout", as what it asks: a reminder when it
says what to do ("ping me in 10 minutes to stretch" is "remind me in 10 minutes to stretch"), else a timer when it says
only how long ("nudge me in 20" is "set a timer for 20"). It must start the request: "my boss will ping me in 15 minutes"
is news, not a request.
"""

from __future__ import annotations

import re

from genx.assistant.intents import Intent
from genx.assistant.patterns import rewrite, rewrites
from genx.assistant.patterns import rx as _rx
from genx.assistant.prematch_timers import match_reminder, match_timer
from genx.toolbox.numwords import words_to_numbers

__all__ = ["match_nudge", "plain_words"]


_TIME_UNIT = r"(?= (?:and a half )?(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)\b)"
#: What follows the hour of a clock time said in words: "thirty", "fifteen", "o'clock", "am", "pm".
_CLOCK_REST = r"(?= (?:o'clock|oh [a-z]+|[ap]\.?m\.?|thirty|fifteen|forty[- ]five|twenty|ten|five|fifty|\d\d)\b)"
#: A number before an operator, as said: "ten", "a hundred and twenty", "8" (what makes "to" after the operator a number).
_NUMBER = (
    r"(?:\d+(?:\.\d+)?|[a-z]+teen|[a-z]+ty(?:[ -][a-z]+)?|hundred|thousand|million|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve)"
)
_OPERATOR = r"(?:times|plus|minus|divided by|multiplied by|over)"
_UNITS = r"(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|days?|weeks?|months?|years?|times)"
_WAKE = _rx(r"\b(?:wake|alarm|get me up|get up)\b")

#: The words a transcriber writes for "two" and "four" where they sound alike, and the number each stands for.
_HOMOPHONES = (("(?:to|too)", "two"), ("(?:for|fore)", "four"))

_SLANG = rewrites(
    (
        # being reminded, asked for: "I'd like to be reminded to …" is "remind me to …"
        (r"\b(?:i(?:'d| would) like|(?:i )?(?:want|need|wish)) to be reminded\b", "remind me"),
        (r"\b(?:i'm |i am )?going to need (?=(?:a|an) (?:reminder|alarm|timer)\b)", "I need "),
        # a number heard as a word where only a number can stand
        *((rf"\b(for|in) {said}\b{_TIME_UNIT}", rf"\1 {n}") for said, n in _HOMOPHONES),
        (r"\b(remind (?:me|us|him|her|them)) too\b", r"\1 to"),
        (rf"\b(remind (?:me|us|him|her|them)) two\b(?! (?:and a half )?{_UNITS}\b)(?= [a-z])", r"\1 to"),
        *((rf"^((?:what's|what is|how much is|calculate|work out) ){said}\b(?= {_OPERATOR}\b)", rf"\1{n}") for said, n in _HOMOPHONES),
        (
            r"\b(alarm|alarm clock|wake me|wake me up|remind me|reminder) (?:four|fore)\b(?= \d{1,2}(?::\d\d)? ?[ap]\.?m\.?(?: |$))",
            r"\1 for",
        ),
        (r"\b(an|half an) our\b", r"\1 hour"),
        *((rf"\b({_NUMBER} {_OPERATOR}) {said}\b(?= |$)", rf"\1 {n}") for said, n in _HOMOPHONES),
        (r"^(convert|change) (?:to|too) (?=[a-z]+ (?:to|into|in) [a-z])", r"\1 two "),
        (r"^((?:cancel|stop|delete|remove|kill|end) (?:the )?(?:timer|alarm|reminder|countdown|number)) (?:to|too)$", r"\1 two"),
        (r"\b(\d+(?:\.\d+)?|[a-z]+ty|hundred|thousand|one|two|three|four|five|six|seven|eight|nine|ten) gigs\b", r"\1 gigabytes"),
        (r"\b(\d+(?:\.\d+)?|[a-z]+ty|hundred|thousand|one|two|three|four|five|six|seven|eight|nine|ten) megs\b", r"\1 megabytes"),
        (r"\b(?:the )?same (timer|countdown|alarm) again\b", r"another \1"),
        # "time" heard for "timer" before a length of time: "set a time for 50 seconds" (not "a time for the meeting")
        (rf"\b((?:set|start|put on) (?:a|the|another)) time (?=for (?:\d+|[a-z]+(?:[ -][a-z]+)?){_TIME_UNIT})", r"\1 timer "),
    )
)
_AT_HOUR = rewrites(tuple((rf"\b(at|for) {said}\b{_CLOCK_REST}", rf"\1 {n}") for said, n in _HOMOPHONES))


def plain_words(text: str) -> str:
    """``text`` with the table's casual leads and number homophones rewritten (module docstring)."""
    text = rewrite(text, _SLANG)
    return rewrite(text, _AT_HOUR) if _WAKE.search(text) else text


_NUDGE = _rx(r"(?:ping|nudge|buzz|poke) me|give me a (?:nudge|shout|buzz|ping|poke)")
#: How long a nudge waits when no task is said: a count ("in 15": minutes, as a timer reads it) or a length of time.
_WAIT = _rx(
    r"in (?P<wait>\d+(?:\.\d+)?(?: and a half)?(?: (?:minutes?|mins?|hours?|hrs?|seconds?|secs?))?|"
    r"(?:an?|half an?) (?:minute|hour)|(?:a )?(?:couple|few) (?:of )?(?:minutes|hours))"
)


def match_nudge(t: str) -> Intent | None:
    """A nudge asked for at the start of ``t``, as a reminder or a timer, or ``None`` (module docstring)."""
    if not (m := _NUDGE.match(t)):
        return None
    rest = t[m.end() :]
    if re.search(r" to [a-z]", rest, re.IGNORECASE):
        return match_reminder("remind me" + rest)
    if wait := _WAIT.fullmatch(words_to_numbers(rest.strip())):
        return match_timer(f"set a timer for {wait['wait']}")
    return None
