"""Spoken moments for alarms and reminders: "7:30", "7 am", "tomorrow morning", "Friday at 6 pm", "in 2 hours".

:func:`parse_when` returns the moment and whether the text named a day. A
bare clock time means its next occurrence ("7:30" at 8 o'clock is tomorrow's);
an hour from 1 to 12 without am/pm means whichever of the two comes first
("at 7" at 3 PM is 7 PM). A part of the day stands for a time: morning 9:00,
noon 12:00, afternoon 15:00, evening 19:00, tonight 20:00, night 21:00,
midnight 0:00. "In 20" is in 20 minutes, "six oh five" 6:05. "half past seven", "quarter to eight" and "(a) quarter past nine"
are read too, with am/pm after them or not ("half past seven am"; "quarter to twelve pm" is 11:45; "quarter to one" is
12:45 or 0:45, whichever comes first).
Unreadable text raises :class:`~genx.errors.ToolFailure`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from genx.errors import ToolFailure
from genx.toolbox.dates import MONTHS, parse_date
from genx.toolbox.numwords import words_to_numbers
from genx.toolbox.spans import parse_span

__all__ = ["Moment", "parse_when", "spoken_span"]

PARTS_OF_DAY = {"morning": 9, "noon": 12, "midday": 12, "lunchtime": 12, "afternoon": 15, "evening": 19, "tonight": 20, "night": 21}
_MONTH_NAMES = "|".join(MONTHS)
_LATE_PARTS = ("afternoon", "evening", "tonight", "night")

_CLOCK = re.compile(r"(?:\bat\s+)?\b(\d{1,2})(?:(?:[:.h]|\s)(\d{2}))?\s*(a\s?m|p\s?m|o\s?clock)?(?![\w:])")
_PAST_TO = re.compile(
    r"(?:\bat\s+)?(?:\ba\s+)?\b(half|quarter|\d{1,2})\s+(?:minutes?\s+)?(past|to|after)\s+(\d{1,2})\b(?:\s*([ap])\s?m\b)?"
)
_PART = re.compile(rf"\b(?:in the |at |this |tomorrow |)({'|'.join(PARTS_OF_DAY)}|midnight)\b")


@dataclass(frozen=True, slots=True)
class Moment:
    """A moment asked for, and whether the words named the day (then a past moment is an error, not tomorrow)."""

    when: datetime
    named_day: bool


def parse_when(text: str, now: datetime) -> Moment:
    """``text`` as a moment after ``now`` (an aware datetime in the user's zone)."""
    src = text.strip()
    t = words_to_numbers(src.lower()).replace("a.m.", "am").replace("p.m.", "pm").strip(" .?!")
    t = re.sub(r"\bo['’ ]?clock\b", "oclock", t)
    t = re.sub(r"\b([ap])\.m\b\.?", r"\1m", t)
    t = re.sub(r"\bhalf (\d{1,2})\b(?! (?:minutes?|hours?|past|to|after))", r"\1:30", t)  # "half six" (British) = 6:30
    t = re.sub(r"\b(\d{1,2}) o (\d)\b", r"\1:0\2", re.sub(r"\boh\b", "o", t))  # "six oh five" = 6:05
    t = re.sub(r"\b(?:from now|later)\b", "", t).strip()
    t = re.sub(r"^in (\d+(?:\.\d+)?)$", r"in \1 minutes", t)  # "in 20" is 20 minutes from now, not 8 o'clock
    if not t:
        raise ToolFailure("When? Say a time like '7:30 am', 'tomorrow morning' or 'in 20 minutes'.")
    try:
        span = parse_span(t, what="a time")
    except ToolFailure:
        span = None
    if span is not None:  # "in 20 minutes", "2 hours", "10 minutes ago" (the caller refuses the past)
        return Moment(span.add_to(now), named_day=False)
    hour, minute, ambiguous, rest = _clock_part(t, src)
    day_text = re.sub(r"\b(?:at|on|the|in|this|today)\b", " ", rest).strip(" ,")
    try:
        day = parse_date(day_text, now.date()) if day_text else now.date()
    except ToolFailure:
        raise ToolFailure(f"I can't read {src!r} as a time; say it like '7:30 am', 'tomorrow at 8' or 'in 20 minutes'.") from None
    named_day = bool(day_text)
    hours = [hour, hour + 12] if ambiguous else [hour]
    moments = [datetime.combine(day, time(h % 24, minute), now.tzinfo) for h in hours]
    upcoming = [m for m in moments if m > now]
    if upcoming:
        return Moment(upcoming[0], named_day=named_day)
    if named_day:
        return Moment(moments[-1], named_day=True)  # in the past: the caller says so
    return Moment(moments[0] + timedelta(days=1), named_day=False)


def _clock_part(t: str, src: str) -> tuple[int, int, bool, str]:
    """(hour, minute, whether the hour may be AM or PM, the rest of the text); 9:00 when no time is given."""
    part = ""
    if m := _PART.search(t):
        part = m[1]
        t = (t[: m.start()] + (" tomorrow " if "tomorrow" in m[0] else " ") + t[m.end() :]).strip()
    late = part in _LATE_PARTS
    if m := _PAST_TO.search(t):
        minutes = {"half": 30, "quarter": 15}.get(m[1]) or int(m[1])
        hour = int(m[3])
        if m[4] and 1 <= hour <= 12:  # am/pm belongs to the hour said: "quarter to 12 pm" is before noon
            hour = hour % 12 + (12 if m[4] == "p" else 0)
        hour, minute = ((hour - 1) % 24, 60 - minutes) if m[2] == "to" else (hour, minutes)
        hour = _checked(hour, minute, src)
        # "quarter to one" with no am/pm is 12:45 or 0:45, whichever comes first, like any hour said without them
        ambiguous = not part and not m[4] and 0 <= hour <= 11 and (hour > 0 or m[2] == "to")
        return _meridiem(hour, late, part), minute, ambiguous, t[: m.start()] + t[m.end() :]
    found = [m for m in _CLOCK.finditer(t) if m[2] is not None or m[3] or m[0].startswith("at") or not _is_day_number(t, m)]
    for m in sorted(found, key=lambda m: not m[0].startswith("at")):  # "december 25 2026 at 9": the "at" one
        hour, minute, suffix = int(m[1]), int(m[2] or 0), (m[3] or "").replace(" ", "")
        hour = _checked(hour, minute, src)
        rest = t[: m.start()] + t[m.end() :]
        if suffix in ("am", "pm"):
            return (hour % 12) + (12 if suffix == "pm" else 0), minute, False, rest
        padded = len(m[1]) == 2 and m[1].startswith("0")
        return _meridiem(hour, late, part), minute, not part and not padded and 1 <= hour <= 11, rest
    if part == "midnight":
        return 0, 0, False, t
    return PARTS_OF_DAY.get(part, 9), 0, False, t


def _is_day_number(t: str, m: re.Match[str]) -> bool:
    """Whether a bare number is a day of a date ("25 december", "december 25", "the 25th") rather than an hour."""
    before, after = t[: m.start()].rstrip(), t[m.end() :].lstrip()
    return bool(re.search(rf"\b(?:{_MONTH_NAMES})$", before) or re.match(rf"(?:st|nd|rd|th|of\b|{_MONTH_NAMES}|\d{{4}})", after))


def _meridiem(hour: int, late: bool, part: str) -> int:
    return hour + 12 if late and hour < 12 else hour


def _checked(hour: int, minute: int, src: str) -> int:
    if not (0 <= hour <= 24 and 0 <= minute < 60) or (hour == 24 and minute):
        raise ToolFailure(f"{src!r} is not a time of day.")
    return hour


def spoken_span(seconds: float) -> str:
    """``1 hour 30 minutes``, ``45 seconds``, ``2 days 3 hours``."""
    s = round(abs(seconds))
    parts: list[str] = []
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, s = divmod(s, size)
        if n:
            parts.append(f"{n} {name}{'s' if n != 1 else ''}")
    return " ".join(parts[:2]) or "0 seconds"
