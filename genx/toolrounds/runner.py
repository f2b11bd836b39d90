"""The automatic tool-call rounds over any :class:`~genx.generators.Generator`.

:class:`ToolRounds` wraps a generator and is one itself. For each request:

1. generate; forward text / thinking chunks as they arrive (the answer is on the
   normal channel), report each proposed call with tool events
   (:mod:`genx.toolrounds.events`);
2. no calls → that was the answer: end the stream the way the model's ended;
3. calls → run them (:class:`~genx.toolrounds.execute.CallBatch`: concurrently,
   validated, each with a timeout, errors become results), append the assistant's
   tool-call message and the results to the context, and generate again;
4. a ``return_direct`` tool that succeeded ends the request: its result is the
   answer (sent as text and kept as an assistant message);
5. after ``max_tool_rounds`` rounds, further calls are not run: they get a
   "limit reached, answer now" result and the model gets one more turn; if it
   still asks for tools the stream ends with :class:`~genx.errors.ToolRoundLimitError`.

Text of every turn is forwarded, including a turn that also calls tools
("I'll check the weather for you."), so speech can start before the tools run.
Each turn's final usage chunk is folded into one final part-less chunk
``meta={"usage", "finish_reason", "tool_rounds"}`` before the end.

History: :attr:`ToolRoundsStream.report` holds the messages the rounds produced
(assistant messages as folded by the provider accumulator, so Anthropic thinking
signatures, Gemini per-call thought signatures and the provider family stay on
them; the tool results in call order; the final answer). It is complete when the
stream ended; after the consumer closed the stream (barge-in), ``await
stream.wait_report()`` returns it once running tools were cancelled (or, for
side-effecting tools, finished): the partial turn is kept with
``meta["interrupted"] = True`` and every call has a result, so the history can be
stored and sent back as is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field

from genx.chunk import FuncCall, Message, MessageChunk, Role, Text
from genx.errors import Done, StreamClosedError, ToolRoundLimitError
from genx.generators import Generator
from genx.generators.providers.accumulate import MessageAccumulator
from genx.model import ModelContext, ModelContextBuilder, MultiModelContext, Usage
from genx.stream import BuiltStream, Stream, StreamBuilder
from genx.toolrounds.events import ToolEvent, ToolEventKind, event_chunk
from genx.toolrounds.execute import CallBatch, CallRecord, CallStatus, SideEffectLedger, error_result, refuse
from genx.tools import FuncTool

log = logging.getLogger(__name__)

DEFAULT_MAX_TOOL_ROUNDS = 4
DEFAULT_TOOL_TIMEOUT_S = 15.0


def limit_text(rounds: int) -> str:
    return (
        f"not run: this request already used its {rounds} tool round(s). "
        "Answer the user now with the information you have, without calling tools."
    )


def ended_early_text(end: BaseException) -> str:
    return f"not run: the answer ended early ({end}) before the call could run."


def interrupted_text(name: str) -> str:
    return f"tool {name!r} was not run: the user interrupted the answer."


@dataclass(slots=True)
class ToolRoundsReport:
    """What one request's rounds produced. ``end`` is ``None`` while running."""

    messages: list[Message] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    rounds: int = 0  # tool rounds that ran
    turns: int = 0  # model generations
    usage: Usage | None = None
    finish_reason: str = ""
    end: BaseException | None = None
    interrupted: bool = False
    return_direct: bool = False

    def finished(self) -> list[CallRecord]:
        """Calls with a real outcome (their results are usable history)."""
        return [c for c in self.calls if c.finished]

    def unfinished(self) -> list[CallRecord]:
        return [c for c in self.calls if not c.finished]

    @property
    def answer(self) -> str:
        """Text of the last assistant message (the answer), or ``""``."""
        for m in reversed(self.messages):
            if m.role == Role.ASSISTANT:
                return m.text()
        return ""


class ToolRoundsStream(BuiltStream):
    """The stream :meth:`ToolRounds.generate_stream` returns; see the module docstring."""

    __slots__ = ("_task", "report")

    def __init__(self, builder: StreamBuilder) -> None:
        super().__init__(builder)
        self.report = ToolRoundsReport()
        self._task: asyncio.Task[None] | None = None

    @property
    def messages(self) -> list[Message]:
        return self.report.messages

    async def wait_report(self) -> ToolRoundsReport:
        """The report once the runner stopped (normal end, error, or closed and cleaned up)."""
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait([task])
        return self.report


class ToolRounds:
    """A :class:`Generator` that runs the tool calls of ``generator``'s answers (module docstring)."""

    def __init__(
        self,
        generator: Generator,
        *,
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
        tool_timeout_s: float = DEFAULT_TOOL_TIMEOUT_S,
        timeouts: Mapping[str, float] | None = None,
    ) -> None:
        if not isinstance(max_tool_rounds, int) or isinstance(max_tool_rounds, bool) or max_tool_rounds < 0:
            raise ValueError(f"max_tool_rounds must be an integer >= 0, got {max_tool_rounds!r}")
        for name, s in {"tool_timeout_s": tool_timeout_s, **dict(timeouts or {})}.items():
            if not isinstance(s, int | float) or isinstance(s, bool) or not s > 0:
                raise ValueError(f"timeout for {name!r} must be a number of seconds > 0, got {s!r}")
        self.generator = generator
        self.max_tool_rounds = max_tool_rounds
        self.tool_timeout_s = float(tool_timeout_s)
        self.timeouts = dict(timeouts or {})

    def timeout_for(self, tool: FuncTool) -> float:
        return float(self.timeouts.get(tool.name, self.tool_timeout_s))

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> ToolRoundsStream:
        return await self.run(pattern, ctx)

    async def run(self, pattern: str, ctx: ModelContext, *, ledger: SideEffectLedger | None = None) -> ToolRoundsStream:
        """Start the rounds. Pass one ``ledger`` to every run of the same user request (e.g. a
        re-generated answer) so its side-effecting calls are not repeated."""
        tools = {t.name: t for t in ctx.tools() if isinstance(t, FuncTool)}
        first = await self.generator.generate_stream(pattern, ctx)  # settings errors raise here
        builder = StreamBuilder()
        stream = ToolRoundsStream(builder)
        builder.stream = stream
        run = _Run(self, builder, stream.report, pattern, ctx, tools, ledger if ledger is not None else SideEffectLedger())
        task = asyncio.get_running_loop().create_task(run.drive(first), name="tool rounds")
        stream._task = task

        def _cancel(_exc: BaseException | None) -> None:
            if not task.done():
                task.cancel()

        builder.on_close(_cancel)
        return stream

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        return await self.generator.invoke(pattern, ctx, tool)


@dataclass(slots=True)
class _Turn:
    stream: Stream
    number: int
    acc: MessageAccumulator = field(default_factory=MessageAccumulator)
    calls: list[FuncCall] = field(default_factory=list)
    # calls the provider adapter dropped (arguments not one JSON object, cut at max_tokens): answered with an error
    dropped: list[FuncCall] = field(default_factory=list)


def malformed_text(call: FuncCall, reason: str) -> str:
    raw = call.arguments[:200]
    return (
        f"the call of {call.name!r} was not run: {reason or 'its arguments were not one JSON object'} "
        f"(received {raw!r}). Call it again with one JSON object that matches its parameters, or answer without it."
    )


class _Run:
    """The state of one request's rounds."""

    __slots__ = ("_reasons", "b", "batch", "ctx", "ledger", "owner", "pattern", "report", "tools", "turn")

    def __init__(
        self,
        owner: ToolRounds,
        builder: StreamBuilder,
        report: ToolRoundsReport,
        pattern: str,
        ctx: ModelContext,
        tools: dict[str, FuncTool],
        ledger: SideEffectLedger,
    ) -> None:
        self.owner = owner
        self.b = builder
        self.report = report
        self.pattern = pattern
        self.ctx = ctx
        self.tools = tools
        self.ledger = ledger
        self.turn: _Turn | None = None
        self.batch: CallBatch | None = None
        self._reasons: dict[str, str] = {}  # malformed call id → why the adapter dropped it

    # -- output ---------------------------------------------------------------
    def push(self, chunk: MessageChunk) -> None:
        if not self.b.ended:
            self.b.push(chunk)

    def emit_result(self, rec: CallRecord) -> None:
        ev = ToolEvent(
            ToolEventKind.RESULT, rec.round, rec.call.id, rec.call.name, rec.call.arguments, rec.result, rec.status, rec.elapsed_ms
        )
        self.push(event_chunk(ev))

    def record(self, records: list[CallRecord], *, emit: bool) -> None:
        self.report.calls.extend(records)
        self.report.messages.extend(Message.tool(r.result) for r in records)
        if emit:
            for r in records:
                self.emit_result(r)

    def finish(self, end: BaseException) -> None:
        r = self.report
        r.end = end
        if self.b.ended:
            return
        self.b.push(MessageChunk(role=Role.ASSISTANT, meta={"usage": r.usage, "finish_reason": r.finish_reason, "tool_rounds": r.rounds}))
        self.b.abort(end)

    # -- the rounds -------------------------------------------------------------
    async def drive(self, first: Stream) -> None:
        try:
            await self.rounds(first)
        except asyncio.CancelledError:
            await self.interrupted()
        except Exception as e:  # a generator that fails to start a later turn, or a bug: end the stream with it
            log.info("tool rounds ended with %s: %s", type(e).__name__, e)
            self.finish(e)

    async def rounds(self, stream: Stream) -> None:
        r = self.report
        refused = False
        while True:
            r.turns += 1
            turn = self.turn = _Turn(stream, r.turns)
            end = await self.pump(turn)
            self.turn = None
            msg = turn.acc.message()
            if turn.acc.usage is not None:
                r.usage = turn.acc.usage if r.usage is None else r.usage.add(turn.acc.usage)
            r.finish_reason = turn.acc.finish_reason or r.finish_reason
            if not turn.calls and not turn.dropped:
                if msg.parts:
                    r.messages.append(msg)
                self.finish(end)
                return
            # a malformed call is in the history as a call with no arguments, answered by the error that says why
            msg.tool_calls.extend(FuncCall(c.name, "{}", c.id) for c in turn.dropped)
            r.messages.append(msg)
            if turn.dropped:
                self.record([self.malformed(c, turn.number) for c in turn.dropped], emit=True)
            if not isinstance(end, Done):
                self.record(refuse(turn.calls, ended_early_text(end), turn.number, self.tools), emit=True)
                self.finish(end)
                return
            if r.rounds >= self.owner.max_tool_rounds:
                self.record(refuse(turn.calls, limit_text(r.rounds), turn.number, self.tools), emit=True)
                if refused:
                    self.finish(ToolRoundLimitError(r.rounds))
                    return
                refused = True
            elif turn.calls:
                r.rounds += 1
                self.batch = CallBatch(
                    turn.calls,
                    self.tools,
                    round=turn.number,
                    timeout_for=self.owner.timeout_for,
                    ledger=self.ledger,
                    on_result=self.emit_result,
                )
                records = await self.batch.run()
                self.batch = None
                self.record(records, emit=False)
                direct = [x for x in records if x.return_direct and x.status is CallStatus.OK]
                if direct:
                    self.answer_directly(direct)
                    return
            else:
                r.rounds += 1  # only malformed calls: the model gets its errors and another turn
            follow = ModelContextBuilder().messages(r.messages).build()
            stream = await self.owner.generator.generate_stream(self.pattern, MultiModelContext(self.ctx, follow))

    async def pump(self, turn: _Turn) -> BaseException:
        """Forward one turn's chunks; return its end (``Done``, another state, or the error)."""
        while True:
            try:
                c = await turn.stream.next()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                return e
            turn.acc.add(c)
            m = c.meta
            if m and m.get("choice"):
                continue  # other choices (n > 1) are not the conversation
            call = c.tool_call
            if call is not None:
                turn.calls.append(call)
                self.announce_call(turn.number, call)
                continue
            for d in (m.get("dropped_tool_calls") or ()) if m else ():
                bad = FuncCall(str(getattr(d, "name", "") or "unnamed"), str(getattr(d, "arguments", "")), str(getattr(d, "id", "")))
                bad.id = bad.id or f"call_malformed_{turn.number}_{len(turn.dropped)}"
                turn.dropped.append(bad)
                self._reasons[bad.id] = str(getattr(d, "reason", ""))
                self.announce_call(turn.number, bad)
            if c.part is None and m and "finish_reason" in m:
                continue  # the turn's usage chunk: folded into the final one
            self.push(c)

    def announce_call(self, round_no: int, call: FuncCall) -> None:
        for kind, args in (
            (ToolEventKind.CALL_START, ""),
            (ToolEventKind.ARGS_DELTA, call.arguments),
            (ToolEventKind.CALL_END, call.arguments),
        ):
            self.push(event_chunk(ToolEvent(kind, round_no, call.id, call.name, args)))

    def malformed(self, call: FuncCall, round_no: int) -> CallRecord:
        result = error_result(FuncCall(call.name, "{}", call.id), malformed_text(call, self._reasons.pop(call.id, "")))
        return CallRecord(call, result, CallStatus.INVALID_ARGUMENTS, round_no, 0.0)

    def answer_directly(self, direct: list[CallRecord]) -> None:
        text = "\n".join(x.result.content for x in direct)
        self.push(MessageChunk(role=Role.ASSISTANT, part=Text(text)))
        msg = Message.assistant(text)
        msg.meta["return_direct"] = [x.call.name for x in direct]
        self.report.messages.append(msg)
        self.report.return_direct = True
        self.report.finish_reason = "return_direct"
        self.finish(Done())

    async def interrupted(self) -> None:
        """The consumer closed the stream: keep what happened, give every call a result."""
        r = self.report
        r.interrupted = True
        turn, self.turn = self.turn, None
        if turn is not None:
            with suppress(Exception):
                await turn.stream.close()  # cancels the generation
            msg = turn.acc.message()
            msg.meta["interrupted"] = True
            if msg.parts or turn.calls:
                r.messages.append(msg)
            cancelled = [CallRecord(c, error_result(c, interrupted_text(c.name)), CallStatus.CANCELLED, turn.number) for c in turn.calls]
            self.record(cancelled, emit=False)
        elif self.batch is not None:
            self.record(self.batch.finished_records(), emit=False)
            self.batch = None
        r.end = StreamClosedError("the tool-rounds stream")
        log.info("tool rounds interrupted after %d round(s); %d call(s) finished", r.rounds, len(r.finished()))


__all__ = ["DEFAULT_MAX_TOOL_ROUNDS", "DEFAULT_TOOL_TIMEOUT_S", "ToolRounds", "ToolRoundsReport", "ToolRoundsStream"]
