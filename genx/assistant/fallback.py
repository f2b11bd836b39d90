"""When the model router may be asked, and when its answer is trusted: the fallback after the pre-match.

The pre-match (:mod:`.prematch`) is right whenever it claims a message; the
grammar-constrained 135M router is not (about half its intents right on the
bench). So the model is only a fallback, guarded on both sides:

* it is asked only when the message has the words of some tool request
  (:func:`worth_asking`: "timer", "remind", "convert", a number next to an
  operator, "what day" …) and is not a question *about* something ("who
  invented the alarm clock", "how do timers work", "my alarm is silent, how do I fix it"): chit-chat and general
  questions go straight to a normal answer, with no 300 ms of routing;
* its intent is trusted only when the message has that tool's own words
  (:data:`_CUES`), the words of its spoken values (a place, a time, a label)
  are the message's own (:func:`said`: no "when=christmas" for "remind me to
  feed the fish"), and every value it gave reads with the tool's parser
  (:func:`values_read`: a duration that is a length of time, a place with a
  time zone, arithmetic that evaluates, units pint converts). A tool the
  model names for small talk, or a value it made up, routes nowhere.

:func:`model_fallback` is the whole step; the assistant generator and
``bench/tools.py`` both call it.
"""

from __future__ import annotations

import logging
import re

from genx.assistant.intents import Intent
from genx.assistant.patterns import rx as _rx
from genx.assistant.router import ModelRouter, RouteResult
from genx.assistant.slot_reads import reads, units_convert
from genx.deadline import within
from genx.toolbox.numwords import words_to_numbers

__all__ = ["ROUTER_BUDGET_S", "model_fallback", "said", "trusted", "values_read", "worth_asking"]

log = logging.getLogger(__name__)


_NUMBER = (
    r"(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|half|an?)\b)"
)
_KINDS = r"\b(?:timers?|alarms?|reminders?|countdowns?)\b"
#: The words a message asking for each tool has (the model's intent is trusted only with them).
_CUES: dict[str, tuple[re.Pattern[str], ...]] = {
    "current_time": (_rx(r"\b(?:what time is it|the time\b|time (?:in|at|over in|now)|current time|local time|time zone|o'?clock|clock)"),),
    "date_info": (
        _rx(
            r"\b(?:what day|which day|what date|what's the date|the date|how many (?:days|weeks|months)|days (?:until|till|to|since)|"
            r"weekday|day of the week|how long (?:until|till|before)|what year is it)"
        ),
    ),
    "calculate": (
        _rx(_NUMBER),
        _rx(
            r"[-+*/x×÷%^]|\b(?:times|plus|minus|divided|percent|squared|cubed|root|power|factorial|sum|product|multiply|divide|"
            r"add|subtract)\b"
        ),
    ),
    "convert_units": (_rx(_NUMBER), _rx(r"\b(?:convert|conversion|how many|how much|in|to|into)\b")),
    "set_timer": (_rx(r"\b(?:timer|countdown|count down|time me)\b"), _rx(_NUMBER)),
    "set_alarm": (_rx(r"\b(?:alarm|wake me|wake up|get me up)\b"),),
    "set_reminder": (_rx(r"\b(?:remind|reminder|don'?t let me forget)\b"),),
    "list_timers": (_rx(_KINDS),),
    "cancel_timer": (
        _rx(r"\b(?:cancel|stop|delete|remove|off|clear|kill|dismiss|rid|disable|scrap|don'?t need)\b"),
        _rx(_KINDS),
    ),
}
_ABOUT = _rx(
    r"^(?:who|why|whose|explain|describe|tell me about|tell me a)\b|^how (?:do|does|did) (?:\w+ ){1,3}work\b|"
    r"\b(?:invented|history of|meaning of|difference between)\b|\bhow (?:do|can|could|should) (?:i|we|you) (?:fix|repair|troubleshoot)\b"
)


def worth_asking(text: str) -> bool:
    """Does ``text`` have the words of some tool request, and is it not a question about something?"""
    t = " ".join(text.split())
    if not t or _ABOUT.search(t):
        return False
    return any(all(rx.search(t) for rx in cues) for cues in _CUES.values())


def values_read(intent: Intent) -> bool:
    """Does every value of ``intent`` read with its tool's parser (and do its units convert)?"""
    args = dict(intent.arguments)
    if not all(reads(k, v) for k, v in args.items()):
        return False
    return intent.tool != "convert_units" or units_convert(str(args.get("from_unit", "")), str(args.get("to_unit", "")))


#: Slots whose value is words of the message (the model may not bring its own: "remind me to feed the fish" → when=christmas).
_SAID = frozenset({"place", "date", "from_date", "when", "time", "label", "text", "which", "duration", "offset", "repeat"})
_SKIP = frozenset({"at", "in", "on", "the", "a", "an", "for", "to", "of", "my", "and"})


def _words(text: str) -> set[str]:
    t = words_to_numbers(text.lower()).replace("a.m.", "am").replace("p.m.", "pm")
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9:]+", t) if w not in _SKIP}


def said(intent: Intent, text: str) -> bool:
    """Is every word of ``intent``'s spoken values (:data:`_SAID`) in ``text``?"""
    heard = _words(text)
    return all(_words(str(v)) <= heard for k, v in intent.arguments.items() if k in _SAID)


def trusted(intent: Intent, text: str) -> bool:
    """The model's ``intent`` for ``text``: the message has that tool's words, the values are its words and every value reads."""
    cues = _CUES.get(intent.tool)
    if cues is not None and not all(rx.search(text) for rx in cues):
        return False
    return said(intent, text) and values_read(intent)


#: The most the router may take before the message is answered as a plain question (no tool). Idle, a route
#: takes 0.2-1 s (bench/tools.py "both" p95 0.25-0.5 s); a long string slot under the grammar costs ~0.3 s a
#: token, and beside another model on 2 cores a route took 9-28 s: the answer would wait for all of it.
ROUTER_BUDGET_S = 1.0


async def model_fallback(router: ModelRouter, text: str, *, budget_s: float = ROUTER_BUDGET_S) -> RouteResult:
    """The router's answer for a message the pre-match left, guarded as the module docstring says; no tool when
    the router takes longer than ``budget_s`` (its generation is cancelled)."""
    if not worth_asking(text):
        return RouteResult(None, "", 0.0)
    try:
        route = await within(router.route(text), budget_s)
    except TimeoutError:
        log.info("router: no answer for %r within %.1f s; answering it without a tool", text, budget_s)
        return RouteResult(None, "", budget_s * 1000.0)
    if route.intent is not None and not trusted(route.intent, text):
        return RouteResult(None, route.line, route.ms)
    return route
