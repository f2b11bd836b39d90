"""The deterministic pre-match: the obvious phrasings of each offline tool, recognised without a model.

:func:`prematch` returns an :class:`~genx.assistant.intents.Intent` when the
*whole* message is one of the phrasings below (after dropping politeness:
"could you please", "hey Parley,", trailing "please"), else ``None`` and the
model router (or the cloud model) decides. Slots are the words as said; the
tools read them ("ten minutes", "tomorrow at 8", "Tokyo"), so a phrasing that
is clearly a request for a tool goes to the tool even when a value is bad
("a timer for banana minutes" → the timer tool's own answer about it).
Two kinds need a check before they are claimed: arithmetic must evaluate with
the calculator's parser and contain an operator ("what is 1990" is not a
sum), and a conversion's units must both be known to pint ("how many calories
in 2 eggs" is not a conversion). Microseconds a call (no model, no I/O).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.errors import ToolFailure
from genx.toolbox.calc import evaluate, normalise_expression
from genx.toolbox.numwords import parse_number, words_to_numbers
from genx.toolbox.units import convert

__all__ = ["clean_utterance", "prematch"]

_LEAD = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|um|uh|well|oh|alright|parley|assistant)\b[ ,]*)*"
    r"(?:(?:can|could|would|will) you(?: please)?(?: tell me| let me know)? |please |i want to know |i'd like to know |"
    r"tell me |do you know |i need to know |quick question[ ,]*|just )*",
    re.IGNORECASE,
)
_TAIL = re.compile(r"(?:[ ,]+(?:please|thanks|thank you|for me|parley|ok|okay))+$", re.IGNORECASE)


def clean_utterance(text: str) -> str:
    """One line, politeness and final punctuation removed, case kept (places and labels keep their spelling)."""
    t = " ".join(text.replace("’", "'").split()).strip(" ?!.,")
    for _ in range(2):
        t = _TAIL.sub("", _LEAD.sub("", t)).strip(" ?!.,")
    return t


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_NOW = r"(?:(?: right)? now| currently| at the moment| today)?"
_TIME = [
    _rx(
        r"(?:what(?:'s| is)? )?(?:the )?(?:current |local |exact )?(?:time|hour)(?: is it| it is| is it now)?"
        + _NOW
        + r"(?: (?:in|at|for|over in|down in|out in|there in) (?P<place>[^?]+?))?"
        + _NOW
    ),
    _rx(r"how late is it(?: (?:in|at) (?P<place>.+?))?" + _NOW),
]
_DAY_WORDS = r"(?:day|date|day of the week|weekday)"
_DATE = [
    (_rx(rf"(?:what(?:'s| is)? )?(?:the |today's |todays )?{_DAY_WORDS}(?: is it| it is| is today| today is)?{_NOW}"), False),
    (_rx(r"what(?:'s| is) today(?:'s| s)? date"), False),
    (_rx(rf"what {_DAY_WORDS} (?:is it|will it be|would it be|is) (?P<date>in .+|.+ from (?:now|today))"), True),
    (_rx(rf"what(?:'s| is| will be) the {_DAY_WORDS} (?:be )?(?P<date>in .+|.+ from (?:now|today)|tomorrow|yesterday)"), True),
    (_rx(rf"what will the {_DAY_WORDS} be (?P<date>in .+|.+ from (?:now|today)|tomorrow)"), True),
    (
        _rx(
            rf"(?:what|which) {_DAY_WORDS} (?:is|was|will be|falls on|does|did|will) (?P<date>.+?)"
            r"(?: fall on| fall| be on| be| land on| land)?(?: this year| next year)?"
        ),
        True,
    ),
    (
        _rx(
            r"how many (?:days|weeks|sleeps)(?: are there| is it| are left| left| remain| remaining| to go)?"
            r" (?:until|till|til|to|before|'til) (?P<date>.+?)(?: left| to go)?"
        ),
        True,
    ),
    (_rx(r"how long (?:is it |is left |left )?(?:until|till|til|to|before) (?P<date>.+?)"), True),
    (_rx(r"how many days (?:ago was|since|has it been since|have passed since) (?P<date>.+?)"), True),
]
_VALUE = r"(?P<value>-?\d+(?:[.,]\d+)?|an?|one)"
_UNIT = r"[a-z°µ][a-z°µ./²³ -]{0,30}?"
_CONVERT = [
    _rx(rf"convert {_VALUE} ?(?P<from>{_UNIT}) (?:to|into|in|as) (?P<to>{_UNIT})"),
    _rx(rf"(?:how many|how much) (?P<to>{_UNIT}) (?:are |is )?(?:there )?in {_VALUE} ?(?P<from>{_UNIT})"),
    _rx(rf"(?:how many|how much) (?P<to>{_UNIT}) (?:is|are|make|makes|equals?) {_VALUE} ?(?P<from>{_UNIT})"),
    _rx(rf"(?:what(?:'s| is| are) )?{_VALUE} ?(?P<from>{_UNIT}) (?:in|to|into|as|converted to) (?P<to>{_UNIT})"),
    _rx(rf"{_VALUE} ?(?P<from>{_UNIT}) (?:is|are|equals?) how many (?P<to>{_UNIT})"),
]
_SET = r"(?:set|start|make|create|put on|put|run|begin|give me|i need|i want)(?: me| up)?"
_DURATION = (
    r"(?:\d+(?:\.\d+)?|an?|half an?|a quarter of an?)[ -](?:and a half |)(?:sec|second|min|minute|hour|hr)s?"
    r"(?: and \d+ (?:seconds?|minutes?))?"
)
_LABEL = r"(?P<label>(?!new |countdown |quick |another |second |the )[a-z]+)"
_TIMER = [
    _rx(rf"(?:{_SET} )?(?:a |an |the )?(?:{_LABEL} )?(?:timer|countdown) (?:for|of|to|at) (?P<duration>.+?)"
        r"(?: (?:for|called|named|labelled) (?:the |my )?(?P<label2>[a-z ]+))?"),
    _rx(rf"(?:{_SET} )?(?:a |an )?(?P<duration>{_DURATION}) (?:{_LABEL} )?(?:timer|countdown)"
        r"(?: (?:for|called|named) (?:the |my )?(?P<label2>[a-z ]+))?"),
    _rx(rf"count ?down (?:from |for )?(?P<duration>{_DURATION})"),
    _rx(rf"(?:tell me|let me know|alert me|ping me|remind me|buzz me) in (?P<duration>{_DURATION})"),
]  # fmt: skip
_ALARM = [
    _rx(rf"(?:{_SET} )?(?:an |a |my |the )?(?:{_LABEL} )?alarm (?:for|at|to|on) (?P<time>.+?)"
        r"(?: (?:called|named|labelled|for) (?:the |my )?(?P<label2>[a-z ]+))?"),
    _rx(r"wake me(?: up)? (?P<time>(?:(?:tomorrow|today|on \w+|\w+day)(?: morning)? )?(?:at|by) .+|tomorrow at .+|in .+)"),
]  # fmt: skip
_WHEN_START = r"(?:at|in|on|by|tomorrow|tonight|today|this|next|noon|midnight|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_REMIND = [
    _rx(rf"remind me (?P<when>{_WHEN_START}\b.*?) (?:to|that|about) (?P<text>.+)"),
    _rx(
        rf"(?:remind me|set a reminder|create a reminder|add a reminder|make a reminder)(?: for me)? "
        rf"(?P<text>(?:to|about|that|of) .+?) (?P<when>{_WHEN_START}\b.*)"
    ),
]
_KINDS = r"(?:timers?|alarms?|reminders?|countdowns?)"
_LIST = [
    _rx(rf"(?:list|show|show me|read|read out|tell me|check|give me)(?: all)?(?: of)? (?:my |the |all )?"
        rf"(?:current |active |pending |running )?{_KINDS}(?: and {_KINDS})*"),
    _rx(rf"(?:what|which|any) {_KINDS}(?: and {_KINDS})? "
        r"(?:do i have|are (?:set|running|there|on|active|pending)|have i set|did i set)(?: (?:right )?now)?"),
    _rx(rf"(?:do i have|are there|have i set|is there) any {_KINDS}(?: set| running| on| left| active)?"),
    _rx(r"how (?:much time is left|long is left|long left|much longer) (?:on|for) (?:my |the )?(?:\w+ )?timers?"),
    _rx(rf"what(?:'s| is| are) (?:on )?my {_KINDS}"),
]  # fmt: skip
_CANCEL = _rx(
    rf"(?:cancel|stop|delete|remove|clear|turn off|switch off|kill|dismiss|get rid of|disable|scrap)"
    rf" (?P<which>(?:(?:the|my|all|all of|of|my|that|this|every)\s)*(?:[a-z0-9]+ ){{0,3}}?{_KINDS}(?: \d+| (?:called|named|for) [a-z ]+)?)"
)


def _time(t: str) -> Intent | None:
    for rx in _TIME:
        m = rx.fullmatch(t)
        if m:
            place = (m.group("place") or "").strip()
            if re.fullmatch(r"(?:here|home|my (?:place|city|time ?zone)|the morning|the evening)", place, re.IGNORECASE):
                place = ""
            return Intent("current_time", {"place": place} if place else {})
    return None


def _date(t: str) -> Intent | None:
    for rx, has_date in _DATE:
        m = rx.fullmatch(t)
        if m:
            date = m.group("date").strip() if has_date else ""
            if date.lower() in ("it", "today"):
                date = ""
            return Intent("date_info", {"date": date} if date else {})
    return None


def _calc(t: str) -> Intent | None:
    expr = normalise_expression(t)
    if not re.search(r"\d", expr) or not re.search(r"[-+*/%]|\b(?:sqrt|cbrt|factorial|log|ln|sin|cos|tan)\b", expr):
        return None
    try:
        evaluate(expr)
    except (ToolFailure, ArithmeticError, ValueError):
        return None
    return Intent("calculate", {"expression": t})  # as said: the tool shows it in its answer ("17 times 23 = 391")


def _convert(t: str) -> Intent | None:
    low = words_to_numbers(t.lower())
    for rx in _CONVERT:
        m = rx.fullmatch(low)
        if not m:
            continue
        raw = m.group("value")
        value = 1.0 if raw in ("a", "an", "one") else parse_number(raw.replace(",", "."))
        src, dst = m.group("from").strip(), m.group("to").strip()
        if value is None or not src or not dst:
            continue
        try:
            convert(value, src, dst)
        except (ToolFailure, ValueError, ArithmeticError):
            continue
        return Intent("convert_units", {"value": value, "from_unit": src, "to_unit": dst})
    return None


def _labelled(m: re.Match[str], key: str) -> dict[str, str]:
    label = (m.groupdict().get("label") or m.groupdict().get("label2") or "").strip()
    return {key: m.group(key).strip(), **({"label": label} if label else {})}


def _timer(t: str) -> Intent | None:
    for rx in _TIMER:
        m = rx.fullmatch(t)
        if m:
            return Intent("set_timer", _labelled(m, "duration"))
    return None


def _alarm(t: str) -> Intent | None:
    for rx in _ALARM:
        m = rx.fullmatch(t)
        if m:
            return Intent("set_alarm", _labelled(m, "time"))
    return None


def _reminder(t: str) -> Intent | None:
    for rx in _REMIND:
        m = rx.fullmatch(t)
        if m:
            text = re.sub(r"^to\s+", "", m.group("text").strip(), flags=re.IGNORECASE)
            return Intent("set_reminder", {"text": text, "when": m.group("when").strip()})
    return None


def _list(t: str) -> Intent | None:
    return Intent("list_timers", {}) if any(rx.fullmatch(t) for rx in _LIST) else None


def _cancel(t: str) -> Intent | None:
    m = _CANCEL.fullmatch(t)
    return Intent("cancel_timer", {"which": m.group("which").strip()}) if m else None


#: In order: the specific phrasings first (a reminder "in 20 minutes" before a timer, a list before a cancel).
_MATCHERS: tuple[Callable[[str], Intent | None], ...] = (_reminder, _list, _cancel, _timer, _alarm, _date, _time, _convert, _calc)


def prematch(text: str) -> Intent | None:
    """The tool ``text`` clearly asks for, with its arguments, or ``None`` (module docstring)."""
    t = clean_utterance(text)
    if not t or len(t) > 200:
        return None
    for match in _MATCHERS:
        intent = match(t)
        if intent is not None:
            return intent
    return None
