"""OpenAI Responses API: terminal events (completed / incomplete / failed / none), calls, reasoning, requests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genx.chunk import FuncCall, Message, MessageChunk, Text, Thinking, ToolResult
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.accumulate import accumulate
from genx.generators.providers.errors import RateLimitError, ServerError, StreamEndedError, UnsupportedSettingError
from genx.generators.providers.generator import convert_bytes
from genx.generators.providers.openai_responses import ResponsesConverter, build_responses_body, responses_convert_response
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import SearchWebTool


def ev(t: str, named: bool = True, **data: Any) -> bytes:
    head = f"event: {t}\n" if named else ""
    return f"{head}data: {json.dumps({'type': t, **data})}\n\n".encode()


CREATED = ev("response.created", response={"id": "resp_1", "status": "in_progress", "output": []})
USAGE = {
    "input_tokens": 20,
    "input_tokens_details": {"cached_tokens": 8},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 12},
}


def run(*events: bytes) -> tuple[list[MessageChunk], BaseException, ResponsesConverter]:
    conv = ResponsesConverter("openai")
    chunks, end = convert_bytes(conv, "sse", [b"".join(events)])
    return chunks, end, conv


def text_of(chunks: list[MessageChunk]) -> str:
    return "".join(c.part.text for c in chunks if isinstance(c.part, Text))


def test_completed_response_is_done_with_text_and_usage() -> None:
    chunks, end, conv = run(
        CREATED,
        ev("response.output_text.delta", item_id="m", output_index=0, delta="Hel"),
        ev("response.output_text.delta", item_id="m", output_index=0, delta="lo"),
        ev(
            "response.completed",
            response={
                "id": "resp_1",
                "status": "completed",
                "output": [{"type": "message", "id": "m", "content": [{"type": "output_text", "text": "Hello"}]}],
                "usage": USAGE,
            },
        ),
    )
    assert text_of(chunks) == "Hello"  # the final payload does not repeat streamed text
    assert isinstance(end, Done) and conv.response_id == "resp_1"
    assert conv.usage is not None and (conv.usage.prompt_tokens, conv.usage.cached_prompt_tokens, conv.usage.thinking_tokens) == (20, 8, 12)


def test_incomplete_for_max_output_tokens_is_truncated_and_for_content_filter_blocked() -> None:
    for reason, kind in [("max_output_tokens", Truncated), ("content_filter", Blocked)]:
        _, end, conv = run(
            CREATED, ev("response.incomplete", response={"status": "incomplete", "incomplete_details": {"reason": reason}, "output": []})
        )
        assert isinstance(end, kind) and conv.finish_reason == reason


def test_failed_response_after_error_event_keeps_the_error_code_and_message() -> None:
    err = {"type": "insufficient_quota", "code": "insufficient_quota", "message": "You exceeded your current quota", "param": None}
    _, end, _ = run(
        CREATED,
        ev("error", named=False, error=err),
        ev(
            "response.failed",
            named=False,
            response={"status": "failed", "error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}},
        ),
    )
    assert isinstance(end, RateLimitError) and end.code == "insufficient_quota" and "exceeded your current quota" in str(end)


def test_failed_response_without_error_event_uses_the_response_error() -> None:
    _, end, _ = run(CREATED, ev("response.failed", response={"status": "failed", "error": {"code": "server_error", "message": "boom"}}))
    assert isinstance(end, ServerError) and "boom" in str(end)


def test_stream_with_only_response_created_is_a_stream_ended_error() -> None:
    _, end, _ = run(CREATED, ev("response.in_progress", response={"id": "resp_1"}))
    assert isinstance(end, StreamEndedError) and "response.completed" in str(end)


def test_function_call_arguments_stream_and_are_emitted_at_item_done() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_capital", "arguments": ""}
    chunks, end, _ = run(
        CREATED,
        ev("response.output_item.added", output_index=0, item=item),
        ev("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta='{"country"'),
        ev("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta=':"France"}'),
        ev("response.function_call_arguments.done", output_index=0, item_id="fc_1", arguments='{"country":"France"}'),
        ev("response.output_item.done", output_index=0, item={**item, "arguments": '{"country":"France"}', "status": "completed"}),
        ev("response.completed", response={"status": "completed", "output": [{**item, "arguments": '{"country":"France"}'}]}),
    )
    calls = [c for c in chunks if c.tool_call]
    assert [c.tool_call for c in calls] == [FuncCall("get_capital", '{"country":"France"}', "call_1")]
    assert calls[0].meta == {"item_id": "fc_1"}
    assert isinstance(end, Done)


def test_output_missing_from_deltas_is_taken_from_the_completed_payload() -> None:
    chunks, _, _ = run(
        CREATED,
        ev(
            "response.completed",
            response={
                "status": "completed",
                "output": [
                    {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": "{}"},
                    {"type": "message", "id": "m", "content": [{"type": "output_text", "text": "late"}]},
                ],
            },
        ),
    )
    assert [c.tool_call for c in chunks if c.tool_call] == [FuncCall("f", "{}", "c")] and text_of(chunks) == "late"


def test_encrypted_reasoning_item_round_trips_as_input_item() -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENC"}
    chunks, _, _ = run(
        CREATED,
        ev("response.output_item.done", output_index=0, item=reasoning),
        ev("response.reasoning_summary_text.delta", output_index=0, delta="plan"),
        ev("response.completed", response={"status": "completed", "output": [reasoning]}),
    )
    assert Thinking("", "ENC") in [c.part for c in chunks] and Thinking("plan") in [c.part for c in chunks]
    msg = accumulate(chunks)
    items = build_responses_body("openai", "m", ModelContextBuilder().user("q").message(msg).build(), stream=True)["input"]
    assert items[1] == {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENC"}


def test_dispatch_works_without_event_lines() -> None:
    _, end, _ = run(
        ev("response.output_text.delta", named=False, delta="x"), ev("response.completed", named=False, response={"status": "completed"})
    )
    assert isinstance(end, Done)


def test_request_uses_instructions_function_call_items_and_outputs() -> None:
    ctx = (
        ModelContextBuilder()
        .prompt("be nice")
        .user("capital?")
        .message(Message.assistant("checking", tool_calls=[FuncCall("get_capital", '{"country":"France"}', "call_1")]))
        .message(Message.tool(ToolResult("call_1", "get_capital", "Paris")))
        .tool(SearchWebTool())
        .params(ModelParams(max_tokens=64))
        .build()
    )
    b = build_responses_body("openai", "gpt-5", ctx, stream=True)
    assert b["instructions"] == "be nice" and b["max_output_tokens"] == 64 and b["tools"] == [{"type": "web_search"}]
    assert b["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "capital?"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "checking"}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_capital", "arguments": '{"country":"France"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "Paris"},
    ]


def test_stop_sequences_are_rejected_by_the_responses_api() -> None:
    with pytest.raises(UnsupportedSettingError, match="stop"):
        build_responses_body("openai", "m", ModelContextBuilder().user("x").params(ModelParams(stop=["x"])).build(), stream=True)


def test_non_streaming_response_object_converts_to_a_call() -> None:
    body = {
        "id": "r",
        "status": "completed",
        "output": [{"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": '{"a":1}'}],
        "usage": USAGE,
    }
    chunks, end, conv = responses_convert_response("openai", body)
    assert [c.tool_call for c in chunks if c.tool_call] == [FuncCall("f", '{"a":1}', "c")]
    assert isinstance(end, Done) and conv.usage is not None
