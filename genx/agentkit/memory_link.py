"""The loop's link to long-term memory: recall into an answer's context, finished turns out to extraction.

:class:`MemoryLink` sits between the loop's parts and a memory service
(:class:`genx.memory.Memory`, or anything with the :class:`LoopMemory`
methods):

* :meth:`MemoryLink.context` (the answer runner, when an answer starts): the
  answer's context with the facts recalled for the user's words (or what an
  explicit request did) as a system message before those words. A *held* answer only reads: an
  explicit request ("remember that …") is previewed and done by
  :meth:`committed` when the answer is committed; :meth:`dropped` (a held
  answer forgotten unheard) leaves the memory as it was.
* :meth:`MemoryLink.recorded` (the recorder, after the turn is stored): hands
  the turn to the memory, which extracts on its own task and writes from a
  worker thread; the call returns at once. The assistant's text passed on is
  what was heard of it (the kept words of an interrupted answer).

Without a memory (``MemoryLink(None)``) every call does nothing. A memory
that fails or takes longer than ``recall_timeout_s`` never fails the answer:
it is answered without memory (a warning without the user's words).
Nothing of the user's words or the facts is logged here.

Does not own: the store, recall or extraction (``genx.memory``), when answers
start or end (:mod:`.turn_manager`, :mod:`.answers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from genx.agentkit.turns import Answer, Turn
from genx.memory import MemoryAnswer, TurnInfo
from genx.model import ModelContext

log = logging.getLogger("genx.agentkit.memory")


class LoopMemory(Protocol):
    """What the loop needs of a memory service (:class:`genx.memory.Memory` has it)."""

    async def start_answer(
        self, user_text: str, *, turn_id: str = "", conversation_id: str = "", at: float | None = None, read_only: bool = False
    ) -> MemoryAnswer: ...

    async def carry_out(self, answer: MemoryAnswer) -> MemoryAnswer: ...

    def answer_done(self) -> None: ...

    def after_turn(self, turn: TurnInfo) -> None: ...


class MemoryLink:
    """See the module docstring."""

    def __init__(self, memory: LoopMemory | None, *, recall_timeout_s: float = 1.0) -> None:
        self.memory = memory
        self.recall_timeout_s = recall_timeout_s
        self._pending: dict[str, MemoryAnswer] = {}  # held answer route → its previewed request
        self._tasks: set[asyncio.Task[MemoryAnswer]] = set()

    async def context(self, turn: Turn, ans: Answer, ctx: ModelContext) -> ModelContext:
        """``ctx`` (the answer's context) with what the memory has for ``ans``; ``ctx`` itself when it has nothing or failed."""
        if self.memory is None:
            return ctx
        held = ans.held
        try:
            async with asyncio.timeout(self.recall_timeout_s):
                found = await self.memory.start_answer(
                    ans.prompt, turn_id=turn.turn_id, conversation_id=turn.conversation_id, at=turn.started_wall, read_only=held
                )
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            log.warning("turn %s: memory took longer than %.1f s; answering without it", turn.turn_id, self.recall_timeout_s)
            return ctx
        except Exception as e:
            log.warning("turn %s: memory failed (%s); answering without it", turn.turn_id, type(e).__name__)
            return ctx
        if found.pending is not None and not ans.finished:
            if ans.held:
                self._pending[ans.route_id] = found
            else:  # committed while the memory was read
                self._carry_out(found)
        return found.in_context(ctx)

    def committed(self, ans: Answer) -> None:
        """``ans`` (held) became the answer: do the request it previewed."""
        found = self._pending.pop(ans.route_id, None)
        if found is not None:
            self._carry_out(found)

    def dropped(self, ans: Answer) -> None:
        """``ans`` (held) was forgotten unheard: its previewed request is not done; extraction may go on."""
        self._pending.pop(ans.route_id, None)
        if self.memory is not None:
            self.memory.answer_done()

    def recorded(self, turn: Turn, *, kept: str) -> None:
        """``turn`` was stored with ``kept`` as the assistant's heard words: remember what it told."""
        if self.memory is None:
            return
        try:
            self.memory.after_turn(TurnInfo(turn.user_text, turn.turn_id, turn.conversation_id, turn.started_wall or None, kept))
        except Exception as e:
            log.warning("turn %s: memory could not take the turn (%s)", turn.turn_id, type(e).__name__)

    def _carry_out(self, found: MemoryAnswer) -> None:
        assert self.memory is not None
        t = asyncio.get_running_loop().create_task(self.memory.carry_out(found), name="memory-request")
        self._tasks.add(t)
        t.add_done_callback(self._carried_out)

    def _carried_out(self, t: asyncio.Task[MemoryAnswer]) -> None:
        self._tasks.discard(t)
        if not t.cancelled() and t.exception() is not None:
            log.warning("memory request failed: %s", type(t.exception()).__name__)

    async def wait(self) -> None:
        """Wait for the requests being carried out (tests, shutdown)."""
        for t in list(self._tasks):
            with contextlib.suppress(Exception):
                await t


__all__ = ["LoopMemory", "MemoryLink"]
