"""The tool-call round runner over scripted generators (genx.toolrounds)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from toolround_fakes import ADD, ScriptedGenerator, Turn, call, ctx_with, drain, events, every_call_answered, results_in, text_of

from genx.chunk import Role, Thinking
from genx.errors import Done, ToolRoundLimitError, Truncated
from genx.generators import Generator
from genx.generators.providers import RateLimitError
from genx.model import Usage
from genx.toolrounds import (
    LABEL_CALL_ARGS,
    LABEL_CALL_END,
    LABEL_CALL_START,
    LABEL_RESULT,
    TOOL_EVENT_LABELS,
    CallStatus,
    ToolEventKind,
    ToolRounds,
    is_tool_event,
    tool_event,
)
from genx.tools import FuncTool


async def test_the_runner_is_a_generator() -> None:
    assert isinstance(ToolRounds(ScriptedGenerator([])), Generator)


async def test_an_answer_without_calls_passes_through_as_one_turn() -> None:
    gen = ScriptedGenerator([Turn("Hello there.")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert text_of(chunks) == "Hello there. "
    assert events(chunks) == []
    assert [m.text() for m in stream.report.messages] == ["Hello there. "]
    assert stream.report.rounds == 0 and stream.report.turns == 1


async def test_two_rounds_feed_each_result_back_before_the_final_answer() -> None:
    gen = ScriptedGenerator(
        [
            Turn("Let me add.", calls=[call("add", '{"a": 17, "b": 23}', "c1")]),
            Turn(calls=[call("add", '{"a": 40, "b": 2}', "c2")]),
            Turn("It is 42."),
        ]
    )
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert text_of(chunks) == "Let me add. It is 42. "
    second, third = gen.contexts[1], gen.contexts[2]
    assert [m.role for m in second] == [Role.USER, Role.ASSISTANT, Role.TOOL]
    assert second[1].tool_calls[0].id == "c1" and second[1].text() == "Let me add. "
    assert results_in(second) == [("c1", "40", False)]
    assert results_in(third) == [("c1", "40", False), ("c2", "42", False)]
    report = stream.report
    assert [m.role for m in report.messages] == [Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert report.answer == "It is 42. "
    assert report.rounds == 2 and report.turns == 3
    assert every_call_answered(report.messages)


async def test_each_call_is_reported_started_with_arguments_complete_then_with_its_result() -> None:
    gen = ScriptedGenerator([Turn(calls=[call("add", '{"a": 1, "b": 2}', "c1")]), Turn("3")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    chunks, _ = await drain(stream)
    evs = [c for c in chunks if is_tool_event(c)]
    assert [c.label for c in evs] == [LABEL_CALL_START, LABEL_CALL_ARGS, LABEL_CALL_END, LABEL_RESULT]
    payloads = [tool_event(c) for c in evs]
    assert [p.kind for p in payloads if p] == [
        ToolEventKind.CALL_START,
        ToolEventKind.ARGS_DELTA,
        ToolEventKind.CALL_END,
        ToolEventKind.RESULT,
    ]
    assert payloads[1] is not None and payloads[1].arguments == '{"a": 1, "b": 2}'
    res = payloads[3]
    assert res is not None and res.result is not None and res.result.content == "3" and res.status == "ok"
    assert evs[3].role == Role.TOOL and evs[0].role == Role.ASSISTANT
    for c in evs:  # nothing to speak, nothing to run again
        assert c.part is None and c.tool_call is None
    assert all(c.label not in TOOL_EVENT_LABELS for c in chunks if c.part is not None)


async def test_parallel_calls_run_concurrently_and_results_keep_the_call_order() -> None:
    a_started, b_started, b_done = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow_a() -> str:
        """Waits for b."""
        a_started.set()
        await b_started.wait()  # deadlocks unless b runs at the same time
        await b_done.wait()
        return "A"

    async def fast_b() -> str:
        """Waits for a."""
        b_started.set()
        await a_started.wait()
        b_done.set()
        return "B"

    tools = [FuncTool.from_function(slow_a), FuncTool.from_function(fast_b)]
    gen = ScriptedGenerator([Turn(calls=[call("slow_a", "", "ca"), call("fast_b", "", "cb")]), Turn("done")])
    stream = await ToolRounds(gen, tool_timeout_s=5).generate_stream("m", ctx_with(*tools))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert [(n, s) for label, n, s in events(chunks) if label == LABEL_RESULT] == [("fast_b", "ok"), ("slow_a", "ok")]
    assert results_in(gen.contexts[1]) == [("ca", "A", False), ("cb", "B", False)]


async def test_a_tool_that_raises_becomes_an_error_result_the_model_sees() -> None:
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    gen = ScriptedGenerator([Turn(calls=[call("explode", "{}", "c1")]), Turn("Sorry, that failed.")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(FuncTool.from_function(explode)))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    [(cid, content, is_error)] = results_in(gen.contexts[1])
    assert cid == "c1" and is_error and "RuntimeError: disk on fire" in content
    assert stream.report.calls[0].status is CallStatus.FAILED
    assert text_of(chunks) == "Sorry, that failed. "


async def test_a_hanging_tool_times_out_while_the_other_calls_of_its_round_finish() -> None:
    never = asyncio.Event()

    async def hang() -> str:
        """Never returns."""
        await never.wait()
        return "unreachable"

    gen = ScriptedGenerator([Turn(calls=[call("hang", "{}", "c1"), call("add", '{"a": 2, "b": 2}', "c2")]), Turn("ok")])
    runner = ToolRounds(gen, tool_timeout_s=5, timeouts={"hang": 0.05})
    stream = await runner.generate_stream("m", ctx_with(FuncTool.from_function(hang), ADD))
    _, end = await drain(stream)
    assert isinstance(end, Done)
    (_c1, t1, e1), (c2, t2, e2) = results_in(gen.contexts[1])
    assert e1 and "did not finish within 0.05 s" in t1
    assert (c2, t2, e2) == ("c2", "4", False)
    assert [c.status for c in stream.report.calls] == [CallStatus.TIMEOUT, CallStatus.OK]


async def test_an_unknown_tool_name_is_an_error_result_naming_the_available_tools() -> None:
    gen = ScriptedGenerator([Turn(calls=[call("teleport", "{}", "c1")]), Turn("I cannot do that.")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    _, end = await drain(stream)
    assert isinstance(end, Done)
    [(_, content, is_error)] = results_in(gen.contexts[1])
    assert is_error and "'teleport'" in content and "available tools: add" in content
    assert stream.report.calls[0].status is CallStatus.UNKNOWN_TOOL


async def test_malformed_json_arguments_are_an_error_result_and_the_tool_never_runs() -> None:
    ran: list[int] = []

    def count(n: int) -> int:
        """Counts."""
        ran.append(n)
        return n

    gen = ScriptedGenerator([Turn(calls=[call("count", '{"n": 3', "c1"), call("count", '{"n": "three"}', "c2")]), Turn("hm")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(FuncTool.from_function(count)))
    _, end = await drain(stream)
    assert isinstance(end, Done)
    assert ran == []
    (_, t1, e1), (_, t2, e2) = results_in(gen.contexts[1])
    assert e1 and "not valid JSON" in t1
    assert e2 and "n:" in t2 and "Call the tool again" in t2
    assert [c.status for c in stream.report.calls] == [CallStatus.INVALID_ARGUMENTS, CallStatus.INVALID_ARGUMENTS]


async def test_a_model_looping_on_tools_is_asked_to_answer_after_the_last_round() -> None:
    ran: list[int] = []

    def ping() -> str:
        """Ping."""
        ran.append(1)
        return "pong"

    looping = Turn(calls=[call("ping", "{}", "p")])
    gen = ScriptedGenerator([looping, looping, looping, Turn("I pinged twice.")])
    stream = await ToolRounds(gen, max_tool_rounds=2).generate_stream("m", ctx_with(FuncTool.from_function(ping)))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert len(ran) == 2
    assert text_of(chunks) == "I pinged twice. "
    refused = [r for r in stream.report.calls if r.status is CallStatus.REFUSED]
    assert len(refused) == 1 and "already used its 2 tool round(s)" in refused[0].result.content
    assert "without calling tools" in results_in(gen.contexts[3])[-1][1]
    assert every_call_answered(stream.report.messages)


async def test_a_model_that_keeps_calling_tools_ends_with_a_limit_error_and_a_consistent_history() -> None:
    gen = ScriptedGenerator([Turn(calls=[call("add", '{"a": 1, "b": 1}', "x")])], repeat_last=True)
    stream = await ToolRounds(gen, max_tool_rounds=1).generate_stream("m", ctx_with(ADD))
    _chunks, end = await drain(stream)
    assert isinstance(end, ToolRoundLimitError)
    assert "after 1 tool round(s)" in str(end) and "max_tool_rounds" in str(end)
    assert len(gen.contexts) == 3  # one round, one refused turn, one last turn: bounded
    assert [r.status for r in stream.report.calls] == [CallStatus.OK, CallStatus.REFUSED, CallStatus.REFUSED]
    assert every_call_answered(stream.report.messages)
    assert stream.report.end is end


async def test_a_return_direct_tool_result_is_the_answer_and_ends_the_rounds() -> None:
    def what_time() -> str:
        """Time."""
        return "It is 10:15."

    tool = FuncTool.from_function(what_time, return_direct=True)
    gen = ScriptedGenerator([Turn(calls=[call("what_time", "{}", "c1")])])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(tool))
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert len(gen.contexts) == 1
    assert text_of(chunks) == "It is 10:15."
    report = stream.report
    assert report.return_direct and report.answer == "It is 10:15."
    assert [m.role for m in report.messages] == [Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert report.messages[-1].meta["return_direct"] == ["what_time"]


async def test_a_failing_return_direct_tool_goes_back_to_the_model() -> None:
    def what_time(zone: str) -> str:
        """Time."""
        raise ValueError(f"unknown time zone {zone!r}")

    tool = FuncTool.from_function(what_time, return_direct=True)
    gen = ScriptedGenerator([Turn(calls=[call("what_time", '{"zone": "Mars/Base"}', "c1")]), Turn("I don't know that zone.")])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(tool))
    chunks, _ = await drain(stream)
    assert len(gen.contexts) == 2 and not stream.report.return_direct
    assert text_of(chunks) == "I don't know that zone. "


async def test_provider_signatures_stay_on_the_history_messages() -> None:
    gen = ScriptedGenerator(
        [
            Turn(
                thinking=[Thinking("need a sum", ""), Thinking("", "SIG-A")],
                calls=[call("add", '{"a": 1, "b": 1}', "c1")],
                call_meta={"c1": {"thought_signature": "SIG-G"}},
            ),
            Turn("2"),
        ]
    )
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    await drain(stream)
    first = stream.report.messages[0]
    assert [(p.text, p.signature) for p in first.parts if isinstance(p, Thinking)] == [("need a sum", "SIG-A")]
    assert first.meta["thought_signatures"] == {"c1": "SIG-G"}
    assert first.meta["provider_family"] == "scripted"
    assert gen.contexts[1][1] is not None and gen.contexts[1][1].meta["thought_signatures"] == {"c1": "SIG-G"}


async def test_an_error_in_a_later_turn_ends_the_stream_with_it_and_keeps_the_earlier_round() -> None:
    err = RateLimitError("openai", "slow down")
    gen = ScriptedGenerator([Turn(calls=[call("add", '{"a": 1, "b": 1}', "c1")]), Turn("partial", end=err)])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    _chunks, end = await drain(stream)
    assert end is err
    assert [m.role for m in stream.report.messages] == [Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert stream.report.end is err


async def test_calls_of_a_truncated_answer_are_not_run() -> None:
    ran: list[int] = []

    def ping() -> str:
        """Ping."""
        ran.append(1)
        return "pong"

    gen = ScriptedGenerator([Turn(calls=[call("ping", "{}", "c1")], end=Truncated())])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(FuncTool.from_function(ping)))
    _, end = await drain(stream)
    assert isinstance(end, Truncated)
    assert ran == [] and stream.report.calls[0].status is CallStatus.REFUSED
    assert every_call_answered(stream.report.messages)


async def test_usage_of_every_turn_is_summed_into_one_final_chunk() -> None:
    gen = ScriptedGenerator(
        [
            Turn(calls=[call("add", '{"a": 1, "b": 1}', "c1")], usage=Usage(prompt_tokens=100, generated_tokens=7)),
            Turn("2", usage=Usage(prompt_tokens=130, generated_tokens=3)),
        ]
    )
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    chunks, _ = await drain(stream)
    finals = [c for c in chunks if c.part is None and c.meta and "usage" in c.meta]
    assert len(finals) == 1 and finals[0] is chunks[-1]
    usage = finals[0].meta["usage"] if finals[0].meta else None
    assert usage == Usage(prompt_tokens=230, generated_tokens=10)
    assert finals[0].meta is not None and finals[0].meta["tool_rounds"] == 1


@pytest.mark.parametrize(
    ("kw", "needle"),
    [({"max_tool_rounds": -1}, "max_tool_rounds"), ({"tool_timeout_s": 0}, "tool_timeout_s"), ({"timeouts": {"add": -2}}, "'add'")],
)
def test_bad_settings_are_refused_with_the_setting_named(kw: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        ToolRounds(ScriptedGenerator([]), **kw)
