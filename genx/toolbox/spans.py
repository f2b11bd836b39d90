"""Spoken lengths of time: "ten minutes", "an hour and a half", "1h30m", "3 weeks", "2 days ago".

:func:`parse_span` reads the whole text as a sum of ``<number> <unit>`` terms
(number words allowed, "a"/"an" = 1, "half an hour", "a quarter of an hour",
"and a half" after a term) with filler words ("in", "for", "from now", "and")
ignored; "ago" or a leading minus makes it negative. Anything else left over
("banana minutes") raises :class:`~genx.errors.ToolFailure` quoting the text.
Calendar units (months, years) are kept apart from fixed ones because a month
has no fixed length: :meth:`Span.add_to` adds them on the calendar.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TypeVar

from genx.errors import ToolFailure
from genx.toolbox.numwords import words_to_numbers

__all__ = ["Span", "add_months", "parse_span"]

_UNITS: dict[str, tuple[str, float]] = {}
for _names, _unit, _factor in (
    (("s", "sec", "secs", "second", "seconds"), "seconds", 1.0),
    (("m", "min", "mins", "minute", "minutes"), "seconds", 60.0),
    (("h", "hr", "hrs", "hour", "hours"), "seconds", 3600.0),
    (("d", "day", "days"), "seconds", 86400.0),
    (("w", "wk", "wks", "week", "weeks"), "seconds", 7 * 86400.0),
    (("fortnight", "fortnights"), "seconds", 14 * 86400.0),
    (("mo", "month", "months"), "months", 1.0),
    (("y", "yr", "yrs", "year", "years"), "months", 12.0),
    (("decade", "decades"), "months", 120.0),
):
    for _n in _names:
        _UNITS[_n] = (_unit, _factor)

_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_TERM = re.compile(rf"(\d+(?:\.\d+)?)\s*({_UNIT_RE})(?![a-z])")
_FILLER = re.compile(r"\b(?:in|for|from now|from today|later|after|and|a timer|timer|of|time|about|just|exactly|plus|,)\b|[,+]")

D = TypeVar("D", date, datetime)


@dataclass(frozen=True, slots=True)
class Span:
    """``months`` calendar months plus ``seconds`` fixed seconds (either may be negative)."""

    months: int = 0
    seconds: float = 0.0

    @property
    def is_zero(self) -> bool:
        return self.months == 0 and self.seconds == 0

    def add_to(self, when: D) -> D:
        """``when`` moved by this span: months on the calendar (day clamped: 31 Jan + 1 month = 28/29 Feb), then seconds."""
        moved = add_months(when, self.months)
        if isinstance(moved, datetime):
            return moved + timedelta(seconds=self.seconds)
        return moved + timedelta(days=int(self.seconds // 86400))


def add_months(when: D, months: int) -> D:
    if months == 0:
        return when
    index = when.year * 12 + (when.month - 1) + months
    year, month = divmod(index, 12)
    day = min(when.day, calendar.monthrange(year, month + 1)[1])
    return when.replace(year=year, month=month + 1, day=day)


def parse_span(text: str, *, what: str = "a length of time") -> Span:
    """``text`` as a :class:`Span`; :class:`ToolFailure` when some of it is not a length of time."""
    src = text.strip()
    t = " " + words_to_numbers(src.lower()).replace("-", " - ") + " "
    negative = False
    if re.search(r"\bago\b|\bbefore\b|\bearlier\b", t) or t.strip().startswith("-"):
        negative = True
        t = re.sub(r"\bago\b|\bbefore\b|\bearlier\b", " ", t).replace(" - ", " ", 1)
    t = re.sub(r"\bhalf an? (hour|minute|day|week|month|year)\b", r"0.5 \1", t)
    t = re.sub(r"\b(?:a )?quarter (?:of )?an? hour\b|\bquarter hour\b", "15 minutes", t)
    t = re.sub(r"\b(?:an?|one)\s+(\w+)\s+and a half\b", r"1.5 \1", t)
    t = re.sub(r"\b(\d+(?:\.\d+)?)\s+(\w+)\s+and a half\b", lambda m: f"{float(m.group(1)) + 0.5} {m.group(2)}", t)
    t = re.sub(r"\b(\d+(?:\.\d+)?) and a half\s+(\w+)", lambda m: f"{float(m.group(1)) + 0.5} {m.group(2)}", t)
    t = re.sub(r"\ban?\s+(?=[a-z])", "1 ", t)
    months = 0.0
    seconds = 0.0
    found = False
    for m in _TERM.finditer(t):
        unit, factor = _UNITS[m.group(2)]
        value = float(m.group(1)) * factor
        if unit == "months":
            months += value
        else:
            seconds += value
        found = True
    rest = _FILLER.sub(" ", _TERM.sub(" ", t)).strip()
    if not found or rest:
        raise ToolFailure(f"I can't read {src!r} as {what}; say it like '10 minutes', '1 hour 30 minutes' or '3 weeks'.")
    if months != int(months):  # "1.5 months": the half month as days
        seconds += (months - int(months)) * 30 * 86400
    sign = -1 if negative else 1
    return Span(sign * int(months), sign * seconds)
