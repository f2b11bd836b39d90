"""Pre-match phrasings that set timers, alarms and reminders (listing and cancelling them: :mod:`.prematch_manage`).

Durations and moments are found by the tools' own parsers
(:func:`~genx.toolbox.spans.parse_span`, :func:`~genx.toolbox.reminders.when.parse_when`):
where a phrasing leaves the split open ("remind me to buy milk at the shop at
6", "set a 5 minute pasta timer"), the split whose value reads wins. A phrasing
that names the tool outright ("set a timer for banana minutes") is claimed
even when the value does not read, so the tool's own answer explains it.
Spoken numbers become digits first ("five minute timer" → duration "5 minute").
A repeat phrase ("every weekday", "on weekends", "every Monday", "daily at 7")
is taken out of an alarm or reminder first and becomes the ``repeat`` slot
(:func:`~genx.toolbox.reminders.repeat.split_repeat`, the tool's own reader); "but only" before it says no more ("at 7
but only on weekdays"). A timer may be "done" ("can you do a 45 second timer") or "quick" ("a quick 15 second timer"); an alarm
"put on for" a time.
A comma is a pause between the parts ("set a timer, 4 minutes, for the steak";
"remind me in 20 minutes, check the oven"): claimed only when the value reads. A clause saying why may
follow the value with no pause ("a timer for ten minutes my nail polish needs to dry": 10 minutes). A statement about one
that is there sets nothing ("the timer is set for 5 minutes": :mod:`.prematch_status`). "remind me" said anew after the
task is no part of it ("don't let me forget to buy eggs remind me at 6"); a weekly repeat's day said after the task is
when ("remind me at 8 pm to put the bins out every tuesday": "tuesday at 8 pm").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.patterns import rx as _rx
from genx.assistant.prematch_correction import starts_with_correction
from genx.assistant.prematch_status import describes_one
from genx.assistant.slot_reads import read_match, reads
from genx.toolbox.numwords import words_to_numbers
from genx.toolbox.reminders.repeat import has_repeat_words, split_repeat

__all__ = ["match_alarm", "match_reminder", "match_timer"]


def _is_span(text: str) -> bool:
    return reads("duration", text)


def _is_when(text: str) -> bool:
    return reads("when", text)


_SET = (
    r"(?:(?:set|start|make|create|put on|put|run|begin|give me|get me|i need|i want|i'd like|add|program|set up|setup|"
    r"can i (?:get|have)|could i (?:get|have)|may i have)"
    r"(?: me| up| us)? )"
)
#: A timer may also be "done": "can you do a 45 second timer" (only before its article: "do I have a timer" asks).
_SET_TIMER = rf"(?:{_SET}|do (?=(?:a|an|one) ))"
_ART = r"(?:a |an |the |my |new |one )?"
_NAMED = r"(?:for|called|named|labelled|labeled|titled|(?:and )?(?:call|name|label) it)"  # "... and call it eggs"
_QUANTITY = re.compile(r"\d|\b(?:an?|half|couple|quarter)\b|\b(?<!')(?:sec|second|min|minute|hour|hr|h|m|s)s?\b", re.IGNORECASE)
_BAD_LABEL = re.compile(  # words that say which kind of timer or where the length goes, not what it is for
    r"^(?:new|quick|little|short|small|another|second|the|a|an|my|kitchen timer|timer|recurring|repeating|"
    r"(?:on|to|in|for|of)(?: the| a| my)?)$",
    re.IGNORECASE,
)


#: Words before a length that qualify it ("minus 5 minutes", "about 10 minutes"): not a timer's name.
_HEDGE = re.compile(
    r"(?:minus|negative|plus|about|around|roughly|approximately|exactly|like|only|just|over|under|almost|nearly|another|extra)\b",
    re.IGNORECASE,
)


def _label(text: str) -> str:
    label = re.sub(r"^(?:the|my|a|an)\s+", "", text.strip(" ,"), flags=re.IGNORECASE)
    return "" if _BAD_LABEL.match(label) else label


def _split_named(rest: str, ok: Callable[[str], bool], *, bare_label: bool = False) -> tuple[str, str] | None:
    """``rest`` as (value, label): "8 minutes for the pasta", "called pasta for 8 minutes", or just the value;
    with ``bare_label`` (after "a timer for") also a name straight before the value: "the rice 12 minutes"."""
    if ok(rest):
        return rest, ""
    for m in re.finditer(rf",? {_NAMED} ", rest, re.IGNORECASE):
        value, label = rest[: m.start()], rest[m.end() :]
        if ok(value) and len(label.split()) <= 4:
            return value, _label(label)
    first = re.fullmatch(rf"(?:{_NAMED} )?(?P<label>.+?) (?:for|at|of|to) (?P<value>.+)", rest, re.IGNORECASE)
    if first and ok(first["value"]) and len(first["label"].split()) <= 4 and not ok(first["label"]):  # "(for) the eggs for 6 minutes"
        return first["value"], _label(first["label"])
    words = rest.split()
    for cut in range(1, min(len(words), 4) if bare_label else 1):
        label, value = " ".join(words[:cut]), " ".join(words[cut:])
        if ok(value) and not _QUANTITY.search(label) and not _HEDGE.match(label) and _label(label):
            return value, _label(label)
    parts = re.split(r"[?.!;,] +", rest, maxsplit=1)  # "for the eggs? 7 minutes", "for the steak, 4 minutes": a name, a value
    if len(parts) == 2:
        for value, label in (parts, parts[::-1]):
            named = len(label.split()) <= 4 and not ok(label) and not starts_with_correction(label)  # "actually 2 timers": no name
            if ok(value) and named:
                return value, _label(re.sub(rf"^{_NAMED} ", "", label.strip(" ,"), flags=re.IGNORECASE))
    return None


#: A clause with its own subject after the value says why ("for 10 minutes my nail polish needs to dry"): not the value.
_REASON = _rx(r"(?:my|our|the|i|i'm|we|we're|it|it's|he|she|they|because|cause|so|as|since|while) [a-z']+ [a-z']+")


def _value_before_reason(rest: str, ok: Callable[[str], bool]) -> str | None:
    """The longest start of ``rest`` that reads (by ``ok``) when a clause of three words or more follows it."""
    words = rest.split()
    for cut in range(len(words) - 3, 0, -1):
        value, reason = " ".join(words[:cut]).strip(" ,"), " ".join(words[cut:])
        if _REASON.match(reason) and ok(value):
            return value
    return None


def _args(key: str, value: str, label: str) -> dict[str, str]:
    return {key: value.strip(" ,"), **({"label": label} if label else {})}


# A comma after the tool's word is a pause before its value ("set a timer, 4 minutes, for the steak"): the value must read.
_TIMER_AFTER = _rx(
    rf"(?:{_SET_TIMER})?{_ART}(?:(?P<label>[a-z]+(?: [a-z]+)?) )?(?:timer|countdown|count down)(?: going| on| running)?,?"
    r"(?P<prep> (?:to go off|that goes off|going off|to ring|that rings|to end|that ends) (?:in|after)| for| from| of| to| at| on for|"
    r" going for| lasting| that lasts)? (?P<rest>.+)"
)
_TIMER_BEFORE = _rx(
    rf"(?:{_SET_TIMER})?(?P<art>a |an |one )?(?:(?:quick|short|little|fast|brief) )?(?P<before>.+?) "
    rf"(?:timer|countdown)(?: on| going)?(?:,? (?:{_NAMED}) (?P<label>.+))?"
)
_TENS_SECOND = _rx(r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[ -]second\b(?= timer| countdown| count)")
_TIME_FOR = _rx(r"time (?P<rest>.+)")  # "time 3 minutes for my tea": the value must read
_TIMER_OTHER = [
    _rx(r"(?:time me|count ?down|count me down)(?: from| for)? (?P<duration>.+)"),
    _rx(r"(?:put|set|start) (?P<duration>.+?) on the (?:clock|timer)"),  # "put 10 minutes on the clock"
    _rx(
        r"(?:tell me|let me know|alert me|ping me|buzz me|notify me|remind me|beep|call me|nudge me|"
        r"give me a (?:shout|call|buzz|nudge|knock|bell|ping|holler|yell)) (?:in|after) (?P<duration>.+?)"
    ),
    _rx(  # "tell me " is stripped as politeness: "(tell me) when 10 minutes have passed"
        r"(?:(?:let me know|alert me|ping me|buzz me|beep|shout) )?when (?P<duration>.+?) (?:is|are|has|have) "
        r"(?:up|passed|gone by|gone|over)"
    ),
]


#: Adding time to a running timer is not setting one ("add 5 minutes to the timer"): no tool does it.
_EXTEND = _rx(r"(?:add|extend|increase)\b.* (?:to|onto|on) (?:the|my|that) (?:[a-z]+ )?timer")


def match_timer(t: str) -> Intent | None:
    if _EXTEND.fullmatch(t) or describes_one(t):  # "the timer is set for 5 minutes" says how one stands
        return None
    t = _TENS_SECOND.sub(r"\1 seconds", t)  # "a ninety second timer" is not the 92nd timer
    n = re.sub(r"(\d)-(?=[a-z])", r"\1 ", words_to_numbers(t))  # "a 20-minute timer"
    if m := _TIMER_AFTER.fullmatch(n):
        rest = re.sub(r"^(\d+(?:\.\d+)?)$", r"\1 minutes", m["rest"].strip())  # "a timer for 5": minutes
        split = _split_named(rest, _is_span, bare_label=(m["prep"] or "").endswith("for"))
        label = _label(m["label"] or "")
        if split is not None:
            return Intent("set_timer", _args("duration", split[0], label or split[1]))
        if (value := _value_before_reason(rest, _is_span)) is not None:
            return Intent("set_timer", _args("duration", value, label))
        named = m["prep"] or re.match(_SET, n, re.IGNORECASE)  # "the pasta timer was a mistake" names no length
        if named and _QUANTITY.search(rest) and "," not in n and not re.search(rf" {_NAMED} ", rest):  # "banana minutes"
            return Intent("set_timer", _args("duration", rest, label))
    if m := _TIMER_BEFORE.fullmatch(n):
        words = m["before"].split()
        for cut in range(len(words), 0, -1):  # "5 minute pasta": the longest start that is a duration
            duration, label = " ".join(words[:cut]), " ".join(words[cut:])
            if not _is_span(duration) and m["art"] in ("a ", "an "):  # "an hour timer": the article is its one
                duration = m["art"] + duration
            if _is_span(duration) and len(label.split()) <= 2:
                return Intent("set_timer", _args("duration", duration, _label(m["label"] or label)))
    if m := read_match(_TIMER_OTHER, n, "duration"):
        return Intent("set_timer", {"duration": m["duration"].strip()})
    if (m := _TIME_FOR.fullmatch(n)) and (split := _split_named(m["rest"], _is_span)) is not None:
        return Intent("set_timer", _args("duration", split[0], split[1]))
    return None


_ALARM_AFTER = _rx(
    rf"(?:{_SET})?{_ART}(?:(?P<label>[a-z]+) )?alarm(?: clock)?,?"
    r"(?P<prep> on for| on at| for| at| to| on| to go off at| to ring at| set for| to wake me(?: up)? at)? (?P<rest>.+)"
)
_ALARM_BEFORE = _rx(rf"(?:{_SET})?(?:an |a )?(?P<time>.+?) alarm(?:,? (?:{_NAMED}) (?P<label>.+))?")
_WAKE = [
    _rx(
        r"(?:i (?:have|need|got|want) to|i must|i've got to|i gotta|i'll need to) (?:be up|get up|wake up|be awake)(?: at| by)? "
        r"(?P<time>.+?),? (?:so )?(?:(?:please|can you|could you) )?(?:set|make|put|give me) (?:an |my |the |me an )?alarm"
        r"(?: for (?:then|that|that time))?"
    ),
    _rx(r"(?:wake|get) me(?: up)?(?: at| by| for)? (?P<time>.+)"),
    _rx(
        r"(?:(?:i (?:need|want|have|got) to|i must|i've got to|i gotta) (?:wake up|get up|be up|be awake)|(?:wake|get) up) "
        r"(?:at|by) (?P<time>.+)"
    ),
    _rx(r"(?:i need a |give me a )?wake ?up call (?:at |for )?(?P<time>.+)"),
    _rx(rf"(?:{_SET})?(?:a |an |my |the )?wake[ -]?up alarm (?:for |at )?(?P<time>.+)"),
    _rx(r"make sure (?:i'm|i am|i get|i'm awake|i wake|i'm out of bed) (?:up )?(?:at|by) (?P<time>.+)"),
]


def _time(text: str) -> str:
    return re.sub(r"^(?:at|for)\s+", "", text.strip(" ,"), flags=re.IGNORECASE)


#: Repeats the tools do not keep: claimed with the words as said, so the tool's answer says which repeats it keeps.
_OTHER_REPEAT = _rx(
    r"\b(?:(?:on )?the (?:1st|first|last|\d+(?:st|nd|rd|th)) (?:day )?of every month|every (?:other|second|2nd) (?:day|week)|"
    r"every \d+ (?:minutes|hours|days|weeks)|every (?:month|year|hour|fortnight)|monthly|yearly|annually|hourly|fortnightly)\b"
)


#: "but only" before a repeat narrows nothing the repeat does not say: "at 7 but only on weekdays" is "at 7 on weekdays".
_ONLY = _rx(r",? (?:but )?only(?= (?:on |every |each )?(?:week|work|school|mon|tue|wed|thu|fri|sat|sun|daily\b|days?\b))")


def _repeating(match: Callable[[str], Intent | None], t: str) -> Intent | None:
    """``match`` on ``t`` without its repeat phrase ("every weekday", "on Mondays"), the repeat added as a slot."""
    if not has_repeat_words(t) and not re.search(r"ly\b|\bother\b", t):
        return None
    n = words_to_numbers(_ONLY.sub("", t))
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
    args = {**intent.arguments, "repeat": repeat.value}
    if intent.tool == "set_reminder" and repeat.value == "weekly" and (day := _REPEAT_DAY.search(str(args["text"]))):
        args = {**args, "text": str(args["text"])[: day.start()], "when": f"{day['day']} {args['when']}"}  # "… out every tuesday"
    if intent.tool == "set_alarm" and args.get("time"):  # an alarm every weekend at a bare hour is a wake-up
        args["time"] = _morning(str(args["time"]))
    return Intent(intent.tool, args)


#: The day a weekly repeat put at the end of a reminder's task ("remind me at 8 pm to put the bins out every tuesday"): when.
_REPEAT_DAY = _rx(r" on (?P<day>(?:mon|tues|wednes|thurs|fri|satur|sun)day)$")


def match_alarm(t: str) -> Intent | None:
    return _repeating(_match_alarm, t) or _match_alarm(t)


def _match_alarm(t: str) -> Intent | None:
    if describes_one(t):  # "my alarm is set for 7"
        return None
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
    if m := read_match(_WAKE, n, "time", lambda time: reads("time", _morning(_time(time)))):  # "half 5 tomorrow": 5:30 am
        return Intent("set_alarm", {"time": _morning(_time(m["time"]))})
    return None


_DAYISH = r"(?:tomorrow|today|(?:on |this |next )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
_BARE_HOUR = re.compile(
    rf"(?P<pre>(?:{_DAYISH} )?(?:at )?)(?P<h>0?[1-9]|1[01])(?:[:. ](?P<m>[0-5]\d)| (?:oh|o) (?P<z>\d))?(?P<post>(?: {_DAYISH})?)",
    re.IGNORECASE,
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
        return f"{m['pre']}{m['h']}:{m['m'] or '0' + (m['z'] or '0')} am{m['post']}"
    if m := _SPOKEN_CLOCK.fullmatch(time):
        return f"{m['pre']}{m['clock']} am{m['post']}"
    return time


_REMIND_LEAD = _rx(
    r"(?:please )?(?:remind me|set (?:a |me a |up a )?reminder|"
    r"put (?:in )?(?:a |me a )?reminder(?: in| on| down)?|create (?:a )?reminder|add (?:a )?reminder|make (?:a )?reminder|"
    r"new reminder|reminder|don'?t let me forget|do not let me forget|make sure i (?:remember|don'?t forget)|"
    r"help me remember|i need (?:to be reminded|a reminder)|can i get a reminder|give me a reminder)(?: for me)?,?(?P<body> .+)"
)
_WHEN_START = re.compile(
    r"^(?:at|in|on|by|for|the|tomorrow|tonight|today|this|next|noon|midnight|after|before|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\d)\b",
    re.IGNORECASE,
)
_LINK = r"(?:to|that|about|of|so i|so that i)"
_LINKS = re.compile(rf",? {_LINK} |, ", re.IGNORECASE)  # "in 20 minutes to check the oven", "in 20 minutes, check the oven"


_FUNCTION_WORDS = re.compile(r"(?:(?:the|at|on|in|by|for|this|next|after|before|a|an)\s*)+", re.IGNORECASE)


def _moment(text: str) -> str | None:
    """``text`` as a reminder's moment ("by Friday" → "Friday", "for 3 pm" → "3 pm"), or ``None`` when it is not one."""
    if not _WHEN_START.match(text) or _FUNCTION_WORDS.fullmatch(text):
        return None  # "the", "in the": no moment said ("remind me what the ...")
    for candidate in (text, re.sub(r"^(?:by|for|at|on)\s+", "", text, flags=re.IGNORECASE)):
        if _WHEN_START.match(candidate) and _is_when(candidate):
            return candidate
    return None


#: "remind me" said anew after the task, before its moment: "don't let me forget to buy bread remind me at 6 pm".
_ASKED_AGAIN = _rx(r",? (?:so |and |just |please |can you |could you )?remind me(?: about it| of it| to do it)?$")


def _reminder_text(text: str) -> str:
    text = _ASKED_AGAIN.sub("", text.strip(" ,"))
    return re.sub(r"^(?:to|that|so i|so that i|for|about|of)\s+", "", text.strip(" ,"), flags=re.IGNORECASE)


#: "remind me turn off the stove" (no "to", as a learner says it) is "remind me to turn …": a task's common first verbs.
_BARE_TASK = _rx(
    r"\bremind me (?=(?:call|ring|phone|text|email|turn|switch|take|buy|get|pick|check|send|pay|feed|water|book|bring|go|"
    r"put|clean|wash|collect|charge|drink|eat|walk|lock|order|renew|finish|pack|leave|visit|ask|tell|write|start|stop|"
    r"make|cook|pray|study|do)\b)"
)
#: Nouns a bare number after which names one of them, "chapter 4", "platform 9", "room 12": the number is the task's.
_NUMBERED = _rx(r"chapter|page|lesson|unit|section|part|room|platform|gate|level|question|exercise|step|episode|table|flat|route")
_WHEN_FIRST = _rx(r"(?P<when>.+?),? (?:please |can you |could you )?remind me (?P<body>(?:to|about|that) .+)")


def match_reminder(t: str) -> Intent | None:
    return _repeating(_match_reminder, t) or _match_reminder(t)


def _match_reminder(t: str) -> Intent | None:
    n = _BARE_TASK.sub("remind me to ", words_to_numbers(t))
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
        if _NUMBERED.fullmatch(words[i - 1]) and words[i].isdigit():
            continue  # "revise chapter 4 tonight": the number is the chapter's, not an hour
        when = _moment(" ".join(words[i:]))
        text = " ".join(words[:i])
        if when is not None and _reminder_text(text) and not _FUNCTION_WORDS.fullmatch(_reminder_text(text)):  # "at": no task
            return Intent("set_reminder", {"text": _reminder_text(text), "when": when})
    return None
