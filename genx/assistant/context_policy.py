"""How much of the conversation a generator sees: the context policy per generator.

A 135M model shown its last answers copies them (issue 17: one odd answer came
back for eight different questions). :class:`ContextPolicy` shapes the context
before the model sees it:

* ``max_turns``: how many earlier exchanges (a user message and the assistant's
  heard answer) stay as they were; ``None`` keeps all;
* ``summarize_older``: the user's questions of the dropped exchanges, shortened,
  become one system line ("Earlier the user asked about: …"), so a follow-up
  still has its topic but no old answer to copy;
* ``examples``: few-shot (question, answer) pairs placed before the conversation;
* ``max_tokens``: a cap on the answer's length when the context sets none (a
  small model rambles: 46 s of speech at p95 with 200 tokens); it replaces the
  generator's own ``max_tokens``, so it is kept to the small-model policy.

:func:`policy_for` picks the policy of a generator: a small in-process model
(a GGUF under :data:`SMALL_MODEL_BYTES`) gets :data:`SMALL_MODEL_POLICY`, any
other generator :data:`FULL_CONTEXT`. :func:`apply_policy` is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from genx.chunk import Message, Role
from genx.model import ModelContext, ModelContextBuilder, ModelParams
from genx.prompts import SMALL_MODEL_EXAMPLES

__all__ = ["FULL_CONTEXT", "SMALL_MODEL_BYTES", "SMALL_MODEL_POLICY", "ContextPolicy", "apply_policy", "policy_for"]

SMALL_MODEL_BYTES = 1_500_000_000
_SUMMARY_WORDS = 10


@dataclass(frozen=True, slots=True)
class ContextPolicy:
    max_turns: int | None = None
    summarize_older: bool = False
    examples: tuple[tuple[str, str], ...] = ()
    max_tokens: int | None = None


FULL_CONTEXT = ContextPolicy()
SMALL_MODEL_POLICY = ContextPolicy(max_turns=1, summarize_older=True, examples=SMALL_MODEL_EXAMPLES, max_tokens=80)


def _exchanges(msgs: Sequence[Message]) -> list[list[Message]]:
    """Messages grouped so each group starts at a user message (a leading non-user group stays first)."""
    groups: list[list[Message]] = []
    for m in msgs:
        if m.role == Role.USER or not groups:
            groups.append([m])
        else:
            groups[-1].append(m)
    return groups


def _short(text: str) -> str:
    words = text.split()
    return " ".join(words[:_SUMMARY_WORDS]).rstrip("?.!,") + (" …" if len(words) > _SUMMARY_WORDS else "")


def apply_policy(ctx: ModelContext, policy: ContextPolicy) -> ModelContext:
    """``ctx`` as ``policy`` lets the model see it (prompts, tools, params and the current user message kept)."""
    if policy == FULL_CONTEXT:
        return ctx
    msgs = [m for m in ctx.messages() if m.role != Role.SYSTEM]
    system = [m for m in ctx.messages() if m.role == Role.SYSTEM]
    groups = _exchanges(msgs)
    current = groups.pop() if groups and groups[-1][0].role == Role.USER and len(groups[-1]) == 1 else []
    keep = groups if policy.max_turns is None else groups[len(groups) - policy.max_turns :] if policy.max_turns > 0 else []
    older = groups[: len(groups) - len(keep)]
    b = ModelContextBuilder()
    for p in ctx.prompts():
        b.prompt(p.text, name=p.name)
    for c in ctx.cots():
        b.cot(c)
    b.tool(*ctx.tools())
    params = ctx.params()
    if policy.max_tokens is not None and (params is None or params.max_tokens is None):
        params = ModelParams(max_tokens=policy.max_tokens).merged(params)
    if params is not None:
        b.params(params)
    b.messages(system)
    for q, a in policy.examples:
        b.user(q).assistant(a)
    asked = [_short(g[0].text()) for g in older if g[0].role == Role.USER and g[0].text().strip()]
    if policy.summarize_older and asked:
        b.message(Message.system("Earlier the user asked about: " + "; ".join(asked) + "."))
    for g in keep:
        b.messages(g)
    b.messages(current)
    return b.build()


def policy_for(generator: object) -> ContextPolicy:
    """The policy of ``generator``: small in-process GGUF models see little history, every other generator all of it."""
    from genx.generators.llamacpp import LlamaCppGenerator

    if not isinstance(generator, LlamaCppGenerator):
        return FULL_CONTEXT
    size = generator.model_bytes()
    return SMALL_MODEL_POLICY if size is not None and size < SMALL_MODEL_BYTES else FULL_CONTEXT
