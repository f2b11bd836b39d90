"""Running one round of tool calls: lookup, validation, concurrency, timeouts, cancellation.

A :class:`CallBatch` runs the calls one model answer proposed, each in its own
task (the calls of one answer are independent by construction), each under its
own timeout. Nothing here raises for a bad call: an unknown tool name, arguments
that fail :meth:`~genx.tools.FuncTool.validate`, an exception inside the tool or
a timeout all become an error :class:`~genx.chunk.ToolResult` the model sees,
with a :class:`CallStatus` saying which.

Cancellation (a barge-in closes the runner's stream): pure tools are cancelled;
side-effecting tools (``FuncTool.side_effects``) that already started are let
finish under their timeout, because abandoning them would leave "did the timer
get set?" unanswered (a sync tool's thread cannot be stopped anyway). Every call
ends with a record, so the history stays consistent: a cancelled call gets a
"cancelled" error result.

A :class:`SideEffectLedger` remembers the side-effecting calls made for one user
request, keyed by tool name, canonical arguments and the occurrence within the
answer ("two 10-minute timers" are two calls; the same call proposed again in a
later round, or by a re-run of the same request, is not run again and gets the
first result).
"""

from __future__ import annotations

import asyncio
import enum
import functools
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from genx.chunk import FuncCall, ToolResult
from genx.errors import ToolArgumentsError
from genx.tools import FuncTool

log = logging.getLogger(__name__)


class CallStatus(enum.StrEnum):
    OK = "ok"  # ran and returned
    FAILED = "failed"  # ran and raised (the result says what)
    INVALID_ARGUMENTS = "invalid_arguments"  # not run: arguments failed the schema
    UNKNOWN_TOOL = "unknown_tool"  # not run: no tool of that name
    TIMEOUT = "timeout"  # did not finish in time
    CANCELLED = "cancelled"  # stopped (or never started) because the stream was closed
    REUSED = "reused"  # side-effecting call already made for this request: not run again
    REFUSED = "refused"  # not run: the round limit was reached or the answer ended abnormally


#: Statuses whose result is a real outcome (kept and shown as "finished").
FINISHED = frozenset({CallStatus.OK, CallStatus.FAILED, CallStatus.INVALID_ARGUMENTS, CallStatus.UNKNOWN_TOOL, CallStatus.REUSED})


@dataclass(slots=True)
class CallRecord:
    """What happened to one proposed call (``round`` counts model turns from 1)."""

    call: FuncCall
    result: ToolResult
    status: CallStatus
    round: int
    elapsed_ms: float = 0.0
    return_direct: bool = False  # the tool is return_direct (ends the rounds when OK)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


@dataclass(slots=True)
class SideEffectLedger:
    """Side-effecting calls already made (or in flight) for one user request."""

    _results: dict[tuple[str, str, int], asyncio.Future[ToolResult]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._results)

    @staticmethod
    def key(call: FuncCall, occurrence: int) -> tuple[str, str, int]:
        try:
            canon = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True, separators=(",", ":"))
        except ValueError:
            canon = call.arguments
        return (call.name, canon, occurrence)

    def get(self, key: tuple[str, str, int]) -> asyncio.Future[ToolResult] | None:
        return self._results.get(key)

    def claim(self, key: tuple[str, str, int]) -> asyncio.Future[ToolResult]:
        fut: asyncio.Future[ToolResult] = asyncio.get_running_loop().create_future()
        self._results[key] = fut
        return fut


def error_result(call: FuncCall, text: str) -> ToolResult:
    return ToolResult(call.id, call.name, text, is_error=True)


def unknown_tool_text(name: str, known: Sequence[str]) -> str:
    avail = ", ".join(sorted(known)) or "none"
    return f"there is no tool named {name!r} (available tools: {avail}). Use one of them, or answer without a tool."


def cancelled_text(name: str) -> str:
    return f"tool {name!r} was cancelled: the user interrupted before it finished. Its effect, if any, is unknown."


def timeout_text(tool: FuncTool, seconds: float) -> str:
    if tool.side_effects:
        return f"tool {tool.name!r} did not finish within {seconds:g} s; it may still take effect: do not call it again for this request."
    return f"tool {tool.name!r} did not finish within {seconds:g} s. Try again later or answer without it."


OnResult = Callable[[CallRecord], None]


class CallBatch:
    """One round's calls, run concurrently; :attr:`records` follows the calls' order."""

    __slots__ = ("_calls", "_ledger", "_on_result", "_round", "_timeout_for", "_tools", "records")

    def __init__(
        self,
        calls: Sequence[FuncCall],
        tools: Mapping[str, FuncTool],
        *,
        round: int,
        timeout_for: Callable[[FuncTool], float],
        ledger: SideEffectLedger,
        on_result: OnResult | None = None,
    ) -> None:
        self._calls = list(calls)
        self._tools = tools
        self._round = round
        self._timeout_for = timeout_for
        self._ledger = ledger
        self._on_result = on_result
        self.records: list[CallRecord | None] = [None] * len(self._calls)

    async def run(self) -> list[CallRecord]:
        """Run every call; on cancellation finish the records (see module doc) and re-raise."""
        seen: dict[tuple[str, str, int], int] = {}
        tasks: list[asyncio.Task[CallRecord]] = []
        for i, call in enumerate(self._calls):
            same = SideEffectLedger.key(call, 0)
            occurrence = seen.get(same, 0)
            seen[same] = occurrence + 1
            task = asyncio.get_running_loop().create_task(self._one(call, occurrence), name=f"tool {call.name}")
            task.add_done_callback(functools.partial(self._done, i))
            tasks.append(task)
        try:
            if tasks:
                await asyncio.wait(tasks)
        except asyncio.CancelledError:
            await self._wind_down(tasks)
            raise
        finally:
            self._collect(tasks)
        return self.finished_records()

    def _collect(self, tasks: list[asyncio.Task[CallRecord]]) -> None:
        for i, t in enumerate(tasks):
            if self.records[i] is not None or not t.done() or t.cancelled():
                continue
            exc = t.exception()
            if exc is None:
                self.records[i] = t.result()
            else:  # a bug around the tool (the tool's own exceptions are results already)
                call = self._calls[i]
                text = f"tool {call.name!r} could not be run: {type(exc).__name__}: {exc}"
                self.records[i] = CallRecord(call, error_result(call, text), CallStatus.FAILED, self._round)

    def finished_records(self) -> list[CallRecord]:
        """Records in call order; a call without one (cancelled before it ended) gets a cancelled record."""
        out: list[CallRecord] = []
        for i, call in enumerate(self._calls):
            rec = self.records[i]
            if rec is None:
                tool = self._tools.get(call.name)
                rec = CallRecord(
                    call,
                    error_result(call, cancelled_text(call.name)),
                    CallStatus.CANCELLED,
                    self._round,
                    0.0,
                    bool(tool and tool.return_direct),
                )
                self.records[i] = rec
            out.append(rec)
        return out

    async def _wind_down(self, tasks: list[asyncio.Task[CallRecord]]) -> None:
        side = [t for t, c in zip(tasks, self._calls, strict=True) if not t.done() and self._is_side_effecting(c)]
        for t, c in zip(tasks, self._calls, strict=True):
            if not t.done() and not self._is_side_effecting(c):
                t.cancel()
        rest = [t for t in tasks if not t.done()]
        if side:
            log.info("barge-in: letting %d side-effecting tool(s) finish", len(side))
        try:
            if rest:
                await asyncio.wait(rest)
        except asyncio.CancelledError:  # cancelled again (shutdown): stop waiting, abandon everything
            for t in rest:
                t.cancel()
        self._collect(tasks)
        self.finished_records()

    def _is_side_effecting(self, call: FuncCall) -> bool:
        tool = self._tools.get(call.name)
        return tool is not None and tool.side_effects

    def _done(self, i: int, task: asyncio.Task[CallRecord]) -> None:
        if task.cancelled() or task.exception() is not None:
            if not task.cancelled():
                log.error("tool runner bug for %r", self._calls[i].name, exc_info=task.exception())
            return
        rec = task.result()
        self.records[i] = rec
        if self._on_result is not None:
            self._on_result(rec)

    async def _one(self, call: FuncCall, occurrence: int) -> CallRecord:
        t0 = time.perf_counter()
        tool = self._tools.get(call.name)

        def record(result: ToolResult, status: CallStatus) -> CallRecord:
            direct = bool(tool and tool.return_direct)
            return CallRecord(call, result, status, self._round, (time.perf_counter() - t0) * 1000, direct)

        if tool is None:
            return record(error_result(call, unknown_tool_text(call.name, list(self._tools))), CallStatus.UNKNOWN_TOOL)
        try:
            args = tool.validate(call.arguments)
        except ToolArgumentsError as e:
            return record(tool.invalid_arguments_result(e, call.id), CallStatus.INVALID_ARGUMENTS)
        claim: asyncio.Future[ToolResult] | None = None
        if tool.side_effects:
            key = self._ledger.key(call, occurrence)
            earlier = self._ledger.get(key)
            if earlier is not None:
                first = await asyncio.shield(earlier)
                note = "(Already done for this request; not run again.)"
                return record(ToolResult(call.id, call.name, f"{first.content}\n{note}", first.is_error), CallStatus.REUSED)
            claim = self._ledger.claim(key)
        seconds = self._timeout_for(tool)
        try:
            async with asyncio.timeout(seconds):
                result = await tool.run(args, call_id=call.id)
            status = CallStatus.FAILED if result.is_error else CallStatus.OK
        except TimeoutError:
            log.warning("tool %r timed out after %g s", call.name, seconds)
            result, status = error_result(call, timeout_text(tool, seconds)), CallStatus.TIMEOUT
        except asyncio.CancelledError:
            if claim is not None and not claim.done():
                claim.set_result(error_result(call, cancelled_text(call.name)))
            raise
        if claim is not None and not claim.done():
            claim.set_result(result)
        return record(result, status)


def refuse(calls: Sequence[FuncCall], text: str, round: int, tools: Mapping[str, FuncTool]) -> list[CallRecord]:
    """Records for calls that will not run (round limit reached, answer ended abnormally)."""
    return [
        CallRecord(c, error_result(c, text), CallStatus.REFUSED, round, 0.0, bool((t := tools.get(c.name)) and t.return_direct))
        for c in calls
    ]


__all__ = [
    "FINISHED",
    "CallBatch",
    "CallRecord",
    "CallStatus",
    "SideEffectLedger",
    "cancelled_text",
    "error_result",
    "refuse",
    "timeout_text",
    "unknown_tool_text",
]
