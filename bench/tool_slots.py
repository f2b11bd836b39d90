"""Scoring a routed intent against the expected one: slots compared by meaning, not spelling.

Used by ``bench/tools.py`` and the router integration test. Each slot is
compared the way its tool reads it, so "10 minutes" = "ten minutes", "km" =
"kilometers", "17 * 23" = "17 times 23" (the expected value of an expression is
the number it should come to, written by hand in the data set), "Tokyo" =
"tokyo"; a ``date_info`` call with an offset by the date it works out
({"date": "100 days ago"} = {"offset": "100 days ago"}). The tools' own parsers normalise both sides; the expected values come
from the data files, never from the code under test.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from genx.errors import ToolFailure
from genx.toolbox.calc import evaluate, normalise_expression
from genx.toolbox.dates import parse_date
from genx.toolbox.places import resolve_place
from genx.toolbox.reminders.repeat import parse_repeat
from genx.toolbox.reminders.when import parse_when
from genx.toolbox.spans import parse_span
from genx.toolbox.units import convert

DATA = Path(__file__).parent / "data"
NOW = datetime(2026, 3, 3, 10, 0, tzinfo=ZoneInfo("Europe/Paris"))  # a fixed "now" for dates, spans and moments
_FILLER = {"the", "my", "a", "an", "to", "about", "of", "for", "called", "named", "that"}
_KINDS = {"timer", "timers", "alarm", "alarms", "reminder", "reminders"}


@dataclass(frozen=True, slots=True)
class Case:
    text: str
    intent: str  # a tool name, or "none"
    slots: dict[str, Any]


def load(name: str) -> list[Case]:
    out = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(Case(d["text"], d["intent"], dict(d.get("slots", {}))))
    return out


def _words(text: str) -> str:
    words = [w for w in re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split() if w not in _FILLER]
    rest = [w for w in words if w not in _KINDS]
    return " ".join(rest if rest else words)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _parsed(fn: Any, got: Any, want: Any) -> bool:
    try:
        return _same(fn(str(got)), fn(str(want)))
    except (ToolFailure, ValueError, OverflowError):
        return _words(str(got)) == _words(str(want))


def slot_ok(name: str, got: Any, want: Any) -> bool:
    """Does the routed value ``got`` mean the expected ``want`` for slot ``name``?"""
    if name == "expression":
        try:
            return math.isclose(float(evaluate(normalise_expression(str(got)))), float(want), rel_tol=1e-9)
        except (ToolFailure, ValueError, ArithmeticError, TypeError):
            return False
    if name == "value":
        try:
            return math.isclose(float(got), float(want))
        except (TypeError, ValueError):
            return False
    if name in ("from_unit", "to_unit"):
        try:
            return math.isclose(convert(1000.0, str(got), str(want))[0], 1000.0, rel_tol=1e-6)
        except (ToolFailure, ValueError):  # currencies (no rates offline): the same name, singular or plural
            return _words(str(got)).rstrip("s") == _words(str(want)).rstrip("s")
    if name == "place":
        return _parsed(lambda s: resolve_place(s).zone, got, want)
    if name in ("date", "from_date"):
        return _parsed(lambda s: parse_date(s, NOW.date()), got, want)
    if name == "offset":
        return _parsed(lambda s: parse_span(s).add_to(NOW), got, want)
    if name == "duration":
        return _parsed(lambda s: parse_span(s).add_to(NOW), got, want)
    if name in ("time", "when"):
        return _parsed(lambda s: parse_when(s, NOW).when, got, want)
    if name == "repeat":
        return _parsed(parse_repeat, got, want)
    return _words(str(got)) == _words(str(want))


def _target(slots: dict[str, Any]) -> Any:
    """The date a ``date_info`` call works out: its date moved by its offset."""
    day = parse_date(str(slots.get("date") or ""), NOW.date())
    offset = str(slots.get("offset") or "").strip()
    return parse_span(offset).add_to(day) if offset else day


def _same_date_call(given: dict[str, Any], want: dict[str, Any]) -> bool:
    """``date_info`` with an offset: the same date either way ({"date": "100 days ago"} = {"offset": "100 days ago"})."""
    try:
        same = _target(given) == _target(want)
    except (ToolFailure, ValueError, OverflowError):
        return False
    since = ("from_date" in given, "from_date" in want)
    return same and (since == (False, False) or (all(since) and slot_ok("from_date", given["from_date"], want["from_date"])))


def slots_ok(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """Every expected slot right, and no other slot given a value (a date and an offset: by the date they make)."""
    given = {k: v for k, v in got.items() if not (isinstance(v, str) and not v.strip())}
    if ("offset" in given or "offset" in want) and set(given) | set(want) <= {"date", "offset", "from_date"}:
        return _same_date_call(given, want)
    if set(given) - set(want):
        return False
    return all(k in given and slot_ok(k, given[k], v) for k, v in want.items())


__all__ = ["DATA", "NOW", "Case", "load", "slot_ok", "slots_ok"]
