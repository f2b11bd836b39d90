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
import logging
import threading
from collections.abc import Callable
from typing import Any

from genx.agentkit.core import LoopCore
from genx.agentkit.events import ErrorKind
from genx.agentkit.history import History
from genx.agentkit.memory_link import MemoryLink
from genx.agentkit.metrics import format_metrics
from genx.agentkit.resume import join_resumed
from genx.agentkit.store import ConversationStore, TurnRecord
from genx.agentkit.turns import Answer, Turn
from genx.deadline import Deadline
from genx.model import ModelContext

log = logging.getLogger("genx.agentkit.loop")

# a stop waits at least this long for the history, even past its deadline
WRITER_FLOOR_S = 0.5


class Recorder:
    """See the module docstring."""

    def __init__(self, core: LoopCore, store: ConversationStore | None) -> None:
        self._core = core
        self.store = store
        self.history = History(core.config.history_max_chars)
        self._q: asyncio.Queue[tuple[str, TurnRecord] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._batch_lock = threading.Lock()
        self._prefill_task: asyncio.Task[None] | None = None
        self.turns_done = 0
        self.memory = MemoryLink(None)  # long-term memory (VoiceLoop sets it): recalled into answers, recorded turns handed to it

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write_store(), name="voice-loop-store")

    def context(self, prompt: str) -> ModelContext:
        """The next answer's context: the spoken-only history, then ``prompt`` as the user's message."""
        cfg = self._core.config
        return self.history.context(prompt, system_prompt=cfg.system_prompt, params=cfg.params)

    def check_context(self) -> ModelContext:
        """The conversation so far as the generator's model sees it (e.g. a small model's context policy): the
        end-of-turn text check extends the prefilled prompt only when it evaluates the same messages."""
        ctx = self.context("")
        view = getattr(self._core.generator, "context_view", None)
        if callable(view) and self._core.generator_name:
            shaped = view(self._core.generator_name, ctx)
            if isinstance(shaped, ModelContext):
                return shaped
        return ctx

    def record(self, turn: Turn, ans: Answer, *, kept: str, interrupted: bool) -> None:
        """``turn`` is over: ``kept`` is the answer's text as heard (all of it when it was not interrupted)."""
        core = self._core
        full = ans.full_text()
        if ans.resume_of is not None:  # one assistant message with the answer it resumes
            kept = join_resumed(ans.resume_prefix, kept)
        if turn.conversation_id == core.conversation_id:
            self.history.add(turn.user_text, kept, interrupted=interrupted, resumes=turn.resumed, tool_messages=ans.tool_messages)
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
                resumed=turn.resumed,
                error=ans.error,
                generator=ans.generator,
                started_at=turn.started_wall,
                timings={k: v for k, v in _metrics_dict(metrics).items() if v is not None},
                tool_messages=ans.tool_messages,
            )
            self._q.put_nowait((turn.conversation_id, rec))
        if not turn.resumed:  # (a resumed answer's user words were handed over with the cut one)
            self.memory.recorded(turn, kept=kept)

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
        """Write the queued turns in order; each batch (every turn queued so far) is one worker-thread job, so a
        batch that started is written to the end even when this task is cancelled (the thread goes on)."""
        while True:
            batch = [await self._q.get()]
            while not self._q.empty():
                batch.append(self._q.get_nowait())
            try:
                errors = await asyncio.to_thread(self._write_batch, batch)
            except asyncio.CancelledError:
                self._write_rest_on_a_thread()
                raise
            finally:
                for _ in batch:
                    self._q.task_done()
            for message, turn_id in errors:
                self._core.error(ErrorKind.STORE, message, turn_id)
            if any(item is None for item in batch):
                return

    def _write_batch(self, batch: list[tuple[str, TurnRecord] | None]) -> list[tuple[str, str]]:
        """Worker thread: append the batch's turns (``None``: flush what failed before); the errors to report."""
        store = self.store
        errors: list[tuple[str, str]] = []
        if store is None:
            return errors
        with self._batch_lock:  # batches are written one at a time, in order
            for item in batch:
                try:
                    if item is None:  # records whose append failed earlier get one more try
                        store.flush()
                    else:
                        store.append(*item)
                except Exception as e:
                    if item is None:
                        errors.append((f"could not save every turn: {e}", ""))
                    else:
                        errors.append((f"could not save the turn: {e}", item[1].turn_id))
        return errors

    def _write_rest_on_a_thread(self) -> None:
        """The writer is being cancelled (the event loop shuts down): what is still queued goes to a thread."""
        rest: list[tuple[str, TurnRecord] | None] = []
        while not self._q.empty():
            rest.append(self._q.get_nowait())
            self._q.task_done()
        if any(item is not None for item in rest) and self.store is not None:
            threading.Thread(target=self._write_batch, args=(rest,), name="voice-loop-store-rest", daemon=False).start()

    async def flush(self) -> None:
        """Wait until every finished turn is written (tests, shutdown)."""
        await self._q.join()

    async def close(self, deadline: Deadline) -> None:
        """Write what is queued, then end the writer; the last step of a stop.

        The wait is bounded by ``deadline`` (at least ``WRITER_FLOOR_S``: history is worth a moment), but the
        writer itself is shielded: neither the deadline nor a cancelled caller cancels it, so every turn already
        recorded is still written (a late one is reported)."""
        self._q.put_nowait(None)
        writer = self._writer
        if writer is None or writer.done():
            return
        ok, _ = await deadline.wait(asyncio.shield(writer), floor_s=WRITER_FLOOR_S)
        if not ok:
            self._core.error(ErrorKind.STORE, "writing the conversation is taking long; it goes on in the background")


def _metrics_dict(m: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in m.__dataclass_fields__:
        if name in ("turn_id", "at"):
            continue
        out[name] = getattr(m, name)
    return out


__all__ = ["Recorder"]
