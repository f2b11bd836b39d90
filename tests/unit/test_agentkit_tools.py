"""Tool traffic in the voice loop: tool activity events, tool calls and results kept in history and the store."""

from __future__ import annotations

import json
from pathlib import Path

from toolround_fakes import ScriptedGenerator, Turn, call

from genx.agentkit.events import AssistantDelta, AssistantDone, ToolActivity
from genx.agentkit.history import History
from genx.agentkit.messages import message_from_json, message_to_json, tool_messages
from genx.agentkit.store import ConversationStore, TurnRecord
from genx.agentkit.testing import Rig
from genx.assistant import AssistantGenerator
from genx.chunk import FuncCall, Message, Role, Text, Thinking, ToolResult
from genx.tools import FuncTool

CLOCK = FuncTool(
    "current_time",
    "The time now.",
    {"type": "object", "properties": {"city": {"type": "string"}}},
    lambda args: f"It's 10:15 in {args.get('city', 'here')}.",
)


def _boom(_args: object) -> str:
    raise RuntimeError("the clock is broken")


BROKEN = FuncTool("current_time", "The time now.", {"type": "object", "properties": {"city": {"type": "string"}}}, _boom)


def _tool_rig(turns: list[Turn], tool: FuncTool = CLOCK, **kw: object) -> tuple[Rig, ScriptedGenerator]:
    model = ScriptedGenerator(turns)
    gen = AssistantGenerator(model, [tool], use_prematch=False)
    return Rig(generator=gen, **kw), model  # type: ignore[arg-type]


async def test_a_tool_call_is_published_as_running_then_with_its_result_before_the_answer_text(tmp_path: Path) -> None:
    rig, _model = _tool_rig([Turn(calls=[call("current_time", '{"city": "Tokyo"}', "c1")]), Turn("It is quarter past ten in Tokyo.")])
    await rig.start()
    rig.loop.send_text("what time is it in Tokyo")
    await rig.run_until(6.0)
    acts = rig.of(ToolActivity)
    assert [(a.name, a.status, a.call_id) for a in acts] == [("current_time", "running", "c1"), ("current_time", "ok", "c1")]
    assert json.loads(acts[0].arguments) == {"city": "Tokyo"}
    assert acts[1].result == "It's 10:15 in Tokyo." and not acts[1].is_error
    kinds = [type(e).__name__ for e in rig.events if isinstance(e, ToolActivity | AssistantDelta)]
    assert kinds.index("ToolActivity") < kinds.index("AssistantDelta")
    assert acts[0].turn_id == rig.of(AssistantDone)[0].turn_id
    await rig.stop()


async def test_a_failing_tool_is_shown_as_an_error_result() -> None:
    rig, _model = _tool_rig([Turn(calls=[call("current_time", "{}", "c1")]), Turn("Sorry, I could not read the clock.")], BROKEN)
    await rig.start()
    rig.loop.send_text("what time is it")
    await rig.run_until(6.0)
    done = rig.of(ToolActivity)[-1]
    assert done.status == "failed" and done.is_error and "the clock is broken" in done.result
    await rig.stop()


async def test_the_next_answer_sees_the_earlier_tool_call_and_result_as_messages(tmp_path: Path) -> None:
    rig, model = _tool_rig(
        [Turn(calls=[call("current_time", '{"city": "Tokyo"}', "c1")]), Turn("Quarter past ten."), Turn("You're welcome.")]
    )
    await rig.start()
    rig.loop.send_text("what time is it in Tokyo")
    await rig.run_until(6.0)
    rig.loop.send_text("thanks")
    await rig.run_until(12.0)
    third = model.contexts[2]
    assert [m.role for m in third] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.USER]
    assert third[1].tool_calls == [FuncCall("current_time", '{"city": "Tokyo"}', "c1")]
    assert third[2].tool_result == ToolResult("c1", "current_time", "It's 10:15 in Tokyo.")
    assert third[3].text() == "Quarter past ten." and third[4].text() == "thanks"
    await rig.stop()


async def test_a_stored_turn_keeps_its_tool_messages_and_a_reloaded_conversation_sends_them_back(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    rig, _model = _tool_rig([Turn(calls=[call("current_time", '{"city": "Oslo"}', "c9")]), Turn("It is quarter past ten.")], store=store)
    await rig.start()
    rig.loop.send_text("time in Oslo?")
    await rig.run_until(6.0)
    await rig.loop.flush_store()
    cid = rig.loop.conversation_id
    await rig.stop()

    line = json.loads((tmp_path / f"{cid}.jsonl").read_text().splitlines()[0])
    assert [m["role"] for m in line["tool_messages"]] == ["assistant", "tool"]
    assert line["tool_messages"][1]["tool_result"]["content"] == "It's 10:15 in Oslo."

    rig2, model2 = _tool_rig([Turn("Still quarter past ten.")], store=ConversationStore(tmp_path))
    await rig2.start()
    await rig2.loop.load_conversation(cid)
    rig2.loop.send_text("and now?")
    await rig2.run_until(6.0)
    msgs = model2.contexts[0]
    assert [m.role for m in msgs] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.USER]
    assert msgs[2].tool_result is not None and msgs[2].tool_result.call_id == "c9"
    await rig2.stop()


def test_a_line_written_before_tool_messages_existed_still_loads(tmp_path: Path) -> None:
    old = (
        '{"turn_id":"t1","user_text":"hi","assistant_text":"Hello!","interrupted":false,"generated_text":"Hello!",'
        '"typed":true,"error":"","generator":"local/smollm2","started_at":1.0,"timings":{},"v":1}'
    )
    (tmp_path / "c1.jsonl").write_text(old + "\n")
    recs, problems = ConversationStore(tmp_path).load_with_errors("c1")
    assert problems == []
    assert [(r.user_text, r.assistant_text, r.tool_messages) for r in recs] == [("hi", "Hello!", [])]


def test_a_turn_without_tools_is_written_without_a_tool_messages_key() -> None:
    assert "tool_messages" not in json.loads(TurnRecord("t1", "hi", "Hello!").to_json())


def test_messages_keep_thinking_signatures_call_ids_and_provider_state_through_json() -> None:
    m = Message(
        Role.ASSISTANT,
        [Thinking("check the clock", "sig-abc"), Text("Let me look.")],
        tool_calls=[FuncCall("current_time", '{"city":"Rome"}', "toolu_1")],
        meta={"thought_signatures": {"toolu_1": "gsig"}, "provider_family": "gemini", "not_json": object()},
    )
    back = message_from_json(json.loads(json.dumps(message_to_json(m))))
    assert back.parts == m.parts and back.tool_calls == m.tool_calls
    assert back.meta == {"thought_signatures": {"toolu_1": "gsig"}, "provider_family": "gemini"}
    r = Message.tool(ToolResult("toolu_1", "current_time", "boom", is_error=True))
    back_r = message_from_json(message_to_json(r))
    assert back_r.role == Role.TOOL and back_r.tool_result == r.tool_result and back_r.text() == "boom"


def test_a_badly_typed_tool_message_makes_the_line_a_reported_problem(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", TurnRecord("t1", "q", "a"))
    bad = json.loads(TurnRecord("t2", "q2", "a2").to_json())
    bad["tool_messages"] = [{"role": "tool", "tool_result": {"call_id": "x", "name": "n", "content": 5}}]
    with open(tmp_path / "c1.jsonl", "a") as f:
        f.write(json.dumps(bad) + "\n")
        f.write(json.dumps({**bad, "turn_id": "t3", "tool_messages": [{"role": "user"}]}) + "\n")
    recs, problems = store.load_with_errors("c1")
    assert [r.turn_id for r in recs] == ["t1"]
    assert len(problems) == 2 and "content" in problems[0] and "role" in problems[1]


def test_history_keeps_tool_messages_of_an_answer_nobody_heard() -> None:
    calls = [
        Message.assistant("", tool_calls=[FuncCall("set_timer", '{"minutes": 10}', "c1")]),
        Message.tool(ToolResult("c1", "set_timer", "Timer 1 set.")),
    ]
    h = History()
    h.add("set a timer for ten minutes", "", interrupted=True, tool_messages=calls)
    msgs = h.messages("is it set?")
    assert [m.role for m in msgs] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.USER]
    assert msgs[0].text() == "set a timer for ten minutes" and msgs[-1].text() == "is it set?"


def test_only_the_messages_up_to_the_last_tool_result_are_kept() -> None:
    msgs = [
        Message.assistant("", tool_calls=[FuncCall("a", "{}", "1")]),
        Message.tool(ToolResult("1", "a", "r")),
        Message.assistant("final answer"),
    ]
    assert tool_messages(msgs) == msgs[:2]
    assert tool_messages([Message.assistant("just text")]) == []
