"""A tool call the provider adapter dropped (its arguments were not one JSON object) is answered with an error the model sees."""

from __future__ import annotations

import pytest
from toolround_fakes import ADD, ScriptedGenerator, Turn, ctx_with, drain, every_call_answered, text_of

from genx.chunk import Role
from genx.errors import Done, ToolRoundLimitError
from genx.generators.providers.toolcalls import DroppedCall
from genx.toolrounds import ToolRounds

pytestmark = pytest.mark.timeout(30)

BROKEN = DroppedCall("add", "call_7", '{"a": 2, "b": ', "arguments are not one complete JSON object")


async def test_a_call_with_broken_json_gets_an_error_result_and_the_model_answers_in_the_next_turn() -> None:
    gen = ScriptedGenerator([Turn(final_meta={"dropped_tool_calls": [BROKEN]}), Turn("Sorry, I could not add those.")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD, question="what is 2 plus 3?"))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert text_of(chunks).strip() == "Sorry, I could not add those."
    second = gen.contexts[1]
    asked = [m for m in second if m.role == Role.ASSISTANT and m.tool_calls]
    assert [(c.name, c.arguments, c.id) for c in asked[0].tool_calls] == [("add", "{}", "call_7")]
    (result,) = [m.tool_result for m in second if m.tool_result is not None]
    assert result.call_id == "call_7" and result.is_error
    assert "not run" in result.content and '{"a": 2, "b": ' in result.content  # says why, shows what came
    assert every_call_answered(stream.report.messages)


async def test_a_model_that_keeps_sending_broken_calls_is_stopped_by_the_round_limit() -> None:
    gen = ScriptedGenerator([Turn(final_meta={"dropped_tool_calls": [BROKEN]})], repeat_last=True)
    stream = await ToolRounds(gen, max_tool_rounds=2).generate_stream("m", ctx_with(ADD))
    _, end = await drain(stream)
    assert isinstance(end, ToolRoundLimitError)
    assert len(gen.contexts) <= 4
    assert every_call_answered(stream.report.messages)
