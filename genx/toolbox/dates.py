"""Spoken dates → calendar dates: "25 December 2026", "next Friday", "New Year", "in 3 weeks".

:func:`parse_date` reads one date relative to ``today``: ISO (2026-12-25),
day-first numeric (25/12/2026; a first number above 12 is the only way to get
month-first), "25th of December 2026", "December 25, 2026", "Dec 25" (without a
year: the next one on or after today), weekdays ("Friday" = the next one on or
after today, "next Friday" and "(this) coming Friday" strictly after, "last Friday" before; "last 6 January"
is the one before today too), "today", "tomorrow", "the day after tomorrow", "next week/month/year", "the weekend",
"the second Sunday of May",
"the last Friday of the month", a date from another ("the day after Christmas", "the Monday after Easter",
"a week on Friday", "Friday week", "the 15th of next month", "the end of next month")
(its Saturday), "the end of the month/year" ("the last day of this month"), a weekday with a day of the month ("Friday
the 13th": the next 13th that is a Friday), "<date> next year", holidays by name (:mod:`.holidays`: Christmas, New
Year, Easter, Thanksgiving, Mother's Day…; the next one on or after today, or
"Easter 2027") and a length of time from today ("in 3 weeks", "3 days ago").
An unreadable date raises :class:`~genx.errors.ToolFailure` quoting it.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from genx.errors import ToolFailure
from genx.toolbox.holidays import Holiday, easter, holiday, nth_weekday
from genx.toolbox.numwords import words_to_numbers
from genx.toolbox.spans import Span, parse_span

__all__ = ["MONTHS", "MONTH_NAMES", "WEEKDAYS", "WEEKDAY_NAMES", "easter", "holiday_name", "parse_date", "spoken_date"]

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
            ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}  # fmt: skip
WEEKDAYS = {
    name: i
    for i, names in enumerate(
        [("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"), ("thursday", "thu", "thurs"), ("friday", "fri"),
         ("saturday", "sat"), ("sunday", "sun")]
    )
    for name in names
}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s*(\d{4}))?"


#: "second" is a day of the month next to a month's name (elsewhere it may be a length: "a second").
_SECOND = re.compile(rf"\bsecond(?= (?:of )?(?:{_MONTH})\b)|\b({_MONTH}) (?:the )?second\b")


def _clean(text: str) -> str:
    t = words_to_numbers(text.lower())
    t = _SECOND.sub(lambda m: f"{m[1]} 2nd" if m[1] else "2nd", t)  # "the second of July", "July the second"
    t = t.replace("'", "").replace("’", "").replace(".", " ")
    t = re.sub(r"\b(?:what day is|what day was|what date is|what is|whats|the date|date of|day of|on|is it|will it be|it)\b", " ", t)
    t = re.sub(r"^\s*(?:the\s+)", " ", t)
    t = re.sub(r"\s+", " ", t).strip(" ?,")
    spoken_year = re.search(r"^(.+?) (19|20) (\d{2})$", t)  # "december 25th twenty twenty six" → "... 20 26"
    if spoken_year and (re.search(rf"\b(?:{_MONTH})\b", t) or holiday(re.sub(r"^(?:next|this|the|last)\s+", "", spoken_year[1]))):
        t = f"{spoken_year[1]} {spoken_year[2]}{spoken_year[3]}"
    t = re.sub(r"\bin (\d{4})$", r"\1", t)  # "the 4th of july in 1976"
    return t


def _make(year: int, month: int, day: int, src: str) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise ToolFailure(f"{src!r} is not a date on the calendar (day {day} of month {month} in {year}).") from None


def _next_occurrence(today: date, month: int, day: int, src: str) -> date:
    this_year = _make(today.year, month, day, src) if not (month == 2 and day == 29) else None
    if this_year is not None and this_year >= today:
        return this_year
    for year in range(today.year + (this_year is not None), today.year + 9):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    raise ToolFailure(f"{src!r} is not a date on the calendar.")


def _last_occurrence(today: date, month: int, day: int, src: str) -> date:
    """The last ``day`` of ``month`` before today, as "last Friday" and "last Christmas" are."""
    for year in range(today.year, today.year - 9, -1):
        try:
            found = date(year, month, day)
        except ValueError:
            continue
        if found < today:
            return found
    raise ToolFailure(f"{src!r} is not a date on the calendar.")


#: A weekday said with a day of the month: "Wednesday the 11th", "Friday the 13th" (the next such date that is that weekday).
_WEEKDAY_DATE = re.compile(
    rf"(?:on )?(?P<weekday>{_WEEKDAY}),?\s+(?P<date>(?:the\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?|[a-z]+(?:st|nd|rd|th)|first|second|third)\b.*)",
    re.IGNORECASE,
)
_LAST_DAY = re.compile(r"(?:the )?last day of (?:the|this) (month|year)", re.IGNORECASE)


def _on_weekday(weekday: int, text: str, today: date, src: str) -> date:
    """The first date ``text`` names, on or after ``today``, that falls on ``weekday`` (within its next 15 occurrences)."""
    start = today
    for _ in range(15):
        found = parse_date(text, start)
        if found < start:  # a date with its year: it does not move
            break
        if found.weekday() == weekday:
            return found
        start = found + timedelta(days=1)
    raise ToolFailure(f"{src!r} is not a date on the calendar: {text} is not on that weekday.")


def parse_date(text: str, today: date) -> date:
    """``text`` as a date relative to ``today``; :class:`ToolFailure` when it is not one."""
    src = text.strip()
    if m := _WEEKDAY_DATE.fullmatch(src):
        return _on_weekday(WEEKDAYS[m["weekday"].lower()], m["date"], today, src)
    if last := _LAST_DAY.fullmatch(src):  # "the last day of this month" is its end
        src = f"the end of the {last[1].lower()}"
    t = _clean(src)
    if t in ("", "today", "now", "this day"):
        return today
    simple = {"tomorrow": 1, "yesterday": -1, "day after tomorrow": 2, "day before yesterday": -2}
    if t in simple:
        return today + timedelta(days=simple[t])
    if t in ("end of year", "end of the year", "end of this year", "year end"):
        return date(today.year, 12, 31)
    if t in ("end of month", "end of the month", "end of this month", "month end"):
        return Span(months=1).add_to(today.replace(day=1)) - timedelta(days=1)
    if (m := re.fullmatch(r"(.+?) (next|this|last) year", t)) and not re.search(r"\b(?:week|month|weekend)\b", m[1]):
        shift = {"next": 1, "this": 0, "last": -1}[m[2]]
        return parse_date(m[1], date(today.year + shift, 1, 1))  # "the first of january next year", "christmas last year"
    if t in ("weekend", "this weekend", "the weekend", "next weekend"):  # its Saturday ("next": the one after this)
        return _weekday(today, 5, "") + timedelta(days=7 if t == "next weekend" else 0)
    if t in ("next week", "next month", "next year", "last week", "last month", "last year"):
        word, unit = t.split()
        return parse_span(f"{'-' if word == 'last' else ''}1 {unit}").add_to(today)
    if (found := _relative(t, today, src)) is not None:
        return found
    if m := re.fullmatch(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", t):
        return _make(int(m[1]), int(m[2]), int(m[3]), src)
    if m := re.fullmatch(r"(\d{1,2})[/-](\d{1,2})(?:[/-](\d{2}|\d{4}))?", t):
        a, b = int(m[1]), int(m[2])
        day, month = (b, a) if a <= 12 < b else (a, b)
        if m[3] is None:
            return _next_occurrence(today, month, day, src)
        year = int(m[3]) + (2000 if len(m[3]) == 2 else 0)
        return _make(year, month, day, src)
    if m := re.fullmatch(rf"last (?:the )?{_DAY}\s*(?:of\s+)?({_MONTH})|last ({_MONTH})\s+(?:the\s+)?{_DAY}", t):
        return _last_occurrence(today, MONTHS[m[2] or m[3]], int(m[1] or m[4]), src)
    if m := re.fullmatch(rf"{_DAY}\s*(?:of\s+)?({_MONTH}){_YEAR}", t):
        return _dated(today, int(m[1]), MONTHS[m[2]], m[3], src)
    if m := re.fullmatch(rf"({_MONTH})\s+(?:the\s+)?{_DAY}{_YEAR}", t):
        return _dated(today, int(m[2]), MONTHS[m[1]], m[3], src)
    if m := re.fullmatch(rf"({'|'.join(_NTH)}) ({_WEEKDAY}) (?:of|in) (?:(this|next|the) month|({_MONTH})){_YEAR}", t):
        return _nth_in_month(today, _NTH[m[1]], WEEKDAYS[m[2]], m[3], m[4], m[5], src)
    if m := re.fullmatch(rf"(?:(this coming|coming|this|next|last)\s+)?({_WEEKDAY})", t):
        return _weekday(today, WEEKDAYS[m[2]], "next" if m[1] in ("this coming", "coming") else m[1] or "")
    if m := re.fullmatch(rf"{_DAY}", t):  # "the 25th": this month's, else next month's
        day = int(m[1])
        candidate = today.replace(day=1)
        for _ in range(3):
            try:
                found = candidate.replace(day=day)
            except ValueError:
                found = None
            if found is not None and found >= today:
                return found
            candidate = Span(months=1).add_to(candidate)
        raise ToolFailure(f"{src!r} is not a day of the month.")
    holiday = _holiday(t, today, src)
    if holiday is not None:
        return holiday
    try:
        span = parse_span(t, what="a date")
    except ToolFailure:
        raise ToolFailure(
            f"I can't read {src!r} as a date; say it like '25 December 2026', 'next Friday', 'New Year' or 'in 3 weeks'."
        ) from None
    return span.add_to(today)


_NTH = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4, "fourth": 4, "5th": 5, "fifth": 5, "last": -1}


def _nth_in_month(today: date, n: int, weekday: int, which: str | None, month_name: str | None, year: str | None, src: str) -> date:
    """ "the second Sunday of May" (the next one from today unless a year is said), "the last Friday of the month"."""
    if month_name is None:
        month = Span(months=1 if which == "next" else 0).add_to(today.replace(day=1))
        years, number = [month.year], month.month
    else:
        number = MONTHS[month_name]
        years = [int(year)] if year else [today.year, today.year + 1]
    for y in years:
        found = nth_weekday(y, number, weekday, n)
        if found.month != number:
            raise ToolFailure(f"{src!r} is not on the calendar: that month has no such day.")
        if year or month_name is None or found >= today:
            return found
    return found


_SHIFT = {"next": 1, "this": 0, "last": -1}


def _relative(t: str, today: date, src: str) -> date | None:
    """A date said from another: "the day after Christmas", "the Monday after Easter", "a week on Friday",
    "Friday week", "a week tomorrow", "the 15th of next month", "the start of next month"; else ``None``."""
    if m := re.fullmatch(r"day (after|before) (.+)", t):
        return parse_date(m[2], today) + timedelta(days=1 if m[1] == "after" else -1)
    if m := re.fullmatch(rf"({_WEEKDAY}) (after|before) (?!next\b|this\b|last\b)(.+)", t):
        base, weekday = parse_date(m[3], today), WEEKDAYS[m[1]]
        if m[2] == "after":
            return base + timedelta(days=(weekday - base.weekday()) % 7 or 7)
        return base - timedelta(days=(base.weekday() - weekday) % 7 or 7)
    if m := re.fullmatch(rf"(?:a|1) week (?:on )?(today|tomorrow|{_WEEKDAY})|({_WEEKDAY}) week", t):
        return parse_date(m[1] or m[2], today) + timedelta(days=7)
    if m := re.fullmatch(rf"{_DAY} of (next|this|last) month|(next|this|last) month (?:the )?{_DAY}", t):
        first = Span(months=_SHIFT[m[2] or m[3]]).add_to(today.replace(day=1))
        return _make(first.year, first.month, int(m[1] or m[4]), src)
    if m := re.fullmatch(r"(start|beginning|end) of (next|this|last) month", t):
        first = Span(months=_SHIFT[m[2]]).add_to(today.replace(day=1))
        return first if m[1] != "end" else Span(months=1).add_to(first) - timedelta(days=1)
    return None


def _dated(today: date, day: int, month: int, year: str | None, src: str) -> date:
    if year is None:
        return _next_occurrence(today, month, day, src)
    return _make(int(year), month, day, src)


def _weekday(today: date, weekday: int, which: str) -> date:
    ahead = (weekday - today.weekday()) % 7
    if which == "last":
        return today - timedelta(days=(today.weekday() - weekday) % 7 or 7)
    if which == "next" and ahead == 0:
        ahead = 7
    return today + timedelta(days=ahead)


def _holiday(t: str, today: date, src: str) -> date | None:
    m = re.fullmatch(r"(?:(next|this|the|last)\s+)?([a-z0-9 ]+?)(?:\s+(\d{4}))?", t)
    found = holiday(m[2]) if m is not None else None
    if m is None or found is None:
        return None
    if m[3] is not None:
        return _in_year(found, int(m[3]), src)
    this_year = _in_year(found, today.year, src)
    if m[1] == "last":  # the one before today
        return this_year if this_year < today else _in_year(found, today.year - 1, src)
    return this_year if this_year >= today else _in_year(found, today.year + 1, src)


def _in_year(found: Holiday, year: int, src: str) -> date:
    try:
        return found.on(year)
    except (ValueError, OverflowError):
        raise ToolFailure(f"{src!r} is outside the calendar I can count on (years 1 to 9999).") from None


def holiday_name(text: str) -> str | None:
    """The display name of the holiday ``text`` names ("christmas 2027" → "Christmas Day"), else ``None``."""
    t = re.sub(r"\s+(?:\d{4}|(?:this|next) year)$", "", _clean(text))
    found = holiday(re.sub(r"^(?:next|this|the|last)\s+", "", t))
    return found.name if found is not None else None


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def spoken_date(d: date, *, weekday: bool = True) -> str:
    """``Friday, 25 December 2026`` (English names whatever the process locale)."""
    text = f"{d.day} {MONTH_NAMES[d.month - 1]} {d.year}"
    return f"{WEEKDAY_NAMES[d.weekday()]}, {text}" if weekday else text
