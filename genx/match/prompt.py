"""Rules → the system prompt that asks a model for one ``rule: k=v, …`` line.

The default template is short on purpose: the offline router is a 135M model
whose attention is best spent on the rules and the examples. A custom template
is a :class:`string.Template` with ``$rules`` and ``$examples``.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Template

from genx.errors import MatchRuleError
from genx.match.rules import NONE_ANSWER, Rule, Slot

DEFAULT_TEMPLATE = f"""Match the user's message to one of the rules below. Answer with one line only: the rule name, \
then ": " and the values the message gives as slot=value pairs separated by ", ". Leave out values the message does not give.
If no rule fits, answer: {NONE_ANSWER}

Rules:
$rules

Examples:
$examples"""


def _slot_line(s: Slot) -> str:
    kind = f"one of: {', '.join(s.choices)}" if s.choices else s.type.value
    flags = f"{kind}, required" if s.required else kind
    return f"  {s.name} ({flags})" + (f": {s.description}" if s.description else "")


def render_rules(rules: Sequence[Rule]) -> str:
    blocks = []
    for r in rules:
        blocks.append("\n".join([f"{r.name}: {r.description}", *(_slot_line(s) for s in r.slots)]))
    return "\n".join(blocks)


def render_examples(rules: Sequence[Rule], none_examples: Sequence[str] = ()) -> str:
    lines: list[str] = []
    for r in rules:
        for ex in r.examples:
            lines += [f"User: {ex.text}", f"Answer: {r.line(ex.values)}"]
    for text in none_examples:
        lines += [f"User: {text}", f"Answer: {NONE_ANSWER}"]
    return "\n".join(lines)


def render_prompt(rules: Sequence[Rule], *, none_examples: Sequence[str] = (), template: str = DEFAULT_TEMPLATE) -> str:
    for text in none_examples:
        if not isinstance(text, str) or not text.strip() or "\n" in text or "\r" in text:
            raise MatchRuleError("", f"none example {text!r} must be one non-empty line")
    examples = render_examples(rules, none_examples)
    tpl = template
    if not examples and template == DEFAULT_TEMPLATE:
        tpl = template.split("\n\nExamples:", 1)[0]
    try:
        return Template(tpl).substitute(rules=render_rules(rules), examples=examples)
    except (KeyError, ValueError) as e:
        raise MatchRuleError(
            "", f"the prompt template is invalid ({type(e).__name__}: {e}); use $rules and $examples, $$ for a dollar"
        ) from None


__all__ = ["DEFAULT_TEMPLATE", "render_examples", "render_prompt", "render_rules"]
