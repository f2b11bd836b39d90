"""Spoken lengths of time: "ten minutes", "an hour and a half", "1h30m", "3 weeks", "2 days ago".

:func:`parse_span` reads the whole text as a sum of ``<number> <unit>`` terms
(number words allowed, "a"/"an" = 1, "half an hour", "a half hour", "a quarter of an hour",
"three quarters of an hour", "and a half" after a term, a last bare number in the next smaller
unit: "1 hour 20", "1h30") with filler words ("in", "for", "from now", "and")
ignored; "ago" or a leading minus makes it negative. Anything else left over
("banana minutes") raises :class:`~genx.errors.ToolFailure` quoting the text.
Three parts are kept apart because they add differently (:meth:`Span.add_to`):
months and years on the calendar (31 January + 1 month = 28 February), days and
weeks on the wall clock (tomorrow at the same time, even across a change to
summer time), hours, minutes and seconds as elapsed time (a 1-hour timer rings
after 3600 seconds whatever the clocks do).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar

from genx.errors import ToolFailure
from genx.toolbox.numwords import words_to_numbers

__all__ = ["Span", "add_months", "parse_span"]

_UNITS: dict[str, tuple[str, float]] = {}
for _names, _unit, _factor in (
    (("s", "sec", "secs", "second", "seconds"), "seconds", 1.0),
    (("m", "min", "mins", "minute", "minutes"), "seconds", 60.0),
    (("h", "hr", "hrs", "hour", "hours"), "seconds", 3600.0),
    (("d", "day", "days"), "days", 1.0),
    (("w", "wk", "wks", "week", "weeks"), "days", 7.0),
    (("fortnight", "fortnights"), "days", 14.0),
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
    """``months`` calendar months, ``days`` wall-clock days and ``seconds`` elapsed seconds (each may be negative)."""

    months: int = 0
    days: float = 0.0
    seconds: float = 0.0

    @property
    def is_zero(self) -> bool:
        return self.months == 0 and self.days == 0 and self.seconds == 0

    def add_to(self, when: D) -> D:
        """``when`` moved by this span: months (day clamped), then days on the wall clock, then elapsed seconds."""
        moved = add_months(when, self.months)
        if isinstance(moved, datetime):
            moved = moved + timedelta(days=self.days)
            if moved.tzinfo is None:
                return moved + timedelta(seconds=self.seconds)
            return (moved.astimezone(UTC) + timedelta(seconds=self.seconds)).astimezone(moved.tzinfo)
        return moved + timedelta(days=int(self.days + self.seconds // 86400))


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
    t = " " + re.sub(r"(?<=s)'(?=\s|$)", "", words_to_numbers(src.lower())).replace("-", " - ") + " "  # "in 3 hours' time"
    negative = False
    if re.search(r"\bago\b|\bbefore\b|\bearlier\b", t) or t.strip().startswith("-"):
        negative = True
        t = re.sub(r"\bago\b|\bbefore\b|\bearlier\b", " ", t).replace(" - ", " ", 1)
    t = re.sub(r"\b(?:a )?couple (?:of )?", "2 ", t)
    t = re.sub(r"\b(?:(?:a )?half an?|a half|half) (hour|minute|day|week|month|year)\b", r"0.5 \1", t)
    t = re.sub(r"\b(?:a )?quarter (?:of )?an? hour\b|\bquarter hour\b", "15 minutes", t)
    t = re.sub(r"\b(\d) quarters (?:of )?an? hour\b", lambda m: f"{int(m[1]) * 15} minutes", t)
    t = re.sub(r"\b(?:an?|one)\s+(\w+)\s+and a half\b", r"1.5 \1", t)
    t = re.sub(r"\b(\d+(?:\.\d+)?)\s+(\w+)\s+and a half\b", lambda m: f"{float(m.group(1)) + 0.5} {m.group(2)}", t)
    t = re.sub(r"\b(\d+(?:\.\d+)?) and a half\s+(\w+)", lambda m: f"{float(m.group(1)) + 0.5} {m.group(2)}", t)
    t = re.sub(r"\ban?\s+(?=[a-z])", "1 ", t)
    # a last bare number counts in the next smaller unit: "1 hour 20" is 1 hour 20 minutes, "2 minutes 30" 2 minutes 30 seconds
    t = re.sub(r"\b(\d+\s*(?:h|hrs?|hours?)) ?(?:and )?(\d{1,2}) *$", r"\1 \2 minutes ", t)
    t = re.sub(r"\b(\d+\s*(?:m|mins?|minutes?)) ?(?:and )?(\d{1,2}) *$", r"\1 \2 seconds ", t)
    totals = {"months": 0.0, "days": 0.0, "seconds": 0.0}
    found = False
    for m in _TERM.finditer(t):
        unit, factor = _UNITS[m.group(2)]
        totals[unit] += float(m.group(1)) * factor
        found = True
    rest = _FILLER.sub(" ", _TERM.sub(" ", t)).strip()
    if not found or rest:
        raise ToolFailure(f"I can't read {src!r} as {what}; say it like '10 minutes', '1 hour 30 minutes' or '3 weeks'.")
    months = totals["months"]
    days = totals["days"] + (months - int(months)) * 30  # "1.5 months": the half month as days
    sign = -1 if negative else 1
    return Span(sign * int(months), sign * days, sign * totals["seconds"])
