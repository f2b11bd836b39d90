"""Rules → a llama.cpp GBNF grammar admitting exactly one valid rule line or ``none``.

A valid line is what :meth:`Rule.line` writes: the rule name; if the rule has
slots, ``": "`` and a non-empty, comma-separated (``", "``) list of
``slot=value`` in declared order, every required slot present (the colon part
is mandatory then); values: int ``-?[0-9]{1,9}``, float ``-?[0-9]{1,9}(.[0-9]{1,6})?``,
bool ``true|false``, a choices slot one of its words, a string of 1 to the
slot's ``max_length`` characters without ``,`` or a line break (not starting
with a space). No line end: the
grammar is complete after one line, so decoding stops there.

Nonterminal names are generated (``r0``, ``r0-v1`` …) because GBNF names allow
only letters, digits and ``-``; literals are escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from genx.match.rules import NONE_ANSWER, Rule, Slot, SlotType, check_rule_set

_VALUES = {
    SlotType.INT: "int-value",
    SlotType.FLOAT: "float-value",
    SlotType.BOOL: "bool-value",
}
_VALUE_RULES = [
    'int-value ::= "-"? [0-9]{1,9}',
    'float-value ::= "-"? [0-9]{1,9} ("." [0-9]{1,6})?',
    'bool-value ::= "true" | "false"',
]


def literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(s: Slot) -> str:
    if s.choices:
        return "(" + " | ".join(literal(c) for c in s.choices) + ")"
    if s.type is SlotType.STRING:
        return f"string-{s.max_length}"
    return _VALUES[s.type]


def _string_rule(n: int) -> str:
    rest = f" [^,\\r\\n]{{0,{n - 1}}}" if n > 1 else ""
    return f"string-{n} ::= [^, \\t\\r\\n]{rest}"


def _rule_lines(i: int, rule: Rule) -> list[str]:
    me = f"r{i}"
    slots = rule.slots
    name = literal(rule.name)
    if not slots:
        return [f"{me} ::= {name}"]
    out: list[str] = []
    for j, s in enumerate(slots):
        out.append(f"{me}-v{j} ::= {literal(s.name + '=')} {_value(s)}")

    def step(j: int) -> str:  # slot j, then whatever may follow it
        return f"{me}-v{j} {me}-a{j}" if j < len(slots) - 1 else f"{me}-v{j}"

    required = [s.required for s in slots]
    firsts = [step(j) for j in range(len(slots)) if not any(required[:j])]
    out.append(f"{me}-slots ::= " + " | ".join(firsts))
    for i_ in range(len(slots) - 1):
        nexts = [f'", " {step(j)}' for j in range(i_ + 1, len(slots)) if not any(required[i_ + 1 : j])]
        body = " | ".join(nexts)
        may_end = not any(required[i_ + 1 :])
        out.append(f"{me}-a{i_} ::= ({body})?" if may_end else f"{me}-a{i_} ::= {body}")
    colon = f'{name} ": " {me}-slots'
    out.insert(0, f"{me} ::= {colon}" if any(required) else f'{me} ::= {name} (": " {me}-slots)?')
    return out


def gbnf(rules: Sequence[Rule]) -> str:
    """The grammar text (root rule ``root``)."""
    checked = check_rule_set(rules)
    lines = ["root ::= " + " | ".join([*(f"r{i}" for i in range(len(checked))), literal(NONE_ANSWER)])]
    for i, r in enumerate(checked):
        lines += _rule_lines(i, r)
    used = {s.type for r in checked for s in r.slots if not s.choices}
    lines += [v for t, v in zip(_VALUES, _VALUE_RULES, strict=True) if t in used]
    lengths = sorted({s.max_length for r in checked for s in r.slots if s.type is SlotType.STRING and not s.choices})
    lines += [_string_rule(n) for n in lengths]
    return "\n".join(lines) + "\n"


__all__ = ["gbnf", "literal"]
