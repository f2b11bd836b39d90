"""The streaming parser of ``rule: k=v, …`` answers.

:class:`LineParser` frames text fed in arbitrary pieces into lines (LF, CR or
CRLF end a line, wherever the chunk boundaries fall; blank lines are skipped)
and turns each line into a :class:`MatchResult`:

* ``name: k=v, k=v`` or ``name`` where ``name`` is a known rule → that rule with
  every declared slot present in ``args`` (``has_value`` tells which were given);
  values typed by the slot: int (base 10), float, bool (``1 t T TRUE true True``
  / ``0 f F FALSE false False``), string as written; a value that does not parse
  keeps its raw string; unknown keys and parts without ``=`` are ignored;
* any other line → a raw-text result (``rule == ""``, ``raw_text`` = the line).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from genx.match.rules import NONE_ANSWER, Rule, Slot, SlotType

_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_FLOAT_RE = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_LINE_END = re.compile(r"\r\n?|\n")


def parse_value(slot: Slot, raw: str) -> Any:
    """``raw`` typed by ``slot`` (int, float, bool), or ``raw`` itself when it does not parse."""
    if slot.type is SlotType.INT and _INT_RE.fullmatch(raw):
        return int(raw)
    if slot.type is SlotType.FLOAT and _FLOAT_RE.fullmatch(raw):
        return float(raw)
    if slot.type is SlotType.BOOL:
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
    return raw


@dataclass(frozen=True, slots=True)
class Arg:
    value: Any
    slot: Slot
    has_value: bool = False

    @property
    def ok(self) -> bool:
        """Given, and well typed (a choice of a choices slot)."""
        return self.has_value and self.slot.accepts(self.value)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One parsed line: a rule with its args, or raw text (``rule == ""``)."""

    rule: str = ""
    args: Mapping[str, Arg] = field(default_factory=dict)
    raw_text: str = ""

    @property
    def is_none(self) -> bool:
        """The model said no rule fits."""
        return not self.rule and self.raw_text.strip().lower() == NONE_ANSWER

    def values(self) -> dict[str, Any]:
        """The given values by slot name."""
        return {k: a.value for k, a in self.args.items() if a.has_value}

    def problems(self) -> list[str]:
        """Why this result is not usable as is: missing required slots, values that did not parse."""
        out: list[str] = []
        for name, a in self.args.items():
            if not a.has_value:
                if a.slot.required:
                    out.append(f"{name}: missing")
            elif why := a.slot.rejects(a.value):
                out.append(f"{name}: {why}")
        return out


def parse_line(rules: Mapping[str, Rule], line: str) -> MatchResult | None:
    """One line → a result; ``None`` for a blank line."""
    line = line.strip()
    if not line:
        return None
    name, _, kv = line.partition(":")
    rule = rules.get(name.strip())
    if rule is None:
        return MatchResult(raw_text=line)
    args: dict[str, Arg] = {s.name: Arg(None, s) for s in rule.slots}
    for part in kv.split(","):
        key, eq, raw = part.partition("=")
        key = key.strip()
        slot = rule.slot(key) if eq else None
        if slot is None:
            continue
        args[key] = Arg(parse_value(slot, raw.strip()), slot, True)
    return MatchResult(rule.name, args)


class LineParser:
    """Feed text as it streams; get results for every line completed so far."""

    __slots__ = ("_pending", "_rules")

    def __init__(self, rules: Mapping[str, Rule]) -> None:
        self._rules = rules
        self._pending = ""

    def feed(self, text: str) -> list[MatchResult]:
        # A CRLF split across pieces reads as CR then LF: two line ends around an empty line, which is skipped.
        *lines, rest = _LINE_END.split(self._pending + text)
        self._pending = rest
        return [r for r in (parse_line(self._rules, ln) for ln in lines) if r is not None]

    def close(self) -> list[MatchResult]:
        """The last line (one without a line end)."""
        rest, self._pending = self._pending, ""
        r = parse_line(self._rules, rest)
        return [] if r is None else [r]


def project(results: list[MatchResult]) -> list[dict[str, Any]]:
    """The JSON shape of results (what a UI or a log stores)."""
    return [
        {
            "rule": r.rule,
            "args": {
                name: {"value": a.value, "slot": {"type": a.slot.type.value, "description": a.slot.description}, "has_value": a.has_value}
                for name, a in r.args.items()
            },
            "raw_text": r.raw_text,
        }
        for r in results
    ]


__all__ = ["Arg", "LineParser", "MatchResult", "parse_line", "parse_value", "project"]
