"""Which pending items a cancel names: "all", a number, a kind, a name, a time, a repeat, or nothing ("cancel it").

:func:`choose` returns the items, or raises :class:`Unclear` (several fit and
none is named: the caller asks which, listing them) or :class:`NoMatch`
(nothing fits). Without a name ("cancel it", "never mind", an empty
``which``) the only item is meant; with several, the one set last if it was set
within :data:`RECENT_MS` (a "cancel that" right after setting it), else the
caller asks. "The last one" or "the timer I just set" always means the one set last (of that kind), "the first
timer" or "the second one" the first or second set (of that kind) among those pending;
"that reminder" the one of that kind set within :data:`RECENT_MS`, else a question. A kind alone ("the
timer") picks the only one of that kind, else asks. A time ("the 7 am alarm",
"the alarm for tomorrow", "tomorrow's alarm") matches an item due then; "daily", "weekday" or
"repeating" an item that repeats so.
"""

from __future__ import annotations

import re
from datetime import datetime

from genx.errors import ToolFailure
from genx.toolbox.numwords import words_to_numbers
from genx.toolbox.reminders.repeat import Repeat
from genx.toolbox.reminders.store import Kind, Reminder
from genx.toolbox.reminders.when import parse_when

__all__ = ["RECENT_MS", "NoMatch", "Unclear", "choose"]

RECENT_MS = 2 * 60_000


class Unclear(ToolFailure):
    """Several items fit and none is named; ``items`` are the candidates to list."""

    def __init__(self, items: list[Reminder]) -> None:
        super().__init__("Which one?")
        self.items = items


class NoMatch(ToolFailure):
    """No pending item fits the words."""


_KIND_WORDS = {
    "timer": Kind.TIMER, "timers": Kind.TIMER, "countdown": Kind.TIMER, "countdowns": Kind.TIMER,
    "alarm": Kind.ALARM, "alarms": Kind.ALARM, "reminder": Kind.REMINDER, "reminders": Kind.REMINDER,
}  # fmt: skip
_REPEAT_WORDS: dict[str, Repeat | None] = {
    "daily": Repeat.DAILY, "everyday": Repeat.DAILY, "weekday": Repeat.WEEKDAYS, "weekdays": Repeat.WEEKDAYS,
    "weekend": Repeat.WEEKENDS, "weekends": Repeat.WEEKENDS, "weekly": Repeat.WEEKLY,
    "repeating": None, "recurring": None,  # any repeat
}  # fmt: skip
_ANAPHOR = re.compile(r"(?:it|that|this|that one|this one|them|one)?")
_LATEST = re.compile(r"\b(?:last|latest|newest|most recent|(?:i|you) just (?:set|made|added|started|created))\b")
_ORDINAL = re.compile(r"(?:(\d+)(?:st|nd|rd|th)|(second)) (?:one|1|(timer|alarm|reminder|countdown)s?)")  # "one" may be read as 1
_FILLER = r"\b(?:the|my|a|an|please|cancel|stop|delete|remove|for|called|named|number|of|set|at|on|to|about|that|this|i|just)\b"


def _newest(items: list[Reminder]) -> Reminder:
    return max(items, key=lambda i: (i.created_ms, i.id))


def _recent(items: list[Reminder], now: datetime) -> list[Reminder]:
    """The one set last, when it was set within :data:`RECENT_MS`; else nothing."""
    newest = _newest(items)
    return [newest] if now.timestamp() * 1000 - newest.created_ms <= RECENT_MS else []


def choose(items: list[Reminder], which: str, now: datetime) -> list[Reminder]:
    """The pending ``items`` that ``which`` names (module docstring)."""
    w = " ".join(re.sub(r"(?<=\w)'s\b", "", words_to_numbers(which.lower())).replace("'", "").split()).strip(" .?!,")
    w = re.sub(r"^(?:the|my) ", "", w)
    if _ANAPHOR.fullmatch(w):
        if len(items) == 1:
            return items
        return _recent(items, now) or _unclear(items)
    if w in ("all", "everything", "all of them", "every one", "everything i set") or w.startswith("all "):
        kinds = {_KIND_WORDS[x] for x in w.split() if x in _KIND_WORDS}
        return [i for i in items if not kinds or i.kind in kinds]
    if m := re.fullmatch(r"(?:(timer|alarm|reminder)s? )?(?:number )?(\d+)", w):
        return [i for i in items if i.id == int(m[2]) and (m[1] is None or i.kind.value == m[1])]
    if m := _ORDINAL.fullmatch(w):  # "the first timer", "the second one": in the order they were set
        kind = _KIND_WORDS.get(m[3] or "")
        pool = sorted((i for i in items if kind is None or i.kind is kind), key=lambda i: (i.created_ms, i.id))
        n = 2 if m[2] == "second" else int(m[1])
        if not 1 <= n <= len(pool):
            raise NoMatch(f"There is no {w} to cancel.")
        return [pool[n - 1]]
    anaphoric = re.search(r"\b(?:it|that|this)\b", w) is not None  # "that reminder": the one just set
    latest = _LATEST.search(w) is not None
    words = re.sub(_FILLER, " ", _LATEST.sub(" ", w)).split()
    kind = next((_KIND_WORDS[x] for x in words if x in _KIND_WORDS), None)
    pool = [i for i in items if kind is None or i.kind is kind]
    repeats = [x for x in words if x in _REPEAT_WORDS]
    if repeats:
        wanted = _REPEAT_WORDS[repeats[0]]
        pool = [i for i in pool if i.repeat and (wanted is None or i.repeat == wanted.value)]
    rest = [x for x in words if x not in _KIND_WORDS and x not in _REPEAT_WORDS and x != "one"]
    if rest:
        named = [i for i in pool if all(x in i.label.lower() for x in rest)]
        pool = named if named else _due_at(pool, " ".join(rest), now)
    if not pool:
        raise NoMatch(f"I found nothing matching {which.strip()!r} to cancel.")
    if latest:
        return [_newest(pool)]
    if len(pool) > 1 and not rest and not repeats:
        return (_recent(pool, now) if anaphoric else []) or _unclear(pool)  # "the timer" with several: ask which
    return pool


def _unclear(items: list[Reminder]) -> list[Reminder]:
    raise Unclear(items)


def _due_at(items: list[Reminder], text: str, now: datetime) -> list[Reminder]:
    """Items due at the moment ``text`` names: its clock time when it has one ("7 am"), else its day ("tomorrow")."""
    try:
        moment = parse_when(text, now)
    except ToolFailure:
        return []
    has_clock = bool(re.search(r"\d|noon|midnight|morning|afternoon|evening|night", text))
    out = []
    for i in items:
        due = datetime.fromtimestamp(i.due_ms / 1000, now.tzinfo)
        same_clock = (due.hour, due.minute) == (moment.when.hour, moment.when.minute)
        same_day = due.date() == moment.when.date()
        if (has_clock and same_clock and (same_day or not moment.named_day or i.repeat)) or (not has_clock and same_day):
            out.append(i)
    return out
