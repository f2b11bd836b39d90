"""Intents: a tool name with its arguments, and the match rules the model router uses, built from the tool schemas.

An :class:`Intent` is what a router decided: run ``tool`` with ``arguments``
(a dict that :meth:`~genx.tools.FuncTool.validate` accepts), or — when
:func:`intent_call` is given one — the :class:`~genx.chunk.FuncCall` for it.

:func:`rules_from_tools` turns each :class:`~genx.tools.FuncTool`'s JSON schema
into a :class:`~genx.match.Rule`: the rule is the tool's name, its description
the first sentence of the tool's, one slot per property (``string`` →
string slot bounded to :data:`STRING_SLOT_CHARS`, ``number`` or a number/string
union → float, ``integer`` → int, ``boolean`` → bool), required as the schema
says. The few-shot examples (:data:`ROUTER_EXAMPLES`) are hand-written here; a
tool without examples still gets a rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from genx.chunk import FuncCall
from genx.errors import ToolArgumentsError
from genx.ids import new_stream_id
from genx.match import Example, MatchResult, Rule, Slot, SlotType
from genx.tools import FuncTool

__all__ = [
    "NONE_EXAMPLES",
    "ROUTER_EXAMPLES",
    "STRING_SLOT_CHARS",
    "Intent",
    "intent_call",
    "intent_from_match",
    "plausible",
    "rules_from_tools",
]

STRING_SLOT_CHARS = 40


@dataclass(frozen=True, slots=True)
class Intent:
    """Run ``tool`` with ``arguments``; ``source`` says who decided ("prematch" or "model")."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    source: str = "prematch"

    def json_arguments(self) -> str:
        return json.dumps(dict(self.arguments), ensure_ascii=False)


def intent_call(intent: Intent) -> FuncCall:
    return FuncCall(intent.tool, intent.json_arguments(), "call_" + new_stream_id())


#: Few-shot examples for the model router, per tool (values keyed by slot name).
ROUTER_EXAMPLES: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "current_time": (
        ("what time is it in Tokyo", {"place": "Tokyo"}),
        ("what's the time", {}),
        ("the time in Rio please", {"place": "Rio"}),
    ),
    "date_info": (
        ("what day of the week is 25 December 2026", {"date": "25 December 2026"}),
        ("how many days until christmas", {"date": "christmas"}),
        ("what's the date today", {}),
    ),
    "calculate": (
        ("what is 17 times 23", {"expression": "17 * 23"}),
        ("15 percent of 80", {"expression": "15% of 80"}),
        ("what's 9 minus 4", {"expression": "9 - 4"}),
    ),
    "convert_units": (
        ("convert 20 km to miles", {"value": 20.0, "from_unit": "km", "to_unit": "miles"}),
        ("how many grams in 3 pounds", {"value": 3.0, "from_unit": "pounds", "to_unit": "grams"}),
    ),
    "set_timer": (
        ("set a timer for ten minutes", {"duration": "10 minutes"}),
        ("start a 5 minute timer for the rice", {"duration": "5 minutes", "label": "rice"}),
    ),
    "set_alarm": (("wake me up at 7 am", {"time": "7 am"}), ("set an alarm for 6:30 tomorrow", {"time": "6:30 tomorrow"})),
    "set_reminder": (
        ("remind me to call my sister tomorrow morning", {"text": "call my sister", "when": "tomorrow morning"}),
        ("remind me in an hour to check the mail", {"text": "check the mail", "when": "in an hour"}),
    ),
    "list_timers": (("which timers do I have", {}), ("show my alarms", {})),
    "cancel_timer": (("cancel the pasta timer", {"which": "pasta"}), ("delete my alarm", {"which": "alarm"})),
}

#: Messages no tool answers (the router says ``none``).
NONE_EXAMPLES = ("tell me a joke", "who wrote Hamlet", "how are you", "what is the weather like", "tell me about dogs")


def _first_sentence(text: str) -> str:
    line = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(?:\s|$)", line)
    return (m.group(1) if m else line) or "A tool."


def _slot_type(prop: Mapping[str, Any]) -> SlotType:
    kinds = {prop.get("type")} | {alt.get("type") for alt in prop.get("anyOf", ()) if isinstance(alt, Mapping)}
    if "number" in kinds:
        return SlotType.FLOAT
    if "integer" in kinds:
        return SlotType.INT
    if "boolean" in kinds:
        return SlotType.BOOL
    return SlotType.STRING


def _slot_description(prop: Mapping[str, Any]) -> str:
    desc = " ".join(str(prop.get("description", "")).split())
    return desc.split(";")[0].strip()[:120]


def rules_from_tools(
    tools: Iterable[FuncTool], examples: Mapping[str, Sequence[tuple[str, Mapping[str, Any]]]] = ROUTER_EXAMPLES
) -> list[Rule]:
    """One rule per tool (see the module docstring)."""
    rules: list[Rule] = []
    for tool in tools:
        props: Mapping[str, Any] = tool.schema.get("properties", {})
        required = set(tool.schema.get("required", ()))
        slots = tuple(
            Slot(name, _slot_type(p), _slot_description(p), required=name in required, max_length=STRING_SLOT_CHARS)
            for name, p in props.items()
        )
        exs = tuple(Example(text, values) for text, values in examples.get(tool.name, ()))
        rules.append(Rule(tool.name, _first_sentence(tool.description), slots, exs))
    return rules


def intent_from_match(result: MatchResult, tools: Mapping[str, FuncTool]) -> Intent | None:
    """The intent a parsed router line names, with arguments the tool accepts; ``None`` when it is not usable."""
    tool = tools.get(result.rule)
    if tool is None or result.problems():
        return None
    args = {k: v for k, v in result.values().items() if not (isinstance(v, str) and not v.strip())}
    try:
        tool.validate(args)
    except ToolArgumentsError:
        return None
    return Intent(tool.name, args, source="model")


_NUMBER = r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|half|a|an)\b"
_KINDS = r"\b(?:timers?|alarms?|reminders?|countdowns?)\b"
#: Words a message asking for each tool cannot do without. A 135M router also names tools for small talk
#: ("what is love" → list_timers); a routed tool whose words are missing is not trusted.
_NEEDS: dict[str, tuple[str, ...]] = {
    "current_time": (r"\b(?:time|hour|clock|o'?clock|late|early)\b",),
    "date_info": (r"\b(?:day|days|date|week|weeks|month|year|until|till|since|ago|today|tomorrow|yesterday|weekday)\b|\d",),
    "calculate": (
        _NUMBER,
        r"[-+*/x%^]|\b(?:times|plus|minus|divided|over|percent|squared|cubed|root|power|factorial|sum|product|split|"
        r"add|subtract|multiply|divide|half|double|twice)\b",
    ),
    "convert_units": (_NUMBER, r"\b(?:in|to|into|as|is|are)\b"),
    "set_timer": (r"\b(?:timer|countdown|count down|time me|minutes?|seconds?|hours?|mins?|secs?)\b",),
    "set_alarm": (r"\b(?:alarm|wake)\b",),
    "set_reminder": (r"\b(?:remind|reminder|forget|remember)\b",),
    "list_timers": (_KINDS + r"|\b(?:pending|left|timing|running|set)\b",),
    "cancel_timer": (
        r"\b(?:cancel|stop|delete|remove|off|clear|never ?mind|forget|kill|dismiss|rid|disable|scrap)\b",
        _KINDS + r"|\b(?:it|that|all)\b",
    ),
}
_NEEDS_RX = {k: tuple(re.compile(p, re.IGNORECASE) for p in v) for k, v in _NEEDS.items()}


def plausible(intent: Intent, text: str) -> bool:
    """Does ``text`` have the words its tool needs (:data:`_NEEDS`)? Tools without a list always are."""
    return all(rx.search(text) for rx in _NEEDS_RX.get(intent.tool, ()))
