"""Match rules: a name, a description, typed slots and examples, checked on construction.

A rule line, the model's answer format, is ``name: slot=value, slot=value``
(slots in any order, missing ones left out) or just ``name``. Everything the
line format cannot carry is refused here, with a message naming the rule and
the field: names outside the portable charset, the reserved answer ``none``,
string values or choices with a comma or a line break, example values of the
wrong type, unknown slots or missing required ones.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from genx.errors import MatchRuleError

RULE_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
SLOT_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
NONE_ANSWER = "none"  # the answer when no rule fits; no rule may be called this
_BAD_IN_VALUE = re.compile(r"[,\r\n]")


class SlotType(enum.StrEnum):
    STRING = "string"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"


@dataclass(frozen=True, slots=True)
class Slot:
    """One value a rule extracts. ``choices`` restricts a string slot to fixed words; ``max_length``
    bounds a free string (a small model under a grammar otherwise fills it with whatever comes)."""

    name: str
    type: SlotType = SlotType.STRING
    description: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()
    max_length: int = 48

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not SLOT_NAME_RE.fullmatch(self.name):
            raise MatchRuleError("", f"slot name {self.name!r} is invalid: use a letter or '_' then letters, digits or '_'")
        try:
            object.__setattr__(self, "type", SlotType(self.type))
        except ValueError:
            kinds = ", ".join(t.value for t in SlotType)
            raise MatchRuleError("", f"slot {self.name!r} has type {self.type!r}; expected one of {kinds}") from None
        if self.description != self.description.strip() or "\n" in self.description or "\r" in self.description:
            raise MatchRuleError("", f"slot {self.name!r}: the description must be one trimmed line")
        if not isinstance(self.max_length, int) or isinstance(self.max_length, bool) or not 1 <= self.max_length <= 1000:
            raise MatchRuleError("", f"slot {self.name!r}: max_length must be an integer from 1 to 1000, got {self.max_length!r}")
        object.__setattr__(self, "choices", tuple(self.choices))
        if self.choices and self.type is not SlotType.STRING:
            raise MatchRuleError("", f"slot {self.name!r}: choices are only for string slots")
        for c in self.choices:
            if not isinstance(c, str) or not c.strip() or c != c.strip() or _BAD_IN_VALUE.search(c):
                raise MatchRuleError("", f"slot {self.name!r}: choice {c!r} must be a trimmed, non-empty word without ',' or a line break")

    def accepts(self, value: Any) -> bool:
        """True if ``value`` is a well-typed value of this slot."""
        return not self.rejects(value)

    def rejects(self, value: Any) -> str:
        """Why ``value`` is not a value of this slot (``""`` when it is)."""
        if self.type is SlotType.BOOL:
            ok = isinstance(value, bool)
        elif self.type is SlotType.INT:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.type is SlotType.FLOAT:
            ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        elif self.choices:
            return "" if value in self.choices else f"{value!r} is not one of {list(self.choices)}"
        elif not isinstance(value, str) or not value.strip() or _BAD_IN_VALUE.search(value):
            return f"{value!r} is not a non-empty string without ',' or a line break"
        elif len(value) > self.max_length:
            return f"{value!r} is longer than {self.max_length} characters"
        else:
            ok = True
        article = "an" if self.type is SlotType.INT else "a"
        return "" if ok else f"{value!r} is not {article} {self.type.value}"


def format_value(slot: Slot, value: Any) -> str:
    """How a value is written in a rule line (what the grammar admits)."""
    if slot.type is SlotType.BOOL:
        return "true" if value else "false"
    if slot.type is SlotType.FLOAT:
        text = f"{float(value):.6f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return str(value).strip()


@dataclass(frozen=True, slots=True)
class Example:
    """A user message and the values it should give (``values`` keyed by slot name)."""

    text: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip() or "\n" in self.text or "\r" in self.text:
            raise MatchRuleError("", f"example {self.text!r}: the text must be one non-empty line")
        object.__setattr__(self, "values", dict(self.values))


@dataclass(frozen=True, slots=True)
class Rule:
    """One thing the user may ask for."""

    name: str
    description: str
    slots: tuple[Slot, ...] = ()
    examples: tuple[Example, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not RULE_NAME_RE.fullmatch(self.name):
            raise MatchRuleError(str(self.name), "invalid name: use 1-64 of a-z, A-Z, 0-9, '_', '.', '-' (not starting with '.' or '-')")
        if self.name.lower() == NONE_ANSWER:
            raise MatchRuleError(self.name, f"{NONE_ANSWER!r} is the answer for 'no rule fits'; call the rule something else")
        if not self.description.strip() or "\n" in self.description or "\r" in self.description:
            raise MatchRuleError(self.name, "the description must be one non-empty line")
        object.__setattr__(self, "slots", tuple(self.slots))
        object.__setattr__(self, "examples", tuple(self.examples))
        seen: set[str] = set()
        for s in self.slots:
            if not isinstance(s, Slot):
                raise MatchRuleError(self.name, f"slots must be Slot objects, got {type(s).__name__}")
            if s.name in seen:
                raise MatchRuleError(self.name, f"slot {s.name!r} is declared twice")
            seen.add(s.name)
        for ex in self.examples:
            self._check_example(ex)

    def slot(self, name: str) -> Slot | None:
        return next((s for s in self.slots if s.name == name), None)

    def _check_example(self, ex: Example) -> None:
        if not isinstance(ex, Example):
            raise MatchRuleError(self.name, f"examples must be Example objects, got {type(ex).__name__}")
        for key, value in ex.values.items():
            slot = self.slot(key)
            if slot is None:
                raise MatchRuleError(self.name, f"example {ex.text!r} sets {key!r}, which is not a slot of this rule")
            why = slot.rejects(value)
            if why:
                raise MatchRuleError(self.name, f"example {ex.text!r}: {key}: {why}")
        for s in self.slots:
            if s.required and s.name not in ex.values:
                raise MatchRuleError(self.name, f"example {ex.text!r} leaves out the required slot {s.name!r}")

    def line(self, values: Mapping[str, Any]) -> str:
        """The rule line for ``values`` (slots in declared order)."""
        parts = [f"{s.name}={format_value(s, values[s.name])}" for s in self.slots if s.name in values]
        return f"{self.name}: {', '.join(parts)}" if parts else self.name


def check_rule_set(rules: Sequence[Rule]) -> tuple[Rule, ...]:
    """The rules as a tuple, or :class:`MatchRuleError` for an empty set, a non-rule or a duplicate name."""
    out = tuple(rules)
    if not out:
        raise MatchRuleError("", "at least one rule is required")
    seen: set[str] = set()
    for i, r in enumerate(out):
        if not isinstance(r, Rule):
            raise MatchRuleError("", f"rule[{i}] is a {type(r).__name__}, not a Rule")
        if r.name in seen:
            raise MatchRuleError(r.name, "duplicate rule name")
        seen.add(r.name)
    return out


__all__ = ["NONE_ANSWER", "RULE_NAME_RE", "SLOT_NAME_RE", "Example", "Rule", "Slot", "SlotType", "check_rule_set", "format_value"]
