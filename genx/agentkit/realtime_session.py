"""Realtime mode's link to the provider: one session at a time, its input, its output reader, cuts and tool calls.

:class:`RealtimeLink` opens a session of the realtime model (``transform`` on a
fresh input stream), hands every output chunk to the conversation
(:mod:`.realtime_mode`), and reports a session that fails (a wrong key, an
unknown model, a connection the transformer could not resume) once. The next
:meth:`ensure` (speech, a key press, a message) opens a fresh session, but not
within ``RETRY_AFTER_S`` of the failure, so a wrong key never turns into a
reconnect storm. Every new session starts with the loop's history (what was
heard) replayed as text, so a reopened session or a loaded conversation goes on
where it was. It is the :class:`~.realtime_output.RealtimeCutPort` of the
truncating player (``interrupt(played_ms, stream_id=…)`` on the session), and
runs the tool calls the session surfaces through
:class:`genx.toolrounds.execute.CallBatch` (validation, timeouts, errors as
results), answering each on the session.

Does not own: turns, answers and barge-in (:mod:`.realtime_mode`), the wire
protocol (``genx.transformers.realtime``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from genx.agentkit.core import LoopCore
from genx.chunk import FuncCall, MessageChunk
from genx.errors import Done, StreamClosedError
from genx.stream import StreamBuilder
from genx.toolrounds.execute import CallBatch, SideEffectLedger
from genx.tools import FuncTool
from genx.transformers.realtime.events import HistoryItem

log = logging.getLogger("genx.agentkit.loop")

RETRY_AFTER_S = 3.0  # a failed session is not reopened sooner


class RealtimeLink:
    """See the module docstring."""

    def __init__(
        self,
        core: LoopCore,
        model: Any,
        *,
        on_chunk: Callable[[MessageChunk], None],
        on_failed: Callable[[BaseException], None],
        tools: Sequence[FuncTool] = (),
        tool_timeout_s: float = 10.0,
        history: Callable[[], Sequence[tuple[str, str]]] = tuple,
    ) -> None:
        self._core = core
        self._tools = {t.name: t for t in tools}
        with_tools = getattr(model, "with_tools", None)
        self._model = with_tools(list(tools)) if tools and callable(with_tools) else model
        settings = getattr(self._model, "settings", None)
        #: the provider ends the user's turns itself (server / semantic VAD); else each input route is one turn
        self.provider_vad = getattr(settings, "turn_detection", "server_vad") is not None
        #: the provider transcribes the user's speech (its user routes end with the transcript)
        self.transcribes = getattr(settings, "input_transcription", None) is not None
        self._on_chunk = on_chunk
        self._on_failed = on_failed
        self._history = history
        self._tool_timeout_s = tool_timeout_s
        self._inp: StreamBuilder | None = None
        self._out: Any = None  # the session's RealtimeSessionStream
        self._reader: asyncio.Task[None] | None = None
        self._opening: asyncio.Task[None] | None = None
        self._failed_at: float | None = None
        self._bg: set[asyncio.Task[Any]] = set()

    @property
    def connected(self) -> bool:
        return self._inp is not None and not self._inp.ended

    async def open(self) -> None:
        """A new session; the conversation so far (``history``: user / assistant texts) is replayed into it as text."""
        inp = StreamBuilder()
        model = self._model
        items = [HistoryItem(role, text) for role, text in self._history() if text.strip()]
        with_history = getattr(model, "with_history", None)
        if items and callable(with_history):
            model = with_history(items)
        try:
            out = await model.transform(inp.stream)
        except Exception as e:
            self._failed(None, e)
            return
        self._inp, self._out = inp, out
        self._reader = asyncio.get_running_loop().create_task(self._read(out), name="voice-loop-realtime")

    def ensure(self) -> bool:
        """True when a session takes input now; else a fresh one is being opened (after a failure)."""
        if self.connected:
            return True
        if self._opening is None and self._core.running:
            if self._failed_at is not None and self._core.clock() - self._failed_at < RETRY_AFTER_S:
                return False
            self._opening = asyncio.get_running_loop().create_task(self._reopen(), name="voice-loop-realtime-open")
        return False

    async def _reopen(self) -> None:
        try:
            await self.open()
        finally:
            self._opening = None

    async def restart(self) -> None:
        """End the session and open a fresh one (a new conversation: the provider's context is the old one)."""
        await self._close_session()
        if self._core.running:
            await self.open()

    async def close(self) -> None:
        if self._opening is not None:
            self._opening.cancel()
        await self._close_session()
        for t in list(self._bg):
            t.cancel()

    async def _close_session(self) -> None:
        inp, out, reader = self._inp, self._out, self._reader
        self._inp = self._out = self._reader = None
        if inp is not None and not inp.ended:
            inp.done()
        if out is not None:
            with contextlib.suppress(Exception):
                await out.close()
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader

    def send(self, chunk: MessageChunk) -> None:
        inp = self._inp
        if inp is not None and not inp.ended:
            with contextlib.suppress(StreamClosedError):
                inp.push(chunk)

    def truncate(self, stream_id: str, played_ms: int) -> None:
        """(RealtimeCutPort) The player stopped response ``stream_id`` after ``played_ms`` heard: tell the provider."""
        out = self._out
        if out is None:
            return
        cut = out.interrupt(played_ms, stream_id=stream_id)
        if cut is not None:
            log.info("realtime: response %s cut at %d ms heard (item %s)", cut.response_id, cut.played_ms, cut.item_id or "-")

    # -- the session's output ------------------------------------------------------------
    async def _read(self, out: Any) -> None:
        try:
            while True:
                try:
                    c = await out.next()
                except Done:
                    break
                if c.tool_call is not None:
                    self._spawn(self._run_tool(c.tool_call))
                try:
                    self._on_chunk(c)
                except Exception:
                    log.exception("realtime: a chunk could not be handled")
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._failed(out, e)
            return
        self._failed(out, RuntimeError("the provider ended the session"))

    def _failed(self, out: Any, e: BaseException) -> None:
        if out is not None and self._out is not out:
            return  # an old session (closed by restart) ended
        self._failed_at = self._core.clock()
        self._inp = self._out = None
        if self._core.running:
            self._on_failed(e)

    # -- tools -----------------------------------------------------------------------------
    async def _run_tool(self, call: FuncCall) -> None:
        batch = CallBatch([call], self._tools, round=1, timeout_for=lambda tool: self._tool_timeout_s, ledger=SideEffectLedger())
        records = await batch.run()
        log.info("realtime: tool %s → %s", call.name, records[0].status)
        out = self._out
        if out is not None:
            out.send_tool_result(records[0].result)

    def _spawn(self, coro: Any) -> None:
        t = asyncio.get_running_loop().create_task(coro)
        self._bg.add(t)
        t.add_done_callback(self._bg.discard)


__all__ = ["RETRY_AFTER_S", "RealtimeLink"]
