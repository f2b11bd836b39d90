"""match: rule-based matching of a message through a model (seed 000's ``match/``).

Owns: rules with typed slots and examples (:mod:`.rules`), the prompt they
compile into (:mod:`.prompt`), the streaming parser of the model's
``rule: k=v, …`` lines (:mod:`.parse`), the llama.cpp GBNF grammar that admits
exactly one valid line or ``none`` (:mod:`.grammar`) and the compiled
:class:`Matcher` that runs a generation and yields results (:mod:`.matcher`).

Does not own: which rules exist (the caller's intent set), constraining a
particular generator with the grammar (the generator's options), deterministic
pre-matching, or acting on a result.
"""

from genx.match.grammar import gbnf
from genx.match.matcher import Matcher
from genx.match.parse import Arg, LineParser, MatchResult, parse_line, parse_value, project
from genx.match.prompt import DEFAULT_TEMPLATE, render_prompt
from genx.match.rules import NONE_ANSWER, Example, Rule, Slot, SlotType

__all__ = [
    "DEFAULT_TEMPLATE",
    "NONE_ANSWER",
    "Arg",
    "Example",
    "LineParser",
    "MatchResult",
    "Matcher",
    "Rule",
    "Slot",
    "SlotType",
    "gbnf",
    "parse_line",
    "parse_value",
    "project",
    "render_prompt",
]
