"""Repeating alarms and reminders: daily, on weekdays, on weekends, weekly; when the next one is, and how to say it.

A repeating item is one store entry whose ``due_ms`` is its next occurrence;
after it fires the scheduler moves it to :func:`next_after` (the same wall-clock
time on the next matching day, so 6:30 stays 6:30 across a change to summer
time). ``weekly`` repeats on the weekday of its first occurrence. Cancelling
the entry ends the series.
"""

from __future__ import annotations

import enum
import re
from datetime import datetime, timedelta

from genx.errors import ToolFailure
from genx.toolbox.dates import WEEKDAY_NAMES

__all__ = ["Repeat", "first_on_or_after", "has_repeat_words", "next_after", "parse_repeat", "split_repeat", "spoken_repeat"]


class Repeat(enum.StrEnum):
    DAILY = "daily"
    WEEKDAYS = "weekdays"
    WEEKENDS = "weekends"
    WEEKLY = "weekly"


_WORDS: dict[Repeat, tuple[str, ...]] = {
    Repeat.DAILY: ("daily", "every day", "everyday", "each day", "every morning", "every evening", "every night", "day"),
    Repeat.WEEKDAYS: ("weekdays", "weekday", "every weekday", "on weekdays", "workdays", "work days", "weekday mornings"),
    Repeat.WEEKENDS: ("weekends", "weekend", "every weekend", "on weekends", "at weekends", "saturdays and sundays"),
    Repeat.WEEKLY: ("weekly", "every week", "each week", "week", "once a week"),
}
_BY_WORD = {w: r for r, words in _WORDS.items() for w in words}


def parse_repeat(text: str) -> Repeat | None:
    """``text`` as a :class:`Repeat`; ``None`` for an empty text or "never"; :class:`ToolFailure` when it is not one."""
    t = re.sub(r"\s+", " ", text.strip().lower().strip(" ."))
    if t in ("", "none", "no", "never", "once", "one time", "false"):
        return None
    found = _BY_WORD.get(t)
    if found is None:
        raise ToolFailure(f"I can't repeat {text.strip()!r}; I can repeat daily, on weekdays, on weekends or weekly.")
    return found


def _matches(day: datetime, repeat: Repeat, weekday: int) -> bool:
    if repeat is Repeat.WEEKDAYS:
        return day.weekday() < 5
    if repeat is Repeat.WEEKENDS:
        return day.weekday() >= 5
    if repeat is Repeat.WEEKLY:
        return day.weekday() == weekday
    return True


def _on(day: datetime, wall: datetime) -> datetime:
    """``wall``'s clock time on ``day``'s date, in ``wall``'s zone (wall time kept across DST)."""
    return datetime.combine(day.date(), wall.timetz().replace(tzinfo=None), wall.tzinfo)


def first_on_or_after(moment: datetime, repeat: Repeat) -> datetime:
    """The first occurrence at ``moment``'s time on or after its day (a weekday alarm asked for on a Saturday: Monday)."""
    for n in range(8):
        day = _on(moment + timedelta(days=n), moment)
        if _matches(day, repeat, moment.weekday()):
            return day
    raise AssertionError("every repeat matches some day of a week")  # pragma: no cover


def next_after(due: datetime, repeat: Repeat, after: datetime) -> datetime:
    """The occurrence following ``due`` (same wall time, next matching day) that is later than ``after``."""
    start = max(due, after.astimezone(due.tzinfo).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1))
    for n in range(1, 9):
        day = _on(start + timedelta(days=n), due)
        if day > after and day > due and _matches(day, repeat, due.weekday()):
            return day
    raise AssertionError("every repeat matches some day of a week")  # pragma: no cover


def spoken_repeat(repeat: Repeat, first: datetime, clock: str) -> str:
    """``every weekday at 6:30 AM``, ``every Monday at 8:00 AM``, ``every day at 9:00 PM``."""
    days = {
        Repeat.DAILY: "every day",
        Repeat.WEEKDAYS: "every weekday",
        Repeat.WEEKENDS: "every Saturday and Sunday",
        Repeat.WEEKLY: f"every {WEEKDAY_NAMES[first.weekday()]}",
    }[repeat]
    return f"{days} at {clock}"


_DAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_PARTS = "(?P<part>morning|afternoon|evening|night)"
_BEFORE_TIME = r"(?= at | on | in | to | alarm| reminder| wake|,|$)"  # "daily", "weekly" only by the moment or "to"
#: (phrase, repeat); a weekday (group ``day``) or a part of the day (group ``part``) in the phrase stays in the moment
_PHRASES: tuple[tuple[re.Pattern[str], Repeat], ...] = tuple(
    (re.compile("|".join(alternatives), re.IGNORECASE), r)
    for r, alternatives in (
        (
            Repeat.WEEKDAYS,
            (
                r"(?:every day|everyday|daily|each day) (?:except|but not|apart from) (?:on )?(?:the )?weekends?",
                rf"(?:every|each) (?:single )?(?:week ?day|work ?day|business day)s?(?: {_PARTS})?",
                rf"(?:on |during )?(?:week ?days|work ?days)(?: {_PARTS.replace('part', 'part2')})?",
                r"(?:from )?monday (?:to|through|thru|till|until) friday",
                r"during the week",
                rf"week ?day {_PARTS.replace('part', 'part3')}s",
                r"week ?day(?= alarm| reminder| wake)",
            ),
        ),
        (
            Repeat.WEEKENDS,
            (
                r"(?:every day|everyday|daily|each day) (?:except|but not|apart from) (?:on )?(?:week ?days|work ?days)",
                r"(?:every|each) weekend",
                r"(?:on |at |during )?(?:the )?weekends",
                r"(?:on |every )?saturdays? and sundays?",
                r"weekend(?= alarm| reminder| wake)",
            ),
        ),
        (Repeat.WEEKLY, (rf"(?:every|each) (?P<day>{_DAY_NAMES})", rf"(?:on )?(?P<day2>{_DAY_NAMES})s")),
        (Repeat.DAILY, (rf"(?:every|each) {_PARTS}", r"(?:every|each) (?:single )?day", rf"daily{_BEFORE_TIME}", r"everyday")),
        (Repeat.WEEKLY, (r"(?:every|each|once a) week", rf"weekly{_BEFORE_TIME}")),
    )
)


_CUE = re.compile(
    r"every|each|daily|weekly|week|work ?day|business|(?:day|sun|satur)s\b|saturday|monday (?:to|through|thru|till|until) friday",
    re.IGNORECASE,
)


def has_repeat_words(text: str) -> bool:
    """A fast "no": without these words ``text`` has no repeat phrase."""
    return _CUE.search(text) is not None


def split_repeat(text: str, *, anchored: bool = False) -> tuple[str, Repeat | None]:
    """``text`` without its repeat phrase, and the repeat ("every weekday at 6:30" → ("at 6:30", weekdays)).

    A weekday or part of the day in the phrase stays ("every Monday at 8" → "on monday at 8", weekly;
    "every morning at 7" → "in the morning at 7", daily); "daily" and "weekly" only before a time or at the end. ``anchored``:
    only a phrase at the start or the end counts (a reminder's text keeps "take my daily vitamins").
    """
    if not has_repeat_words(text):
        return text, None
    for rx, repeat in _PHRASES:
        for m in rx.finditer(text):
            start, end = m.span()
            if (start and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                continue  # inside a word
            if anchored and start > 0 and end < len(text):
                continue
            found = {k.rstrip("23"): v.lower() for k, v in m.groupdict().items() if v}
            keep = f"on {found['day']}" if "day" in found else f"in the {found['part']}" if "part" in found else ""
            rest = " ".join(f"{text[:start]} {keep} {text[end:]}".split()).strip(" ,")
            again, also = split_repeat(rest, anchored=anchored)  # "weekly on Tuesdays": one repeat said twice
            if also is not None and (also is repeat or Repeat.DAILY in (also, repeat) or Repeat.WEEKLY in (also, repeat)):
                return again, also if repeat in (Repeat.DAILY, Repeat.WEEKLY) else repeat
            return rest, repeat
    return text, None
