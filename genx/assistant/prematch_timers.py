"""Pre-match phrasings for timers, alarms and reminders: set, list, cancel.

Durations and moments are found by the tools' own parsers
(:func:`~genx.toolbox.spans.parse_span`, :func:`~genx.toolbox.reminders.when.parse_when`):
where a phrasing leaves the split open ("remind me to buy milk at the shop at
6", "set a 5 minute pasta timer"), the split whose value reads wins. A phrasing
that names the tool outright ("set a timer for banana minutes") is claimed
even when the value does not read, so the tool's own answer explains it.
Spoken numbers become digits first ("five minute timer" → duration "5 minute").
A repeat phrase ("every weekday", "on weekends", "every Monday", "daily at 7")
is taken out of an alarm or reminder first and becomes the ``repeat`` slot
(:func:`~genx.toolbox.reminders.repeat.split_repeat`, the tool's own reader).
A comma is a pause between the parts ("set a timer, 4 minutes, for the steak";
"remind me in 20 minutes, check the oven"): claimed only when the value reads.
Second thoughts before a cancel ("actually, never mind, cancel it") are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.slot_reads import read_match, reads
from genx.toolbox.numwords import words_to_numbers
from genx.toolbox.reminders.repeat import has_repeat_words, split_repeat

__all__ = ["match_alarm", "match_cancel", "match_list", "match_reminder", "match_timer"]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _is_span(text: str) -> bool:
    return reads("duration", text)


def _is_when(text: str) -> bool:
    return reads("when", text)


_SET = (
    r"(?:(?:set|start|make|create|put on|put|run|begin|give me|get me|i need|i want|i'd like|add|program|set up|setup|"
    r"can i (?:get|have)|could i (?:get|have)|may i have)"
    r"(?: me| up| us)? )"
)
_ART = r"(?:a |an |the |my |new |one )?"
_NAMED = r"(?:for|called|named|labelled|labeled|titled)"
_QUANTITY = re.compile(r"\d|\b(?:an?|half|couple|quarter)\b|\b(?<!')(?:sec|second|min|minute|hour|hr|h|m|s)s?\b", re.IGNORECASE)
_BAD_LABEL = re.compile(
    r"^(?:new|quick|little|short|small|another|second|the|a|an|my|kitchen timer|timer|recurring|repeating)$", re.IGNORECASE
)


def _label(text: str) -> str:
    label = re.sub(r"^(?:the|my|a|an)\s+", "", text.strip(" ,"), flags=re.IGNORECASE)
    return "" if _BAD_LABEL.match(label) else label


def _split_named(rest: str, ok: Callable[[str], bool]) -> tuple[str, str] | None:
    """``rest`` as (value, label): "8 minutes for the pasta", "called pasta for 8 minutes", or just the value."""
    if ok(rest):
        return rest, ""
    for m in re.finditer(rf",? {_NAMED} ", rest, re.IGNORECASE):
        value, label = rest[: m.start()], rest[m.end() :]
        if ok(value) and len(label.split()) <= 4:
            return value, _label(label)
    first = re.fullmatch(rf"(?:{_NAMED} )?(?P<label>.+?) (?:for|at|of|to) (?P<value>.+)", rest, re.IGNORECASE)
    if first and ok(first["value"]) and len(first["label"].split()) <= 4 and not ok(first["label"]):  # "(for) the eggs for 6 minutes"
        return first["value"], _label(first["label"])
    parts = re.split(r"[?.!;,] +", rest, maxsplit=1)  # "for the eggs? 7 minutes", "for the steak, 4 minutes": a name, a value
    if len(parts) == 2:
        for value, label in (parts, parts[::-1]):
            if ok(value) and len(label.split()) <= 4 and not ok(label):
                return value, _label(re.sub(rf"^{_NAMED} ", "", label.strip(" ,"), flags=re.IGNORECASE))
    return None


def _args(key: str, value: str, label: str) -> dict[str, str]:
    return {key: value.strip(" ,"), **({"label": label} if label else {})}


# A comma after the tool's word is a pause before its value ("set a timer, 4 minutes, for the steak"): the value must read.
_TIMER_AFTER = _rx(
    rf"(?:{_SET})?{_ART}(?:(?P<label>[a-z]+) )?(?:timer|countdown|count down)(?: going| on| running)?,?"
    r"(?: (?:to go off|that goes off|going off|to ring|that rings|to end|that ends) (?:in|after)| for| from| of| to| at| on for|"
    r" going for| lasting| that lasts)? (?P<rest>.+)"
)
_TIMER_BEFORE = _rx(rf"(?:{_SET})?(?:a |an |one )?(?P<before>.+?) (?:timer|countdown)(?: on| going)?(?:,? (?:{_NAMED}) (?P<label>.+))?")
_TENS_SECOND = _rx(r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[ -]second\b(?= timer| countdown| count)")
_TIME_FOR = _rx(r"time (?P<rest>.+)")  # "time 3 minutes for my tea": the value must read
_TIMER_OTHER = [
    _rx(r"(?:time me|count ?down|count me down)(?: from| for)? (?P<duration>.+)"),
    _rx(r"(?:tell me|let me know|alert me|ping me|buzz me|notify me|remind me|beep|call me|nudge me) (?:in|after) (?P<duration>.+?)"),
    _rx(r"let me know when (?P<duration>.+?) (?:is|are|has|have) (?:up|passed|gone by|over)"),
]


def match_timer(t: str) -> Intent | None:
    t = _TENS_SECOND.sub(r"\1 seconds", t)  # "a ninety second timer" is not the 92nd timer
    n = re.sub(r"(\d)-(?=[a-z])", r"\1 ", words_to_numbers(t))  # "a 20-minute timer"
    if m := _TIMER_AFTER.fullmatch(n):
        rest = re.sub(r"^(\d+(?:\.\d+)?)$", r"\1 minutes", m["rest"].strip())  # "a timer for 5": minutes
        split = _split_named(rest, _is_span)
        label = _label(m["label"] or "")
        if split is not None:
            return Intent("set_timer", _args("duration", split[0], label or split[1]))
        if _QUANTITY.search(rest) and "," not in n and not re.search(rf" {_NAMED} ", rest):  # "banana minutes": the tool explains
            return Intent("set_timer", _args("duration", rest, label))
    if m := _TIMER_BEFORE.fullmatch(n):
        words = m["before"].split()
        for cut in range(len(words), 0, -1):  # "5 minute pasta": the longest start that is a duration
            duration, label = " ".join(words[:cut]), " ".join(words[cut:])
            if _is_span(duration) and len(label.split()) <= 2:
                return Intent("set_timer", _args("duration", duration, _label(m["label"] or label)))
    if m := read_match(_TIMER_OTHER, n, "duration"):
        return Intent("set_timer", {"duration": m["duration"].strip()})
    if (m := _TIME_FOR.fullmatch(n)) and (split := _split_named(m["rest"], _is_span)) is not None:
        return Intent("set_timer", _args("duration", split[0], split[1]))
    return None


_ALARM_AFTER = _rx(
    rf"(?:{_SET})?{_ART}(?:(?P<label>[a-z]+) )?alarm(?: clock)?,?"
    r"(?P<prep> for| at| to| on| to go off at| to ring at| set for| to wake me(?: up)? at)? (?P<rest>.+)"
)
_ALARM_BEFORE = _rx(rf"(?:{_SET})?(?:an |a )?(?P<time>.+?) alarm(?:,? (?:{_NAMED}) (?P<label>.+))?")
_WAKE = [
    _rx(
        r"(?:i (?:have|need|got|want) to|i must|i've got to|i gotta|i'll need to) (?:be up|get up|wake up|be awake)(?: at| by)? "
        r"(?P<time>.+?),? (?:so )?(?:(?:please|can you|could you) )?(?:set|make|put|give me) (?:an |my |the |me an )?alarm"
    ),
    _rx(r"(?:wake|get) me(?: up)?(?: at| by| for)? (?P<time>.+)"),
    _rx(r"(?:i (?:need|want|have|got) to )?(?:wake|get) up (?:at|by) (?P<time>.+)"),
    _rx(r"(?:i need a |give me a )?wake ?up call (?:at |for )?(?P<time>.+)"),
]


def _time(text: str) -> str:
    return re.sub(r"^(?:at|for)\s+", "", text.strip(" ,"), flags=re.IGNORECASE)


#: Repeats the tools do not keep: claimed with the words as said, so the tool's answer says which repeats it keeps.
_OTHER_REPEAT = _rx(
    r"\b(?:(?:on )?the (?:1st|first|last|\d+(?:st|nd|rd|th)) (?:day )?of every month|every (?:other|second|2nd) (?:day|week)|"
    r"every \d+ (?:minutes|hours|days|weeks)|every (?:month|year|hour|fortnight)|monthly|yearly|annually|hourly|fortnightly)\b"
)


def _repeating(match: Callable[[str], Intent | None], t: str) -> Intent | None:
    """``match`` on ``t`` without its repeat phrase ("every weekday", "on Mondays"), the repeat added as a slot."""
    if not has_repeat_words(t) and not re.search(r"ly\b|\bother\b", t):
        return None
    n = words_to_numbers(t)
    if other := _OTHER_REPEAT.search(n):  # "every month": the tool explains it keeps daily, weekday, weekend or weekly
        rest = " ".join(f"{n[: other.start()]} {n[other.end() :]}".split())
        timed = bool(re.search(r"\d|noon|midnight|morning|evening|night|tomorrow|day\b", rest))
        if (intent := match(rest if timed else f"{rest} at 9 am")) is None:  # a stand-in moment only to read the rest
            return None
        args = {**intent.arguments, "repeat": other[0]}
        return Intent(intent.tool, args if timed else {**args, "when": ""} if "when" in args else {**args, "time": ""})
    rest, repeat = split_repeat(n)
    if repeat is None or (intent := match(rest)) is None:
        return None
    return Intent(intent.tool, {**intent.arguments, "repeat": repeat.value})


def match_alarm(t: str) -> Intent | None:
    return _repeating(_match_alarm, t) or _match_alarm(t)


def _match_alarm(t: str) -> Intent | None:
    n = words_to_numbers(t)
    if m := _ALARM_AFTER.fullmatch(n):
        rest = m["rest"].strip()
        split = _split_named(rest, _is_when)
        label = _label(m["label"] or "")
        if split is not None:
            return Intent("set_alarm", _args("time", _time(split[0]), label or split[1]))
        if (m["prep"] or rest[:1].isdigit()) and re.search(r"\d|noon|midnight", rest) and not re.search(rf" {_NAMED} |,", n):
            return Intent("set_alarm", _args("time", _time(rest), label))
    if m := read_match([_ALARM_BEFORE], n, "time"):
        return Intent("set_alarm", _args("time", _time(m["time"]), _label(m["label"] or "")))
    if m := read_match(_WAKE, n, "time"):
        return Intent("set_alarm", {"time": _morning(_time(m["time"]))})
    return None


_DAYISH = r"(?:tomorrow|today|(?:on |this |next )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
_BARE_HOUR = re.compile(
    rf"(?P<pre>(?:{_DAYISH} )?(?:at )?)(?P<h>0?[1-9]|1[01])(?:[:. ](?P<m>[0-5]\d))?(?P<post>(?: {_DAYISH})?)", re.IGNORECASE
)
_SPOKEN_CLOCK = re.compile(  # "half past 7", "a quarter to 8", "20 past 6", "half 6" (British 6:30)
    rf"(?P<pre>(?:{_DAYISH} )?(?:at )?)(?P<clock>(?:a )?(?:half|quarter|[1-5]?\d)(?: minutes)? (?:past|after|to) (?:[1-9]|1[01])|"
    rf"half (?:[1-9]|1[01]))(?P<post>(?: {_DAYISH})?)",
    re.IGNORECASE,
)


def _morning(time: str) -> str:
    """A wake-up at a bare hour is in the morning: "wake me at 6:30" → "6:30 am", "at half past 7" → "half past 7 am".

    am/pm or a part of the day said: kept."""
    if re.search(r"\b(?:[ap]\.? ?m\b|morning|afternoon|evening|night|tonight|noon|midnight|o'?clock)", time, re.IGNORECASE):
        return time
    if m := _BARE_HOUR.fullmatch(time):
        return f"{m['pre']}{m['h']}:{m['m'] or '00'} am{m['post']}"
    if m := _SPOKEN_CLOCK.fullmatch(time):
        return f"{m['pre']}{m['clock']} am{m['post']}"
    return time


_REMIND_LEAD = _rx(
    r"(?:please )?(?:remind me|set (?:a |me a |up a )?reminder|create (?:a )?reminder|add (?:a )?reminder|make (?:a )?reminder|"
    r"new reminder|reminder|don'?t let me forget|do not let me forget|make sure i (?:remember|don'?t forget)|"
    r"help me remember|i need (?:to be reminded|a reminder)|can i get a reminder|give me a reminder)(?: for me)?(?P<body> .+)"
)
_WHEN_START = re.compile(
    r"^(?:at|in|on|by|for|the|tomorrow|tonight|today|this|next|noon|midnight|after|before|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\d)\b",
    re.IGNORECASE,
)
_LINK = r"(?:to|that|about|of|so i|so that i)"
_LINKS = re.compile(rf",? {_LINK} |, ", re.IGNORECASE)  # "in 20 minutes to check the oven", "in 20 minutes, check the oven"


def _moment(text: str) -> str | None:
    """``text`` as a reminder's moment ("by Friday" → "Friday", "for 3 pm" → "3 pm"), or ``None`` when it is not one."""
    if not _WHEN_START.match(text):
        return None
    for candidate in (text, re.sub(r"^(?:by|for|at|on)\s+", "", text, flags=re.IGNORECASE)):
        if _WHEN_START.match(candidate) and _is_when(candidate):
            return candidate
    return None


def _reminder_text(text: str) -> str:
    return re.sub(r"^(?:to|that|so i|so that i|for|about|of)\s+", "", text.strip(" ,"), flags=re.IGNORECASE)


_WHEN_FIRST = _rx(r"(?P<when>.+?),? (?:please |can you |could you )?remind me (?P<body>(?:to|about|that) .+)")


def match_reminder(t: str) -> Intent | None:
    return _repeating(_match_reminder, t) or _match_reminder(t)


def _match_reminder(t: str) -> Intent | None:
    n = words_to_numbers(t)
    if (first := _WHEN_FIRST.fullmatch(n)) and (when := _moment(first["when"])) is not None:  # "in 20 minutes remind me to …"
        return Intent("set_reminder", {"text": _reminder_text(first["body"]), "when": when})
    m = _REMIND_LEAD.fullmatch(n)
    if m is None:
        return None
    body = m["body"].strip()
    # "tomorrow at 9 to call the bank", "for 3 pm to call the plumber": the moment first, the longest that reads
    # ("on the 3rd of April to renew my passport" is on 3 April, not on the 3rd "of April to renew …")
    for link in reversed(list(_LINKS.finditer(body))):
        when = _moment(re.sub(r"^for\s+", "", body[: link.start()], flags=re.IGNORECASE))
        if when is not None:
            return Intent("set_reminder", {"text": _reminder_text(body[link.start() + 1 :]), "when": when})
    # "to buy milk at the shop at 6 pm": the earliest tail that reads as a moment
    words = body.split(" ")
    for i in range(1, len(words)):
        when = _moment(" ".join(words[i:]))
        text = " ".join(words[:i])
        if when is not None and _reminder_text(text):
            return Intent("set_reminder", {"text": _reminder_text(text), "when": when})
    return None


_KINDS = r"(?:timers?|alarms?|reminders?|countdowns?)"
_MINE = (
    r"(?:my |the |all |all my |all the |all of my |any |all of the )?(?:current |active |pending |running |upcoming |set |existing |open )?"
    r"(?:recurring |repeating |daily |weekly |weekday |weekend |morning )?"
)
_LIST = [
    _rx(rf"(?:list|show|show me|read|read out|read me|tell me|check|give me|display|see|view|what are|go through|review)(?: all)?(?: of)? "
        rf"{_MINE}{_KINDS}(?: and {_KINDS})*(?: (?:i have|i've set|i set|that are set|that are running|running|set|pending|left|"
        r"for today|for tomorrow|for tonight|for this week|today|tomorrow|please|now))?"),
    _rx(rf"(?:what|which|any|how many) {_KINDS}(?: and {_KINDS})? (?:do i have|are (?:set|running|there|on|active|pending|left|coming up)|"
        r"have i (?:got|set)|did i set|i have|have i|are coming up|are still running|are set for|are there for)"
        r"(?: (?:right )?now| today| tomorrow| tonight| this week| set| running)?"),
    _rx(rf"(?:do i have|are there|have i (?:got|set)|did i set|did you set|is there|got|any) (?:any |an |a )?{_KINDS}"
        r"(?: set| running| on| left| active| pending| today| tomorrow| going)?"
        r"(?: (?:for |on )?(?:today|tomorrow|tonight|this week|the morning|tomorrow morning|monday|tuesday|wednesday|thursday|"
        r"friday|saturday|sunday))?"),
    _rx(r"how (?:much time is|long is|much time|long|much longer|many (?:minutes|seconds|hours)(?: are| is)?)"
        r"(?: left| remaining| to go)? (?:on|for|in) "
        r"(?:my |the )?(?:[a-z0-9]+ )?(?:timers?|countdowns?)"),
    _rx(r"(?:what's |what is )?(?:the )?time (?:left|remaining) on (?:my |the )?(?:[a-z0-9]+ )?(?:timers?|countdowns?)"),
    _rx(r"how long (?:until|till|before) (?:my |the )(?:[a-z0-9]+ )?(?:timer|alarm|countdown)s? "
        r"(?:goes off|go off|rings?|is done|ends|finishes)"),
    _rx(rf"are any {_KINDS} (?:set|running|on|active|pending)(?: now)?"),
    _rx(r"(?:is|are) (?:my|the|an?|any) (?:[a-z0-9]+ )?(?:alarm|timer|reminder|countdown)s? (?:still )?"
        r"(?:set|on|running|going|active|ticking|counting)(?: now| still)?"),
    _rx(rf"what(?:'s| is) (?:the )?status of (?:my |the )?{_KINDS}"),
    _rx(r"what(?:'s| is) (?:pending|scheduled|running|ticking)(?: right now| now)?|what are you timing(?: right now| now)?|"
        r"(?:list|show me|tell me|show) (?:everything|all) (?:you're|you are|that you're|that is) (?:timing|counting down)"),
    _rx(r"how much (?:time is|time do i have|longer is) left|how long is left"),
    _rx(r"(?:what's|what is|how much is|how much time is) (?:left|remaining) on (?:my |the )?(?:[a-z0-9]+ )?(?:timers?|countdowns?)"),
    _rx(rf"what(?:'s| is| are) (?:on )?my {_KINDS}|(?:my |the )?{_KINDS} status|status of (?:my |the )?{_KINDS}|my {_KINDS}"),
    _rx(r"when (?:is|does) (?:my|the) (?:next )?(?:alarm|timer|reminder)(?: set for| go off| ring)?"),
    _rx(r"(?:for )?what time (?:is|are|does|do|will) (?:my|the) (?:next )?(?:[a-z0-9]+ )?(?:alarm|timer|reminder)s? "
        r"(?:set for|set to|for|going to go off|going off|go off|ring|due)"),
]  # fmt: skip
_CANCEL_VERB = (
    r"(?:cancel|stop|delete|remove|clear|turn off|switch off|shut off|kill|dismiss|get rid of|disable|scrap|drop|erase|"
    r"abort|forget|forget about|silence|never ?mind|i don'?t need|we don'?t need|no more)"
)
_WHICH = (
    rf"(?P<which>(?:(?:the|my|all|all of|of|that|this|every|both|those|these)\s)*(?:[a-z0-9:']+ ){{0,3}}?{_KINDS}"
    r"(?: \d+| number \d+| (?:called|named|for|about|at|to|on) [a-z0-9: ]+)?)"
)
#: Second thoughts said before a cancel, any number of them: "actually, never mind, cancel it", "forget it, stop the timer".
_RETHINK = (
    r"(?:(?:never ?mind|no|nope|wait|no wait|hold on|actually|oh|ok|okay|hmm|sorry|forget it|forget that|scratch that|"
    r"on second thoughts?|i changed my mind|changed my mind|i've changed my mind)[ ,]+)*"
)
_CANCEL = [
    _rx(rf"{_RETHINK}{_CANCEL_VERB} {_WHICH}(?: anymore| any more| please| now)?"),
    _rx(rf"(?:turn|switch|shut) {_WHICH} off"),
]


#: Words that only say "at present" ("are there any timers running right now", "what alarms are currently set").
_AT_PRESENT = _rx(r",? \b(?:right now|just now|at the moment|at present|currently|as of now|now)\b")


def match_list(t: str) -> Intent | None:
    bare = " ".join(_AT_PRESENT.sub(" ", t).split())
    return Intent("list_timers", {}) if any(rx.fullmatch(s) for rx in _LIST for s in (t, bare)) else None


#: "cancel it", "never mind": no item named; the tool takes the only one or the one just set, else asks which.
_CANCEL_IT = _rx(
    rf"{_RETHINK}(?:(?:cancel|delete|remove|scrap|scratch|undo|call off|drop|kill|get rid of|dismiss|silence|abort|erase|clear) "
    r"(?:it|that|this|that one|this one)"
    r"(?: please| now| actually)?|never ?mind(?: that| it)?)"
)
_CANCEL_LAST = _rx(
    r"(?:cancel|delete|remove|scrap|undo|drop|kill|stop) (?P<which>the (?:last|latest|most recent) (?:one|timer|alarm|reminder)|"
    r"the (?:one|timer|alarm|reminder|countdown) (?:i|you) just (?:set|made|added|started|created))"
)


_POSSESSIVE = re.compile(r"(?<=\w)'s\b")  # "tomorrow's alarm" is the alarm for tomorrow


def match_cancel(t: str) -> Intent | None:
    if _CANCEL_IT.fullmatch(t):
        return Intent("cancel_timer", {})
    if m := _CANCEL_LAST.fullmatch(t):
        return Intent("cancel_timer", {"which": m["which"]})
    for rx in _CANCEL:
        if m := rx.fullmatch(words_to_numbers(t)):
            return Intent("cancel_timer", {"which": _POSSESSIVE.sub("", re.sub(r"\bnumber (?=\d)", "", m["which"])).strip()})
    return None
