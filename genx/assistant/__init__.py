"""assistant: the generator that answers with the offline tools (what the voice loop and ``parley ask`` use).

Owns: :class:`AssistantGenerator` (:mod:`.generator`: pre-match, then the
offline intent router for the in-process model or native tool calls for the
others, every path through :class:`~genx.toolrounds.ToolRounds`), the
deterministic pre-match (:mod:`.prematch`, its phrasings per tool in
:mod:`.prematch_clock`, :mod:`.prematch_numbers`, :mod:`.prematch_timers`, and the other
``prematch_*`` modules, each one family of what speakers wrap around a request that is
cleaned or rewritten before those match: asides, scenes, idioms, corrections, slang, …),
whether a slot value reads with its tool's parser (:mod:`.slot_reads`), how their patterns compile (:mod:`.patterns`), intents
and the router rules built from the tool schemas (:mod:`.intents`), the
grammar-constrained model router (:mod:`.router`) and the guards that make it
a fallback only (:mod:`.fallback`), a routed call as a two-turn generator (:mod:`.direct`), the
answer stream with spoken fillers (:mod:`.stream`, :mod:`.fillers`).

Does not own: the tools (:mod:`genx.toolbox`), the rounds (:mod:`genx.toolrounds`),
rules, prompts and grammars in general (:mod:`genx.match`), grammar arguments for
llama.cpp (:func:`genx.generators.llamacpp.constrained_decoding`), app commands
("stop", "mute": the app maps :func:`genx.toolbox.match_command` before any
generation), announcing fired timers (the app's hook).
"""

from genx.assistant.fillers import FILLERS, Fillers
from genx.assistant.generator import FILLER_AFTER_S, AssistantGenerator, last_user_text
from genx.assistant.intents import Intent, rules_from_tools
from genx.assistant.prematch import prematch
from genx.assistant.router import ModelRouter, RouteResult, router_generator
from genx.assistant.stream import LOOPING_ANSWER, AssistantStream, Decision

__all__ = [
    "FILLERS",
    "FILLER_AFTER_S",
    "LOOPING_ANSWER",
    "AssistantGenerator",
    "AssistantStream",
    "Decision",
    "Fillers",
    "Intent",
    "ModelRouter",
    "RouteResult",
    "last_user_text",
    "prematch",
    "router_generator",
    "rules_from_tools",
]
