"""Tool-round test helpers: a scripted generator (each call of ``generate_stream`` plays the next turn) and readers of the output."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from genx.chunk import FuncCall, Message, MessageChunk, Role, Text, Thinking
from genx.errors import Done
from genx.model import ModelContext, ModelContextBuilder, Usage
from genx.stream import Stream, StreamBuilder
from genx.toolrounds import tool_event
from genx.tools import FuncTool


@dataclass
class Turn:
    """One model answer: text, thinking, calls (with optional per-call chunk meta), then ``end``."""

    text: str = ""
    calls: list[FuncCall] = field(default_factory=list)
    thinking: list[Thinking] = field(default_factory=list)
    call_meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> chunk meta
    end: BaseException | None = None  # None: Done
    hold: asyncio.Event | None = None  # the answer stays open (after its text) until this is set
    usage: Usage = field(default_factory=lambda: Usage(prompt_tokens=10, generated_tokens=5))
    final_meta: dict[str, Any] = field(default_factory=dict)  # merged into the final usage chunk's meta


def call(name: str, arguments: str = "{}", id: str = "") -> FuncCall:
    return FuncCall(name, arguments, id or f"id_{name}")


class ScriptedGenerator:
    """Plays ``turns`` in order (the last one again when ``repeat_last``); records every context."""

    def __init__(self, turns: list[Turn], *, repeat_last: bool = False) -> None:
        self.turns = list(turns)
        self.repeat_last = repeat_last
        self.contexts: list[list[Message]] = []
        self.closed: list[asyncio.Event] = []

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        n = len(self.contexts)
        self.contexts.append(list(ctx.messages()))
        if n >= len(self.turns) and not self.repeat_last:
            raise AssertionError(f"the generator was asked for turn {n + 1} but the script has {len(self.turns)}")
        turn = self.turns[min(n, len(self.turns) - 1)]
        b = StreamBuilder()
        closed = asyncio.Event()
        self.closed.append(closed)
        b.on_close(lambda _e: closed.set())
        for t in turn.thinking:
            b.push(MessageChunk(role=Role.ASSISTANT, part=t))
        for word in turn.text.split(" ") if turn.text else []:
            b.push(MessageChunk(role=Role.ASSISTANT, part=Text(word + " ")))
        for c in turn.calls:
            b.push(MessageChunk(role=Role.ASSISTANT, tool_call=FuncCall(c.name, c.arguments, c.id), meta=turn.call_meta.get(c.id)))

        def finish() -> None:
            if b.ended:
                return
            meta = {"usage": turn.usage, "finish_reason": "stop", "family": "scripted", **turn.final_meta}
            b.push(MessageChunk(role=Role.ASSISTANT, meta=meta))
            b.abort(turn.end if turn.end is not None else Done())

        if turn.hold is None:
            finish()
        else:
            hold = turn.hold

            async def later() -> None:
                await hold.wait()
                finish()

            task = asyncio.get_running_loop().create_task(later())
            b.on_close(lambda _e: task.cancel())
        return b.stream

    async def invoke(self, pattern: str, ctx: ModelContext, tool: Any) -> tuple[Usage, FuncCall]:
        raise NotImplementedError


async def drain(stream: Stream) -> tuple[list[MessageChunk], BaseException]:
    """Every chunk and the end error (Done on a normal end)."""
    out: list[MessageChunk] = []
    while True:
        try:
            out.append(await stream.next())
        except Exception as e:
            return out, e


def ctx_with(*tools: FuncTool, question: str = "question?") -> Any:
    b = ModelContextBuilder().user(question)
    b.tool(*tools)
    return b.build()


def text_of(chunks: list[MessageChunk]) -> str:
    return "".join(c.part.text for c in chunks if isinstance(c.part, Text) and not c.label)


def events(chunks: list[MessageChunk]) -> list[tuple[str, str, str]]:
    out = []
    for c in chunks:
        ev = tool_event(c)
        if ev is not None:
            out.append((c.label, ev.name, ev.status))
    return out


def results_in(messages: list[Message]) -> list[tuple[str, str, bool]]:
    return [(m.tool_result.call_id, m.tool_result.content, m.tool_result.is_error) for m in messages if m.tool_result is not None]


def every_call_answered(messages: list[Message]) -> bool:
    asked = [c.id for m in messages if m.role == Role.ASSISTANT for c in m.tool_calls]
    answered = [m.tool_result.call_id for m in messages if m.tool_result is not None]
    return sorted(asked) == sorted(answered)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


ADD = FuncTool.from_function(add)
