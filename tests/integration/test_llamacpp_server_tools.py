"""Tool-call rounds against a real ``llama_cpp.server`` (SmolLM2-135M on 127.0.0.1): call → result → final answer.

The server is the one of :mod:`test_llamacpp_server` (same fixture). SmolLM2-135M does
not call tools on its own through the server's chat template, so the first turn is
*forced*: ``tool_choice`` names the tool, and the server constrains the output to the
tool's JSON schema with a grammar. Even so the model rambles inside the string
(``"17 * 23 = 406, but in this context…"`` until ``max_tokens`` cuts the JSON, or a raw
newline inside the string, which is not JSON), so the schema here bounds the expression to
one short line of arithmetic characters (a ``pattern`` the grammar enforces); the function
is the real offline calculator's. The model's arithmetic is often wrong
("17 * 23.08"): the test checks the round trip (a valid call, the real tool's result or
error fed back under the call's id, a free text answer after it), not the model's maths.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_llamacpp_server import gen, llama_server  # noqa: F401  (the fixture)

from genx.chunk import Message, Role, Text
from genx.errors import Done, Truncated
from genx.generators import Generator
from genx.model import ModelContext, ModelContextBuilder, ModelParams, MultiModelContext
from genx.stream import Stream
from genx.toolbox.calc import calculator_tool
from genx.toolrounds import CallStatus, ToolEventKind, ToolRounds, tool_event
from genx.tools import FuncTool

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(240)]


class ForcedFirstTurn:
    """Forces ``tool`` (``tool_choice``) on a turn that has no tool result yet; later turns go as they are."""

    def __init__(self, inner: Generator, tool: str) -> None:
        self.inner = inner
        self.tool = tool
        self.forced_turns = 0
        self.contexts: list[list[Message]] = []

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        self.contexts.append(list(ctx.messages()))
        if not any(m.role == Role.TOOL for m in ctx.messages()):
            self.forced_turns += 1
            force = ModelParams(extra={"tool_choice": {"type": "function", "function": {"name": self.tool}}})
            ctx = MultiModelContext(ctx, ModelContextBuilder().params(force).build())
        return await self.inner.generate_stream(pattern, ctx)

    async def invoke(self, pattern, ctx, tool):  # type: ignore[no-untyped-def]
        return await self.inner.invoke(pattern, ctx, tool)


async def test_a_tool_round_trip_on_a_real_server_calls_the_tool_and_answers_with_its_result(llama_server: str) -> None:  # noqa: F811
    real = calculator_tool()
    expression = {"type": "string", "pattern": "^[0-9a-z *+/().-]{1,24}$"}  # one short line: the grammar allows raw newlines otherwise
    schema = {"type": "object", "properties": {"expression": expression}, "required": ["expression"]}
    calc = FuncTool(real.name, real.description, schema, lambda args: real.fn(args["expression"]))
    server = gen(llama_server)
    forced = ForcedFirstTurn(server, calc.name)
    ctx = (
        ModelContextBuilder()
        .prompt("You are a helpful assistant. Use the calculate tool for arithmetic, then answer in one short sentence.")
        .user("What is 17 times 23?")
        .tool(calc)
        .params(max_tokens=48, temperature=0.0)
        .build()
    )
    stream = await ToolRounds(forced, max_tool_rounds=2).generate_stream("smollm2", ctx)
    chunks = []
    end: BaseException
    while True:
        try:
            chunks.append(await stream.next())
        except Exception as e:  # the stream's end
            end = e
            break
    await server.aclose()
    report = stream.report
    assert isinstance(end, Done | Truncated), end
    assert forced.forced_turns == 1  # only the first turn was forced
    (rec,) = report.calls
    assert rec.call.name == "calculate" and rec.status in (CallStatus.OK, CallStatus.FAILED), rec
    args = json.loads(rec.call.arguments)
    assert isinstance(args.get("expression"), str) and args["expression"].strip()
    expected = real.fn(args["expression"]) if rec.status is CallStatus.OK else None  # what the real tool says for the model's expression
    assert expected is None or rec.result.content == expected, (args, rec.result)
    # the second (free) turn was sent the call and its result under the same id
    second = forced.contexts[1]
    assert [m.role for m in second] == [Role.USER, Role.ASSISTANT, Role.TOOL], second
    assert second[2].tool_result is not None and second[2].tool_result.call_id == second[1].tool_calls[0].id == rec.call.id
    kinds = [ev.kind for ev in (tool_event(c) for c in chunks) if ev is not None]
    assert kinds == [ToolEventKind.CALL_START, ToolEventKind.ARGS_DELTA, ToolEventKind.CALL_END, ToolEventKind.RESULT]
    roles = [m.role for m in report.messages]
    assert roles == [Role.ASSISTANT, Role.TOOL, Role.ASSISTANT], report.messages
    assert report.messages[0].tool_calls[0].id and report.messages[1].tool_result.call_id == report.messages[0].tool_calls[0].id  # type: ignore[union-attr]
    final = "".join(c.part.text for c in chunks if isinstance(c.part, Text) and not c.label)
    assert final.strip() and final == report.messages[2].text(), final
    assert report.rounds == 1 and report.turns == 2
