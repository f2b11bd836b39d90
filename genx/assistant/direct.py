"""A routed intent as a two-turn "generator" for :class:`~genx.toolrounds.ToolRounds`.

The first turn proposes the one call the router chose; the second answers with
the tool's result, which the tools already write as a sentence to speak. So a
routed request goes through the same runner as a cloud model's tool calls:
validation, timeout, cancellation on barge-in, the side-effect ledger, the tool
events for the UI and the message-level history. With ``answer`` set, the
second turn is instead one short answer round of that generator with the result
in its context (off by default: measured slower and less exact, see
``bench/tools.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

from genx.chunk import FuncCall, Message, MessageChunk, Role, Text
from genx.generators import Generator
from genx.model import ModelContext, ModelContextBuilder, ModelParams, MultiModelContext, Prompt, Usage
from genx.stream import Stream, StreamBuilder
from genx.tools import FuncTool, Tool

__all__ = ["ANSWER_PROMPT", "DirectTurns", "Saying", "WithoutTools"]

ANSWER_PROMPT = "Tell the user the tool result above in one short sentence. Keep every number and name exactly as it is."


class WithoutTools:
    """``ctx`` with no tools (the plain answering path, and the in-process model, which refuses tools)."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: ModelContext) -> None:
        self._ctx = ctx

    def prompts(self) -> Iterator[Prompt]:
        return self._ctx.prompts()

    def messages(self) -> Iterator[Message]:
        return self._ctx.messages()

    def cots(self) -> Iterator[str]:
        return self._ctx.cots()

    def tools(self) -> Iterator[Tool]:
        return iter(())

    def params(self) -> ModelParams | None:
        return self._ctx.params()


def _finished(b: StreamBuilder) -> Stream:
    b.push(MessageChunk(role=Role.ASSISTANT, meta={"usage": Usage(), "finish_reason": "stop", "family": "assistant"}))
    b.done()
    return b.stream


class DirectTurns:
    """Proposes ``call``, then says its result (or hands it to ``answer`` for one round)."""

    __slots__ = ("answer", "answer_pattern", "call")

    def __init__(self, call: FuncCall, *, answer: Generator | None = None, answer_pattern: str = "") -> None:
        self.call = call
        self.answer = answer
        self.answer_pattern = answer_pattern

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        msgs = list(ctx.messages())
        last = msgs[-1] if msgs else None
        result = last.tool_result if last is not None and last.role == Role.TOOL else None
        b = StreamBuilder()
        if result is None or result.call_id != self.call.id:
            b.push(MessageChunk(role=Role.ASSISTANT, tool_call=FuncCall(self.call.name, self.call.arguments, self.call.id)))
            return _finished(b)
        if self.answer is not None and not result.is_error:
            extra = ModelContextBuilder().prompt(ANSWER_PROMPT, name="tool answer").params(ModelParams(max_tokens=60)).build()
            return await self.answer.generate_stream(self.answer_pattern or pattern, WithoutTools(MultiModelContext(ctx, extra)))
        b.push(MessageChunk(role=Role.ASSISTANT, part=Text(result.content)))
        return _finished(b)

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        raise NotImplementedError("a routed intent does not invoke tools")


class Saying:
    """A "generator" that answers ``text`` (a decided answer, e.g. "I can't know that offline"), through the same rounds."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        b = StreamBuilder()
        b.push(MessageChunk(role=Role.ASSISTANT, part=Text(self.text)))
        return _finished(b)

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        raise NotImplementedError("a decided answer does not invoke tools")
