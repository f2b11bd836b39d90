"""Barge-in and side effects in the tool-call rounds: cancellation, finishing side effects, the ledger."""

from __future__ import annotations

import asyncio

from toolround_fakes import ADD, ScriptedGenerator, Turn, call, ctx_with, drain, every_call_answered, results_in

from genx.chunk import Text
from genx.errors import Done
from genx.toolrounds import CallStatus, SideEffectLedger, ToolEventKind, ToolRounds, tool_event
from genx.tools import FuncTool


async def test_closing_the_stream_mid_tool_cancels_it_and_reports_the_finished_calls() -> None:
    slow_cancelled = asyncio.Event()

    async def slow() -> str:
        """Slow."""
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            slow_cancelled.set()
            raise
        return "never"

    gen = ScriptedGenerator([Turn(calls=[call("add", '{"a": 1, "b": 2}', "c1"), call("slow", "{}", "c2")])])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD, FuncTool.from_function(slow)))
    while True:  # read until the fast call's result arrived, then barge in
        ev = tool_event(await stream.next())
        if ev is not None and ev.kind is ToolEventKind.RESULT:
            break
    await stream.close()
    report = await stream.wait_report()
    assert slow_cancelled.is_set()
    assert report.interrupted
    assert [(r.call.id, r.status) for r in report.finished()] == [("c1", CallStatus.OK)]
    assert [(r.call.id, r.status) for r in report.unfinished()] == [("c2", CallStatus.CANCELLED)]
    assert results_in(report.messages)[0] == ("c1", "3", False)
    assert "interrupted" in results_in(report.messages)[1][1] and results_in(report.messages)[1][2]
    assert every_call_answered(report.messages)
    assert len(gen.contexts) == 1  # no further turn after the barge-in


async def test_a_side_effecting_tool_running_at_barge_in_finishes_and_its_result_is_kept() -> None:
    started, gate = asyncio.Event(), asyncio.Event()
    timers: list[int] = []

    async def set_timer(minutes: int) -> str:
        """Sets a timer."""
        started.set()
        await gate.wait()
        timers.append(minutes)
        return f"timer set for {minutes} minutes"

    tool = FuncTool.from_function(set_timer, side_effects=True)
    gen = ScriptedGenerator([Turn(calls=[call("set_timer", '{"minutes": 10}', "t1")])])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(tool))
    await started.wait()
    await stream.close()
    waiting = asyncio.ensure_future(stream.wait_report())
    await asyncio.sleep(0)
    assert not waiting.done()  # the report waits for the side effect to settle
    gate.set()
    report = await waiting
    assert timers == [10]
    assert [(r.status, r.result.content) for r in report.calls] == [(CallStatus.OK, "timer set for 10 minutes")]
    assert report.interrupted and every_call_answered(report.messages)


async def test_a_side_effecting_call_proposed_again_in_a_later_round_is_not_run_again() -> None:
    timers: list[int] = []

    def set_timer(minutes: int) -> str:
        """Sets a timer."""
        timers.append(minutes)
        return f"timer {len(timers)} set"

    tool = FuncTool.from_function(set_timer, side_effects=True)
    gen = ScriptedGenerator(
        [
            Turn(calls=[call("set_timer", '{"minutes": 10}', "a"), call("set_timer", '{"minutes":10}', "b")]),  # two timers asked
            Turn(calls=[call("set_timer", '{ "minutes": 10 }', "c")]),  # the same first call again
            Turn("Two timers are set."),
        ]
    )
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(tool))
    _, end = await drain(stream)
    assert isinstance(end, Done)
    assert timers == [10, 10]
    assert [r.status for r in stream.report.calls] == [CallStatus.OK, CallStatus.OK, CallStatus.REUSED]
    reused = stream.report.calls[2].result.content
    assert reused.startswith("timer 1 set") and "not run again" in reused


async def test_a_shared_ledger_keeps_a_rerun_of_the_same_request_from_repeating_side_effects() -> None:
    timers: list[int] = []

    def set_timer(minutes: int) -> str:
        """Sets a timer."""
        timers.append(minutes)
        return "set"

    tool = FuncTool.from_function(set_timer, side_effects=True)
    script = [Turn(calls=[call("set_timer", '{"minutes": 5}', "a")]), Turn("Done.")]
    ledger = SideEffectLedger()
    for _ in range(2):  # e.g. a held answer dropped and generated again for the same words
        gen = ScriptedGenerator(list(script))
        stream = await ToolRounds(gen).run("m", ctx_with(tool), ledger=ledger)
        await drain(stream)
    assert timers == [5]
    fresh = ScriptedGenerator(list(script))
    await drain(await ToolRounds(fresh).generate_stream("m", ctx_with(tool)))  # a new request runs it again
    assert timers == [5, 5]


async def test_closing_during_a_generation_closes_it_and_keeps_the_partial_turn_as_interrupted() -> None:
    hold = asyncio.Event()
    gen = ScriptedGenerator([Turn("The answer is", hold=hold)])
    stream = await ToolRounds(gen).generate_stream("m", ctx_with(ADD))
    first = await stream.next()
    assert isinstance(first.part, Text)
    await stream.close()
    report = await stream.wait_report()
    assert gen.closed[0].is_set()
    assert report.interrupted
    [msg] = report.messages
    assert msg.text() == "The answer is " and msg.meta["interrupted"] is True
