"""The ``current_time`` and ``date_info`` tools: what time it is anywhere, and calendar arithmetic.

Both answer in one English sentence a small model can repeat or the voice loop
can speak ("In Tokyo it's 5:35 PM on Tuesday, 3 March 2026 (Asia/Tokyo,
UTC+09:00)."). The clock and the home zone are injected (see
:mod:`genx.toolbox.clock`).
"""

from __future__ import annotations

from datetime import date, datetime, tzinfo

from genx.errors import ToolFailure
from genx.toolbox.clock import Clock, local_zone, local_zone_name, now_in, wall_clock_ms
from genx.toolbox.dates import holiday_name, parse_date, spoken_date
from genx.toolbox.places import Place, resolve_place, zone_label
from genx.toolbox.spans import parse_span
from genx.tools import FuncTool

__all__ = ["date_tool", "spoken_time", "time_tool"]


def spoken_time(when: datetime, *, hours24: bool = False) -> str:
    """``5:35 PM`` or ``17:35``."""
    if hours24:
        return f"{when.hour:02d}:{when.minute:02d}"
    hour = when.hour % 12 or 12
    return f"{hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"


def time_tool(clock: Clock = wall_clock_ms, zone: tzinfo | None = None, *, hours24: bool = False) -> FuncTool:
    """``current_time(place="")``: the time and date in a city, country or zone; the home zone when empty."""
    home = zone

    def current_time(place: str = "") -> str:
        """Get the current time and date in a city, country or time zone (the user's own when place is empty).

        Args:
            place: a city ("Tokyo", "Paris, France"), a country, a US state, a zone ("PST", "Europe/Paris", "UTC+2"); empty for here.
        """
        if place.strip() == "" or place.strip().lower() in ("here", "local", "home"):
            tz = home if home is not None else local_zone()
            name = local_zone_name() if home is None else str(getattr(home, "key", "") or "")
            where = Place("here", tz, name or "local time")
            now = now_in(clock, tz)
            return f"It's {spoken_time(now, hours24=hours24)} on {spoken_date(now.date())} ({zone_label(where, now.utcoffset())})."
        found = resolve_place(place)
        now = now_in(clock, found.zone)
        label = zone_label(found, now.utcoffset())
        return f"In {found.name} it's {spoken_time(now, hours24=hours24)} on {spoken_date(now.date())} ({label})."

    return FuncTool.from_function(current_time)


def _days(n: int) -> str:
    return "1 day" if abs(n) == 1 else f"{abs(n)} days"


def _distance(target: date, base: date, base_name: str) -> str:
    n = (target - base).days
    if n == 0:
        return "today" if base_name == "today" else f"the same day as {base_name}"
    weeks = ""
    if abs(n) >= 14:
        w, d = divmod(abs(n), 7)
        weeks = f" ({w} weeks{f' and {_days(d)}' if d else ''})"
    if base_name == "today":
        if n == 1:
            return "tomorrow"
        if n == -1:
            return "yesterday"
        return f"in {_days(n)}{weeks}" if n > 0 else f"{_days(n)} ago{weeks}"
    return f"{_days(n)}{weeks} {'after' if n > 0 else 'before'} {base_name}"


def date_tool(clock: Clock = wall_clock_ms, zone: tzinfo | None = None) -> FuncTool:
    """``date_info(date="", offset="", from_date="")``: a date's weekday, its distance from today, and date arithmetic."""
    home = zone

    def date_info(date: str = "", offset: str = "", from_date: str = "") -> str:
        """Work out a date or holiday: its weekday, how many days until or since it, or the date some time from now.

        Args:
            date: the date or holiday asked about ("25 December 2026", "next Friday", "in 3 weeks", "Easter"); empty for today.
            offset: a length of time to add to that date ("3 weeks", "10 days ago"); empty for none.
            from_date: count the days from this date instead of from today ("1 March 2026"); empty for today.
        """
        today = now_in(clock, home if home is not None else local_zone()).date()
        try:
            target = parse_date(date, today)
            if offset.strip():
                target = parse_span(offset, what="a length of time to add").add_to(target)
        except (OverflowError, ValueError):
            raise ToolFailure("That date is outside the calendar I can count on (years 1 to 9999).") from None
        base, base_name = (parse_date(from_date, today), "") if from_date.strip() else (today, "today")
        base_name = base_name or spoken_date(base)
        verb = "is" if target >= today else "was"
        name = holiday_name(date) if not offset.strip() else None
        distance = _distance(target, base, base_name)
        sentence = f"{name} {verb} on {spoken_date(target)}, {distance}" if name else f"{spoken_date(target)} {verb} {distance}"
        if base_name == "today" and target != today:
            sentence += f"; today is {spoken_date(today)}"
        return sentence + "."

    return FuncTool.from_function(date_info)
