"""The assistant generator: a :class:`~genx.generators.Generator` that answers with the offline tools.

:class:`AssistantGenerator` wraps the configured generators (the mux) and is one
itself, so the voice loop and ``parley ask`` use it unchanged. Per request,
from the last user message:

1. the deterministic pre-match (:func:`~genx.assistant.prematch.prematch`):
   an obvious phrasing runs its tool directly, whatever the generator;
2. the requested generator is the in-process llama.cpp model: the offline
   intent router (:class:`~genx.assistant.router.ModelRouter`, grammar
   constrained, temperature 0) picks a tool or ``none``, only as the fallback
   :mod:`.fallback` guards (asked only for messages with a tool's words, its
   intent trusted only when its values read); a tool runs directly, ``none``
   gets a normal answer from the model without tools;
3. any other generator (cloud, Ollama, an OpenAI-compatible server):
   :class:`~genx.toolrounds.ToolRounds` with the tools, which the model calls
   natively.

The floor under small models (:class:`Floor`, each part switchable, all on by
default; measured by ``bench/answer_quality.py``): on the in-process model a
question that needs live or personal data no tool covers gets "I can't know
that offline" (:mod:`.honesty`, path ``offline``); the model's answers go
through the context policy and the repetition guard (:mod:`.context_policy`,
:mod:`.guard`); every answer leaves in spoken form (:mod:`.spoken_form`).

A directly run tool's result is the spoken answer (the tools answer in
sentences). Every path runs through :class:`~genx.toolrounds.ToolRounds`
(direct calls via :class:`~genx.assistant.direct.DirectTurns`), so timeouts,
errors as results, barge-in cancellation, the side-effect ledger, the tool
events and the message-level history are the same. A tool that takes longer
than ``filler_after_s`` gets a spoken filler first (:mod:`genx.assistant.stream`).

Pass-throughs for the voice loop: ``resolve`` (generator switching),
``prefill`` (prompt caching), ``aclose``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from genx.assistant.context_policy import FULL_CONTEXT, apply_policy, policy_for
from genx.assistant.direct import DirectTurns, Saying, WithoutTools
from genx.assistant.fallback import model_fallback
from genx.assistant.fillers import Fillers
from genx.assistant.guard import GuardedGenerator
from genx.assistant.honesty import OFFER, cannot_know, covered_by, unknowable
from genx.assistant.intents import Intent, intent_call
from genx.assistant.prematch import prematch, warm_prematch
from genx.assistant.router import ModelRouter, router_generator
from genx.assistant.stream import AssistantStream, Decision, start
from genx.chunk import FuncCall, Role
from genx.generators import Generator
from genx.generators.llamacpp import LlamaCppGenerator
from genx.model import ModelContext, ModelContextBuilder, MultiModelContext, Usage
from genx.toolrounds import DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_TOOL_TIMEOUT_S, ToolRounds
from genx.tools import FuncTool

__all__ = ["FILLER_AFTER_S", "FLOOR_OFF", "AssistantGenerator", "Floor", "last_user_text"]

log = logging.getLogger(__name__)

FILLER_AFTER_S = 0.7


@dataclass(frozen=True, slots=True)
class Floor:
    """The parts of the floor under small models that are on (module docstring)."""

    context_policy: bool = True
    guard: bool = True
    spoken_form: bool = True
    honesty: bool = True


FLOOR_OFF = Floor(context_policy=False, guard=False, spoken_form=False, honesty=False)

RouterFactory = Callable[[LlamaCppGenerator, Sequence[FuncTool]], ModelRouter]


def _default_router(llm: LlamaCppGenerator, tools: Sequence[FuncTool]) -> ModelRouter:
    return ModelRouter(router_generator(llm), tools)


def last_user_text(ctx: ModelContext) -> str:
    text = ""
    for m in ctx.messages():
        if m.role == Role.USER:
            text = m.text()
    return text


class AssistantGenerator:
    """See the module docstring."""

    def __init__(
        self,
        generators: Generator,
        tools: Sequence[FuncTool],
        *,
        use_prematch: bool = True,
        use_router: bool = True,
        router_factory: RouterFactory = _default_router,
        answer_round: bool = False,
        fillers: Fillers | None = None,
        filler_after_s: float = FILLER_AFTER_S,
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
        tool_timeout_s: float = DEFAULT_TOOL_TIMEOUT_S,
        floor: Floor | None = None,
    ) -> None:
        self.floor = floor if floor is not None else Floor()
        self.guard_caught: list[str] = []  # what the repetition guard caught, in order (the bench counts it)
        self.generators = generators
        self.tools = list(tools)
        self.use_prematch = use_prematch
        self.use_router = use_router
        self.answer_round = answer_round
        self.fillers = fillers if fillers is not None else Fillers()
        self.filler_after_s = filler_after_s
        self.max_tool_rounds = max_tool_rounds
        self.tool_timeout_s = tool_timeout_s
        self._router_factory = router_factory
        self._routers: dict[int, ModelRouter] = {}
        self._tools_ctx = ModelContextBuilder().tool(*self.tools).build()

    # -- Generator ---------------------------------------------------------------------------
    async def generate_stream(self, pattern: str, ctx: ModelContext) -> AssistantStream:
        target = self.resolve(pattern)
        local = isinstance(target, LlamaCppGenerator)
        decision = await self.decide(pattern, last_user_text(ctx), target)
        if decision.said:
            said = decision.said
            if any(OFFER in m.text() for m in ctx.messages() if m.role == Role.ASSISTANT):  # offered once is enough
                said = said.replace(" " + OFFER, "")
            inner = await ToolRounds(Saying(said), max_tool_rounds=1).run(pattern, WithoutTools(ctx))
        elif decision.intent is not None:
            direct = DirectTurns(intent_call(decision.intent), answer=target if self.answer_round and local else None)
            rounds = ToolRounds(direct, max_tool_rounds=1, tool_timeout_s=self.tool_timeout_s)
            inner = await rounds.run(pattern, MultiModelContext(WithoutTools(ctx), self._tools_ctx))
        elif local:
            extra = [t.name for t in ctx.tools()]
            if extra:
                log.info("assistant: the in-process model cannot call %s; answering without tools", ", ".join(extra))
            inner = await self._rounds(self._model_path(target)).run(pattern, WithoutTools(ctx))
        else:
            inner = await self._rounds(self.generators).run(pattern, MultiModelContext(ctx, self._tools_ctx))
        log.info("assistant: %s via %s%s", pattern, decision.path, f" → {decision.intent.tool}" if decision.intent else "")
        return start(inner, decision, self.fillers, self.filler_after_s, spoken_form=self.floor.spoken_form)

    def _model_path(self, target: Generator) -> Generator:
        """The in-process model's answers: through the context policy and the repetition guard when on."""
        floor = self.floor
        if not floor.context_policy and not floor.guard:
            return self.generators
        policy = policy_for(target) if floor.context_policy else FULL_CONTEXT
        return GuardedGenerator(self.generators, policy=policy, guard=floor.guard, caught=self.guard_caught)

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        return await self.generators.invoke(pattern, ctx, tool)

    # -- routing -----------------------------------------------------------------------------
    async def decide(self, pattern: str, text: str, target: Generator | None = None) -> Decision:
        """How ``text`` will be answered (no tool runs here)."""
        target = self.resolve(pattern) if target is None else target
        intent: Intent | None = prematch(text) if self.use_prematch and text else None
        if intent is not None:
            return Decision("prematch", intent)
        if isinstance(target, LlamaCppGenerator):
            u = unknowable(text) if self.floor.honesty and text else None
            if u is not None and not covered_by(u, self.tools):
                return Decision("offline", said=cannot_know(u))
            if not self.use_router or not text:
                return Decision("model")
            route = await model_fallback(self.router(target), text)
            return Decision("router" if route.intent else "model", route.intent, route.line, route.ms)
        return Decision("cloud")

    def router(self, llm: LlamaCppGenerator) -> ModelRouter:
        r = self._routers.get(id(llm))
        if r is None:
            r = self._routers[id(llm)] = self._router_factory(llm, self.tools)
        return r

    def _rounds(self, generator: Generator) -> ToolRounds:
        return ToolRounds(generator, max_tool_rounds=self.max_tool_rounds, tool_timeout_s=self.tool_timeout_s)

    # -- pass-throughs -------------------------------------------------------------------------
    def resolve(self, pattern: str) -> Generator:
        """The generator serving ``pattern`` (``NotFoundError`` when none): the voice loop's generator check."""
        fn = getattr(self.generators, "resolve", None)
        return fn(pattern) if callable(fn) else self.generators  # type: ignore[no-any-return]

    async def warm(self, pattern: str) -> None:
        """Load the model behind ``pattern`` and, for the in-process model, the router (its prompt evaluated once)."""
        target = self.resolve(pattern)
        if self.use_prematch:
            await asyncio.to_thread(warm_prematch)  # the unit registry and the place table, off the event loop
        warm = getattr(target, "warm", None)
        if warm is not None:
            await warm()
        if isinstance(target, LlamaCppGenerator) and self.use_router:
            await self.router(target).warm()

    def context_view(self, pattern: str, ctx: ModelContext) -> ModelContext:
        """``ctx`` as the model behind ``pattern`` will see it (its context policy): what the prompt prefill and the
        end-of-turn text check must evaluate, or llama.cpp's prompt cache misses at the first difference."""
        if self.floor.context_policy:
            return apply_policy(ctx, policy_for(self.resolve(pattern)))
        return ctx

    async def prefill(self, pattern: str, ctx: ModelContext) -> bool:
        """Evaluate the conversation so far ahead of the next turn, shaped as the next answer will see it (the policy)."""
        fn = getattr(self.generators, "prefill", None)
        if fn is None:
            return False
        return bool(await fn(pattern, self.context_view(pattern, ctx)))

    async def aclose(self) -> None:
        fn = getattr(self.generators, "aclose", None)
        if fn is not None:
            await fn()
