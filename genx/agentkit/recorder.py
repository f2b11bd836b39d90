"""The recorder: what a finished turn leaves behind — history, the conversation store, metrics, the prompt prefill.

:class:`Recorder` keeps the spoken-only :class:`~genx.agentkit.history.History`
(the context of the next answer), writes each finished turn to the
:class:`~genx.agentkit.store.ConversationStore` on a writer task (the file I/O
runs in a worker thread, in turn order), publishes the turn's metrics, and asks
the generator to evaluate the conversation so far while the user listens
(``prefill``: the next answer then evaluates only the new message).

Does not own: deciding what was heard (:mod:`.heard`, :mod:`.answers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from genx.agentkit.core import LoopCore
from genx.agentkit.events import ErrorKind
from genx.agentkit.history import History
from genx.agentkit.metrics import format_metrics
from genx.agentkit.store import ConversationStore, TurnRecord
from genx.agentkit.turns import Answer, Turn
from genx.model import ModelContext

log = logging.getLogger("genx.agentkit.loop")


class Recorder:
    """See the module docstring."""

    def __init__(self, core: LoopCore, store: ConversationStore | None) -> None:
        self._core = core
        self.store = store
        self.history = History(core.config.history_max_chars)
        self._q: asyncio.Queue[tuple[str, TurnRecord] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._prefill_task: asyncio.Task[None] | None = None
        self.turns_done = 0

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write_store(), name="voice-loop-store")

    def context(self, prompt: str) -> ModelContext:
        """The next answer's context: the spoken-only history, then ``prompt`` as the user's message."""
        cfg = self._core.config
        return self.history.context(prompt, system_prompt=cfg.system_prompt, params=cfg.params)

    def record(self, turn: Turn, ans: Answer, *, kept: str, interrupted: bool) -> None:
        """``turn`` is over: ``kept`` is the answer's text as heard (all of it when it was not interrupted)."""
        core = self._core
        full = ans.full_text()
        if turn.conversation_id == core.conversation_id:
            self.history.add(turn.user_text, kept, interrupted=interrupted, tool_messages=ans.tool_messages)
            self.schedule_prefill()
        metrics = turn.timeline.to_event()
        core.emit(metrics)
        log.info("%s", format_metrics(metrics))
        self.turns_done += 1
        if self.store is not None:
            rec = TurnRecord(
                turn_id=turn.turn_id,
                user_text=turn.user_text,
                assistant_text=kept,
                interrupted=interrupted,
                generated_text=full,
                typed=turn.typed,
                error=ans.error,
                generator=ans.generator,
                started_at=turn.started_wall,
                timings={k: v for k, v in _metrics_dict(metrics).items() if v is not None},
                tool_messages=ans.tool_messages,
            )
            self._q.put_nowait((turn.conversation_id, rec))

    # -- prompt prefill ----------------------------------------------------------------------
    def schedule_prefill(self) -> None:
        """Let the generator evaluate the conversation so far while the user listens (see LlamaCppGenerator.prefill)."""
        core = self._core
        fn = getattr(core.generator, "prefill", None)
        if fn is None or not core.running or not core.generator_name:
            return
        if self._prefill_task is not None and not self._prefill_task.done():
            self._prefill_task.cancel()  # the history changed again: prefill the newer one
        self._prefill_task = asyncio.get_running_loop().create_task(self._prefill(fn, self.context("")), name="voice-loop-prefill")

    async def _prefill(self, fn: Callable[[str, Any], Any], ctx: Any) -> None:
        try:
            await fn(self._core.generator_name, ctx)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an optimisation only: the answer will evaluate the prompt itself
            log.debug("prompt prefill skipped: %s", e)

    def cancel_prefill(self) -> None:
        if self._prefill_task is not None:
            self._prefill_task.cancel()

    # -- the store writer ---------------------------------------------------------------------
    async def _write_store(self) -> None:
        store = self.store
        while True:
            item = await self._q.get()
            try:
                if item is None:
                    if store is not None:
                        try:  # records whose append failed earlier get one more try
                            await asyncio.to_thread(store.flush)
                        except Exception as e:
                            self._core.error(ErrorKind.STORE, f"could not save every turn: {e}")
                    return
                if store is None:
                    continue
                cid, rec = item
                try:
                    await asyncio.to_thread(store.append, cid, rec)
                except Exception as e:
                    self._core.error(ErrorKind.STORE, f"could not save the turn: {e}", rec.turn_id)
            finally:
                self._q.task_done()

    async def flush(self) -> None:
        """Wait until every finished turn is written (tests, shutdown)."""
        await self._q.join()

    async def close(self, timeout_s: float) -> None:
        """Write what is queued (up to ``timeout_s``), then end the writer."""
        self._q.put_nowait(None)
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._writer, timeout_s)


def _metrics_dict(m: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in m.__dataclass_fields__:
        if name in ("turn_id", "at"):
            continue
        out[name] = getattr(m, name)
    return out


__all__ = ["Recorder"]
