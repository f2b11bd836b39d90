"""Tool-call assembly (valid JSON only) and call-ID FIFO pairing of tool results."""

from __future__ import annotations

import pytest

from genx.chunk import FuncCall, Message, ToolResult
from genx.generators.providers.errors import ToolPairingError
from genx.generators.providers.toolcalls import ToolCallAssembler, normalize_arguments, pair_tool_results


def test_fragments_are_joined_and_valid_json_is_kept_byte_for_byte() -> None:
    a = ToolCallAssembler()
    a.start(0, "id1", "f")
    for frag in ['{"a"', ": [1, ", "2]}"]:
        a.append(0, frag)
    done = a.complete(0)
    assert done is not None and done[0] == FuncCall("f", '{"a": [1, 2]}', "id1")


@pytest.mark.parametrize("raw", ['{"a": 1', "[1, 2]", '"text"', "{'a': 1}", "null"])
def test_anything_but_one_complete_json_object_is_dropped_and_recorded(raw: str) -> None:
    a = ToolCallAssembler()
    a.start(0, "x", "f")
    a.append(0, raw)
    assert a.complete(0) is None
    assert a.dropped[0].arguments == raw and a.dropped[0].name == "f"


def test_empty_arguments_mean_an_empty_object() -> None:
    assert normalize_arguments("") == "{}" and normalize_arguments("  ") == "{}"


def test_authoritative_final_arguments_win_over_fragments() -> None:
    a = ToolCallAssembler()
    a.start(3, "c", "f")
    a.append(3, '{"a": 1')
    a.set_arguments(3, '{"a": 1}')
    done = a.complete(3)
    assert done is not None and done[0].arguments == '{"a": 1}'


def test_call_without_name_is_dropped() -> None:
    a = ToolCallAssembler()
    a.append(0, "{}")
    assert a.complete_all() == [] and "name" in a.dropped[0].reason


def test_explicit_ids_pair_out_of_order() -> None:
    h = pair_tool_results(
        "p",
        [
            Message.assistant("", tool_calls=[FuncCall("w", '{"c":"A"}', "A"), FuncCall("w", '{"c":"B"}', "B")]),
            Message.tool(ToolResult("B", "w", "rb")),
            Message.tool(ToolResult("A", "w", "ra")),
        ],
    )
    assert h.result_ids == {1: "B", 2: "A"}


def test_results_without_ids_take_the_oldest_pending_call() -> None:
    h = pair_tool_results(
        "p",
        [
            Message.assistant("", tool_calls=[FuncCall("w", "{}"), FuncCall("x", "{}", "given")]),
            Message.tool(ToolResult("", "", "r1")),
            Message.tool(ToolResult("", "", "r2")),
        ],
    )
    gen = h.call_ids[0][0]
    assert gen.startswith("call_genx_") and h.result_ids == {1: gen, 2: "given"}
    assert h.result_names == {1: "w", 2: "x"}


def test_generated_ids_are_stable_for_the_same_history() -> None:
    hist = [Message.assistant("", tool_calls=[FuncCall("w", "{}")]), Message.tool(ToolResult("", "w", "r"))]
    assert pair_tool_results("p", hist).result_ids == pair_tool_results("p", hist).result_ids


def test_result_without_any_pending_call_is_an_error_naming_the_tool() -> None:
    with pytest.raises(ToolPairingError, match="lookup"):
        pair_tool_results("p", [Message.tool(ToolResult("", "lookup", "r"))])


def test_a_call_id_can_be_answered_only_once() -> None:
    with pytest.raises(ToolPairingError, match="'A'"):
        pair_tool_results(
            "p",
            [
                Message.assistant("", tool_calls=[FuncCall("w", "{}", "A")]),
                Message.tool(ToolResult("A", "w", "r")),
                Message.tool(ToolResult("A", "w", "again")),
            ],
        )
