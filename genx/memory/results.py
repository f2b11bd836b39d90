"""What the memory service returns and counts: :class:`MemoryAnswer` (the result of
:meth:`genx.memory.service.Memory.start_answer`) and :class:`MemoryStats` (per-stage timings, failures)."""

from __future__ import annotations

from dataclasses import dataclass, field

from genx.memory.context import with_memory
from genx.memory.intents import Intent
from genx.memory.recall import Recalled
from genx.memory.requests import TurnInfo
from genx.model import ModelContext

__all__ = ["MemoryAnswer", "MemoryStats"]


@dataclass(frozen=True, slots=True)
class MemoryAnswer:
    """What :meth:`Memory.start_answer` found or did."""

    recalled: Recalled = field(default_factory=Recalled)
    intent: Intent | None = None
    instruction: str = ""  # for the answer model: what the explicit request did (or, pending, will do)
    pending: TurnInfo | None = None  # a previewed request (read-only start): :meth:`Memory.carry_out` does it

    def note(self) -> str:
        """What the answer model is told: the recalled facts, then the instruction ("" when there is neither)."""
        return "\n\n".join(t for t in (self.recalled.text(), self.instruction) if t)

    def in_context(self, ctx: ModelContext) -> ModelContext:
        """``ctx`` with :meth:`note` as a system message before the user's words (:mod:`genx.memory.context`)."""
        return with_memory(ctx, self.note())


@dataclass(slots=True)
class MemoryStats:
    rules_ms: list[float] = field(default_factory=list)
    model_ms: list[float] = field(default_factory=list)
    recall_ms: list[float] = field(default_factory=list)
    write_failures: int = 0
    cancelled_extractions: int = 0
