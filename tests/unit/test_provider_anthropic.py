"""Anthropic Messages: request building and stream conversion on hand-written streams."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Role, Text, Thinking, ToolResult
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.accumulate import accumulate
from genx.generators.providers.anthropic import AnthropicConverter, anthropic_convert_response, build_anthropic_body
from genx.generators.providers.errors import ServerError, StreamEndedError, UnsupportedSettingError
from genx.generators.providers.generator import convert_bytes
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import FuncTool, SearchWebTool


def ev(t: str, **data: Any) -> bytes:
    return f"event: {t}\ndata: {json.dumps({'type': t, **data})}\n\n".encode()


START = ev(
    "message_start",
    message={
        "id": "msg_1",
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 4, "cache_creation_input_tokens": 2, "output_tokens": 1},
    },
)


def run(*events: bytes) -> tuple[list[MessageChunk], BaseException, AnthropicConverter]:
    conv = AnthropicConverter("anthropic")
    chunks, end = convert_bytes(conv, "sse", [b"".join(events)])
    return chunks, end, conv


def stop(reason: str = "end_turn", out: int = 5) -> bytes:
    return ev("message_delta", delta={"stop_reason": reason}, usage={"output_tokens": out}) + ev("message_stop")


def test_text_blocks_stream_as_text_and_usage_includes_cache_read_and_write() -> None:
    chunks, end, conv = run(
        START,
        ev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi "}),
        ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "there"}),
        ev("content_block_stop", index=0),
        stop(out=7),
    )
    assert "".join(c.part.text for c in chunks if isinstance(c.part, Text)) == "Hi there"
    assert isinstance(end, Done)
    assert conv.usage is not None
    assert (conv.usage.prompt_tokens, conv.usage.cached_prompt_tokens, conv.usage.cache_write_tokens, conv.usage.generated_tokens) == (
        10,
        4,
        2,
        7,
    )


def test_tool_use_with_empty_partial_json_normalises_to_empty_object() -> None:
    chunks, end, _ = run(
        START,
        ev("content_block_start", index=0, content_block={"type": "tool_use", "id": "toolu_1", "name": "refresh", "input": {}}),
        ev("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": ""}),
        ev("content_block_stop", index=0),
        stop("tool_use"),
    )
    assert [c.tool_call for c in chunks if c.tool_call] == [FuncCall("refresh", "{}", "toolu_1")]
    assert isinstance(end, Done)


def test_tool_input_split_across_deltas_is_assembled_and_emitted_at_block_stop() -> None:
    chunks, _, _ = run(
        START,
        ev("content_block_start", index=1, content_block={"type": "tool_use", "id": "t", "name": "get_weather", "input": {}}),
        ev("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": '{"loc'}),
        ev("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": 'ation": "Paris"}'}),
        ev("content_block_stop", index=1),
        stop("tool_use"),
    )
    assert [c.tool_call for c in chunks if c.tool_call] == [FuncCall("get_weather", '{"location": "Paris"}', "t")]


def test_tool_input_cut_by_max_tokens_is_dropped_and_stream_truncated() -> None:
    chunks, end, conv = run(
        START,
        ev("content_block_start", index=0, content_block={"type": "tool_use", "id": "t", "name": "make_file", "input": {}}),
        ev("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"lines": ["a'}),
        stop("max_tokens"),
    )
    assert [c for c in chunks if c.tool_call] == []
    assert isinstance(end, Truncated)
    assert conv.dropped_calls and conv.dropped_calls[0].arguments == '{"lines": ["a'


def test_thinking_deltas_and_signature_are_kept_for_round_trip() -> None:
    chunks, _, _ = run(
        START,
        ev("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        ev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Let me "}),
        ev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "think."}),
        ev("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "SIG=="}),
        ev("content_block_stop", index=0),
        ev("content_block_start", index=1, content_block={"type": "redacted_thinking", "data": "REDACTED"}),
        ev("content_block_stop", index=1),
        ev("content_block_start", index=2, content_block={"type": "text", "text": ""}),
        ev("content_block_delta", index=2, delta={"type": "text_delta", "text": "Answer"}),
        stop(),
    )
    msg = accumulate(chunks)
    assert msg.parts == [Thinking("Let me think.", "SIG=="), Thinking("", "REDACTED"), Text("Answer")]
    ctx = ModelContextBuilder().user("q").message(msg).user("again").build()
    blocks = build_anthropic_body("anthropic", "m", ctx, stream=True)["messages"][1]["content"]
    assert blocks == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "SIG=="},
        {"type": "redacted_thinking", "data": "REDACTED"},
        {"type": "text", "text": "Answer"},
    ]


def test_error_event_after_200_is_a_typed_error() -> None:
    _, end, _ = run(START, ev("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    assert isinstance(end, ServerError) and "Overloaded" in str(end)


def test_message_delta_with_stop_reason_then_eof_without_message_stop_ends_normally() -> None:
    _, end, _ = run(START, ev("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 1}))
    assert isinstance(end, Done)


def test_final_event_without_trailing_newline_is_still_seen() -> None:
    body = (
        START
        + ev("message_delta", delta={"stop_reason": "refusal"}, usage={"output_tokens": 1})
        + b'event: message_stop\ndata: {"type": "message_stop"}'
    )
    conv = AnthropicConverter("anthropic")
    _, end = convert_bytes(conv, "sse", [body])
    assert isinstance(end, Blocked) and conv.finished


def test_stream_that_stops_mid_message_is_a_stream_ended_error() -> None:
    _, end, _ = run(START, ev("content_block_start", index=0, content_block={"type": "text", "text": ""}))
    assert isinstance(end, StreamEndedError)


def test_request_merges_consecutive_tool_results_into_one_user_turn_and_maps_params() -> None:
    tool = FuncTool("f", "d", {"type": "object", "properties": {}}, lambda: None)
    ctx = (
        ModelContextBuilder()
        .prompt("sys")
        .user("go")
        .message(Message.assistant("ok", tool_calls=[FuncCall("f", "{}", "a"), FuncCall("f", '{"x": 1}', "b")]))
        .message(Message.tool(ToolResult("a", "f", "r1")), Message.tool(ToolResult("b", "f", "r2", is_error=True)))
        .tool(tool, SearchWebTool())
        .params(ModelParams(max_tokens=100, top_k=3, stop=["X"]))
        .build()
    )
    body = build_anthropic_body("anthropic", "claude", ctx, stream=True)
    assert body["system"] == "sys" and body["max_tokens"] == 100 and body["top_k"] == 3 and body["stop_sequences"] == ["X"]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][2] == {"type": "tool_use", "id": "b", "name": "f", "input": {"x": 1}}
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "a", "content": "r1"},
        {"type": "tool_result", "tool_use_id": "b", "content": "r2", "is_error": True},
    ]
    assert body["tools"][1] == {"type": "web_search_20250305", "name": "web_search"}


def test_seed_and_penalties_are_rejected() -> None:
    ctx = ModelContextBuilder().user("x").params(ModelParams(seed=1)).build()
    with pytest.raises(UnsupportedSettingError, match="seed"):
        build_anthropic_body("anthropic", "m", ctx, stream=True)


def test_images_and_pdfs_become_base64_blocks_audio_is_rejected() -> None:
    ctx = ModelContextBuilder().message(Message(Role.USER, [Blob("image/jpeg", b"j"), Blob("application/pdf", b"p")])).build()
    content = build_anthropic_body("anthropic", "m", ctx, stream=True)["messages"][0]["content"]
    assert [b["type"] for b in content] == ["image", "document"] and content[0]["source"]["media_type"] == "image/jpeg"
    ctx = ModelContextBuilder().message(Message(Role.USER, [Blob("audio/wav", b"w")])).build()
    with pytest.raises(UnsupportedSettingError, match="audio/wav"):
        build_anthropic_body("anthropic", "m", ctx, stream=True)


def test_signatures_from_another_provider_family_are_not_replayed() -> None:
    msg = Message(Role.ASSISTANT, [Thinking("t", "gemini-sig"), Text("a")], meta={"provider_family": "gemini"})
    body = build_anthropic_body("anthropic", "m", ModelContextBuilder().user("q").message(msg).build(), stream=True)
    assert body["messages"][1]["content"] == [{"type": "text", "text": "a"}]


def test_non_streaming_message_converts_through_the_same_rules() -> None:
    body = {
        "id": "m",
        "type": "message",
        "content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }
    chunks, end, conv = anthropic_convert_response("anthropic", body)
    assert [c.tool_call for c in chunks if c.tool_call] == [FuncCall("f", '{"a": 1}', "t")]
    assert isinstance(end, Done) and conv.usage is not None and conv.usage.generated_tokens == 2
