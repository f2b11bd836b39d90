"""Holidays by name: fixed days (Christmas, Halloween, 4 July), computed ones (Easter, US Thanksgiving, Labor Day…).

:func:`holiday` reads a holiday's spoken name (apostrophes, "the" and a
trailing "day" as people say them: "new year's", "thanksgiving day", "the
fourth of july") and returns its display name and the date it falls on in a
year. Easter is the anonymous Gregorian computus; the US holidays that move
are the n-th (or last) weekday of their month: Thanksgiving the 4th Thursday of
November, Mother's Day the 2nd Sunday of May, Father's Day the 3rd Sunday of
June, Labor Day the 1st Monday of September, Memorial Day the last Monday of May (and MLK Day,
Presidents' Day, Columbus Day; Canadian Thanksgiving, the 2nd Monday of October); the Christian feasts that move
are days from Easter (Ash Wednesday, Pentecost, the UK's Mothering Sunday); Black Friday is the day after Thanksgiving.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["Holiday", "easter", "holiday", "nth_weekday"]


def easter(year: int) -> date:
    """Western (Gregorian) Easter Sunday: the anonymous Gregorian computus."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (Monday 0) of the month; ``n = -1`` is the last one."""
    if n < 0:
        last = date(year, month, calendar.monthrange(year, month)[1])
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))


@dataclass(frozen=True, slots=True)
class Holiday:
    """A holiday's display name and the day it falls on in a given year."""

    name: str
    on: Callable[[int], date]


def _fixed(name: str, month: int, day: int) -> Holiday:
    return Holiday(name, lambda year: date(year, month, day))


def _floating(name: str, month: int, weekday: int, n: int) -> Holiday:
    return Holiday(name, lambda year: nth_weekday(year, month, weekday, n))


def _from_easter(name: str, days: int) -> Holiday:
    return Holiday(name, lambda year: easter(year) + timedelta(days=days))


_MON, _THU, _SUN = 0, 3, 6
_TABLE: tuple[tuple[Holiday, tuple[str, ...]], ...] = (
    (_fixed("New Year's Day", 1, 1), ("new year", "new years", "new year day", "new years day")),
    (_fixed("New Year's Eve", 12, 31), ("new years eve", "new year eve", "silvester", "hogmanay")),
    (_fixed("Christmas Day", 12, 25), ("christmas", "christmas day", "xmas", "xmas day")),
    (_fixed("Christmas Eve", 12, 24), ("christmas eve", "xmas eve")),
    (_fixed("Boxing Day", 12, 26), ("boxing day",)),
    (_fixed("Valentine's Day", 2, 14), ("valentines day", "valentines", "valentine day", "saint valentines day", "st valentines day")),
    (_fixed("Halloween", 10, 31), ("halloween",)),
    (_fixed("Independence Day", 7, 4), ("independence day", "4th of july", "july 4th", "july 4", "4 july", "the 4th of july")),
    (_fixed("St Patrick's Day", 3, 17), ("st patricks day", "saint patricks day", "st patricks", "paddys day")),
    (_fixed("April Fools' Day", 4, 1), ("april fools day", "april fools")),
    (_fixed("May Day", 5, 1), ("may day",)),
    (_from_easter("Easter", 0), ("easter", "easter sunday", "easter day")),
    (_from_easter("Good Friday", -2), ("good friday",)),
    (_from_easter("Easter Monday", 1), ("easter monday",)),
    (_floating("Thanksgiving", 11, _THU, 4), ("thanksgiving", "thanksgiving day", "us thanksgiving", "american thanksgiving")),
    (_floating("Mother's Day", 5, _SUN, 2), ("mothers day", "mother day", "mom day", "moms day")),
    (_floating("Father's Day", 6, _SUN, 3), ("fathers day", "father day", "dads day")),
    (_floating("Labor Day", 9, _MON, 1), ("labor day", "labour day")),  # Canada's Labour Day is the same Monday
    (_floating("Memorial Day", 5, _MON, -1), ("memorial day",)),
    (_floating("Martin Luther King Jr. Day", 1, _MON, 3), ("martin luther king day", "martin luther king jr day", "mlk day")),
    (_floating("Presidents' Day", 2, _MON, 3), ("presidents day", "president day", "washingtons birthday")),
    (
        _floating("Canadian Thanksgiving", 10, _MON, 2),
        ("canadian thanksgiving", "thanksgiving in canada", "canada thanksgiving", "thanksgiving canada", "canadian thanksgiving day"),
    ),
    (_floating("Columbus Day", 10, _MON, 2), ("columbus day", "indigenous peoples day")),
    (Holiday("Black Friday", lambda year: nth_weekday(year, 11, _THU, 4) + timedelta(days=1)), ("black friday",)),
    (Holiday("Cyber Monday", lambda year: nth_weekday(year, 11, _THU, 4) + timedelta(days=4)), ("cyber monday",)),
    (_from_easter("Shrove Tuesday", -47), ("shrove tuesday", "pancake day", "mardi gras", "fat tuesday")),
    (_from_easter("Ash Wednesday", -46), ("ash wednesday",)),
    (_from_easter("Mothering Sunday", -21), ("mothering sunday", "uk mothers day", "british mothers day")),
    (_from_easter("Palm Sunday", -7), ("palm sunday",)),
    (_from_easter("Maundy Thursday", -3), ("maundy thursday", "holy thursday")),
    (_from_easter("Ascension Day", 39), ("ascension day", "ascension", "ascension thursday")),
    (_from_easter("Pentecost", 49), ("pentecost", "pentecost sunday", "whit sunday", "whitsun")),
    (_from_easter("Whit Monday", 50), ("whit monday", "pentecost monday")),
    (_fixed("Epiphany", 1, 6), ("epiphany", "twelfth night")),
    (_fixed("Burns Night", 1, 25), ("burns night",)),
    (_fixed("Australia Day", 1, 26), ("australia day",)),
    (_fixed("Groundhog Day", 2, 2), ("groundhog day",)),
    (_fixed("St David's Day", 3, 1), ("st davids day", "saint davids day")),
    (_fixed("International Women's Day", 3, 8), ("international womens day", "womens day")),
    (_fixed("Earth Day", 4, 22), ("earth day",)),
    (_fixed("St George's Day", 4, 23), ("st georges day", "saint georges day")),
    (_fixed("Cinco de Mayo", 5, 5), ("cinco de mayo",)),
    (_fixed("Juneteenth", 6, 19), ("juneteenth",)),
    (_fixed("Canada Day", 7, 1), ("canada day",)),
    (_fixed("Bastille Day", 7, 14), ("bastille day",)),
    (_fixed("All Saints' Day", 11, 1), ("all saints day", "all saints")),
    (_fixed("Guy Fawkes Night", 11, 5), ("guy fawkes night", "guy fawkes day", "guy fawkes", "bonfire night")),
    (_fixed("Veterans Day", 11, 11), ("veterans day", "remembrance day", "armistice day")),
    (_fixed("St Andrew's Day", 11, 30), ("st andrews day", "saint andrews day")),
)
_BY_NAME = {alias: h for h, aliases in _TABLE for alias in aliases}


def holiday(text: str) -> Holiday | None:
    """The holiday ``text`` names (lower case, apostrophes dropped, as :mod:`.dates` cleans it), or ``None``."""
    t = re.sub(r"\s+", " ", text.lower().replace("'", "").replace("’", "")).strip()
    t = re.sub(r"^(?:the )", "", t)
    return _BY_NAME.get(t)
