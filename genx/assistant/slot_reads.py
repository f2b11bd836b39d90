"""Does a slot value read with its tool's own parser? One check for the pre-match and the model fallback.

:func:`reads` parses ``value`` the way the tool that takes slot ``name`` will
(a place's time zone, a length of time, a moment, a date, arithmetic, a number, a repeat)
and says whether it worked; only whether the words read matters, so dates and
moments are read against a fixed day. Slots it does not know always read.
:func:`read_match` is the pre-match's loose phrasing: a pattern whose value reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime
from zoneinfo import ZoneInfo

from genx.errors import ToolFailure
from genx.toolbox.calc import evaluate, normalise_expression
from genx.toolbox.dates import parse_date
from genx.toolbox.numwords import parse_number
from genx.toolbox.places import resolve_place
from genx.toolbox.reminders.repeat import parse_repeat
from genx.toolbox.reminders.when import parse_when
from genx.toolbox.spans import parse_span
from genx.toolbox.units import convert

__all__ = ["read_match", "reads", "units_convert"]

_NOW = datetime(2026, 3, 3, 10, 0, tzinfo=ZoneInfo("UTC"))


def _parse(name: str, value: object) -> bool:
    s = str(value)
    if name == "place":
        resolve_place(s)
    elif name == "duration":  # a length ahead: "10 minutes ago" is not one
        span = parse_span(s)
        return not span.is_zero and min(span.months, span.days, span.seconds) >= 0
    elif name in ("time", "when"):
        parse_when(s, _NOW)
    elif name in ("date", "from_date"):
        parse_date(s, _NOW.date())
    elif name == "repeat":
        return parse_repeat(s) is not None
    elif name == "offset":
        parse_span(s)
    elif name == "expression":
        evaluate(normalise_expression(s))
    elif name == "value":
        return isinstance(value, int | float) or parse_number(s) is not None
    return True


def reads(name: str, value: object) -> bool:
    """Whether ``value`` reads as slot ``name`` (module docstring)."""
    try:
        return _parse(name, value)
    except (ToolFailure, ValueError, ArithmeticError, TypeError):
        return False


def read_match(patterns: Iterable[re.Pattern[str]], text: str, group: str, ok: Callable[[str], bool] | None = None) -> re.Match[str] | None:
    """The first of ``patterns`` matching the whole ``text`` whose ``group`` reads (as slot ``group``, or by ``ok``).

    The pre-match's one shape for a loose phrasing: the words fit, and the value in them is one the tool reads.
    """
    check = ok if ok is not None else (lambda value: reads(group, value))
    for rx in patterns:
        if (m := rx.fullmatch(text)) and check(m[group].strip(" ,")):
            return m
    return None


def units_convert(from_unit: str, to_unit: str) -> bool:
    """Whether pint knows both units and converts one into the other."""
    try:
        convert(1.0, from_unit, to_unit)
    except (ToolFailure, ValueError, ArithmeticError, TypeError):
        return False
    return True
