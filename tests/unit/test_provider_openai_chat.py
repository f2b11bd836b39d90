"""OpenAI Chat Completions (and compatible servers): request building and stream conversion on hand-written streams."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Role, Text, Thinking, ToolResult
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.compat import COMPAT_ROWS, openai_compatible
from genx.generators.providers.errors import (
    BadRequestError,
    ContextLengthError,
    ProtocolError,
    RateLimitError,
    StreamEndedError,
    ToolPairingError,
    UnsupportedSettingError,
)
from genx.generators.providers.generator import convert_bytes
from genx.generators.providers.openai_chat import OPENAI_QUIRKS, ChatConverter, ChatQuirks, build_chat_body, chat_convert_response
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import FuncTool, SearchWebTool

WEATHER = FuncTool(
    "get_weather",
    "Weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    lambda city: f"sunny in {city}",
)


def sse(*events: Any, done: bool = True, crlf: bool = False) -> bytes:
    parts = [f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events]
    if done:
        parts.append("data: [DONE]\n\n")
    body = "".join(parts)
    return (body.replace("\n", "\r\n") if crlf else body).encode()


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, index: int = 0, **extra: Any) -> dict[str, Any]:
    return {"id": "c1", "choices": [{"index": index, "delta": delta or {}, "finish_reason": finish}], **extra}


def run(body: bytes, quirks: ChatQuirks = OPENAI_QUIRKS, pieces: int = 1) -> tuple[list[MessageChunk], BaseException, ChatConverter]:
    conv = ChatConverter("openai", quirks)
    step = max(1, len(body) // pieces)
    chunks, end = convert_bytes(conv, "sse", [body[i : i + step] for i in range(0, len(body), step)])
    return chunks, end, conv


def texts(chunks: list[MessageChunk]) -> str:
    return "".join(c.part.text for c in chunks if isinstance(c.part, Text))


def calls(chunks: list[MessageChunk]) -> list[FuncCall]:
    return [c.tool_call for c in chunks if c.tool_call is not None]


# ----------------------------------------------------------------------------- conversion


def test_text_deltas_become_assistant_text_chunks_and_stop_is_done() -> None:
    chunks, end, _ = run(
        sse(chunk({"role": "assistant", "content": ""}), chunk({"content": "Hel"}), chunk({"content": "lo"}), chunk(finish="stop"))
    )
    assert texts(chunks) == "Hello"
    assert all(c.role == Role.ASSISTANT for c in chunks)
    assert isinstance(end, Done)


def test_usage_only_final_chunk_with_empty_choices_sets_usage_incl_cache_and_reasoning() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "prompt_tokens_details": {"cached_tokens": 64},
        "completion_tokens_details": {"reasoning_tokens": 7},
    }
    _, end, conv = run(sse(chunk({"content": "x"}), chunk(finish="stop"), {"id": "c1", "choices": [], "usage": usage}))
    assert isinstance(end, Done)
    assert conv.usage is not None
    assert (conv.usage.prompt_tokens, conv.usage.cached_prompt_tokens, conv.usage.generated_tokens, conv.usage.thinking_tokens) == (
        100,
        64,
        20,
        7,
    )


def test_tool_call_deltas_keyed_by_index_with_id_only_on_first_are_assembled() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"ci'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ty": "Pa'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ris"}'}}]}),
        chunk(finish="tool_calls"),
    )
    chunks, end, _ = run(body)
    assert calls(chunks) == [FuncCall("get_weather", '{"city": "Paris"}', "call_1")]
    assert isinstance(end, Done)


def test_tool_call_is_emitted_only_once_complete_at_the_finish_chunk() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": '{"a":'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
        chunk(finish="tool_calls"),
    )
    conv = ChatConverter("openai")
    from genx.generators.providers.framing import SSEDecoder
    from genx.generators.providers.generator import feed_sse

    dec = SSEDecoder()
    seen: list[list[MessageChunk]] = []
    for line in body.split(b"\n\n")[:-1]:
        out: list[MessageChunk] = []
        feed_sse(conv, dec, line + b"\n\n", out)
        seen.append(out)
    assert [len(calls(s)) for s in seen] == [0, 0, 1, 0]


def test_parallel_tool_calls_keep_their_order_and_ids() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x":'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}, {"index": 1, "function": {"arguments": '{"y":2}'}}]}),
        chunk(finish="tool_calls"),
    )
    chunks, _, _ = run(body)
    assert [(c.id, c.name, c.arguments) for c in calls(chunks)] == [("a", "f", '{"x":1}'), ("b", "g", '{"y":2}')]


def test_tool_call_without_id_gets_a_generated_unique_id() -> None:
    body = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "function": {"name": "f", "arguments": "{}"}},
                    {"index": 1, "function": {"name": "f", "arguments": "{}"}},
                ]
            }
        ),
        chunk(finish="tool_calls"),
    )
    ids = [c.id for c in calls(run(body)[0])]
    assert all(ids) and len(set(ids)) == 2


def test_tool_json_cut_by_length_is_dropped_and_stream_is_truncated() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "make_file", "arguments": '{"lines": ["a", "b'}}]}),
        chunk(finish="length"),
    )
    chunks, end, conv = run(body)
    assert calls(chunks) == []
    assert isinstance(end, Truncated)
    assert conv.dropped_calls[0].name == "make_file"


def test_event_error_after_http_200_ends_with_typed_error_keeping_provider_message() -> None:
    err = {
        "error": {"message": "Tool call validation failed", "type": "invalid_request_error", "code": "tool_use_failed", "status_code": 400}
    }
    body = sse(chunk({"reasoning": "thinking..."}), done=False) + b"event: error\ndata: " + json.dumps(err).encode() + b"\n\n"
    chunks, end, _ = run(body, COMPAT_ROWS["groq"].quirks)
    assert isinstance(end, BadRequestError)
    assert "Tool call validation failed" in str(end) and end.code == "tool_use_failed" and end.provider == "openai"
    assert [c.part.text for c in chunks if isinstance(c.part, Thinking)] == ["thinking..."]


def test_error_payload_without_event_name_is_also_an_error() -> None:
    _, end, _ = run(sse({"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}, done=False))
    assert isinstance(end, RateLimitError)


def test_stream_without_finish_reason_or_done_is_a_stream_ended_error_not_done() -> None:
    _, end, _ = run(sse(chunk({"content": "partial"}), done=False))
    assert isinstance(end, StreamEndedError) and isinstance(end, ProtocolError)
    assert "without a terminal event" in str(end)


def test_done_marker_without_finish_reason_counts_as_terminal() -> None:
    _, end, _ = run(sse(chunk({"content": "x"})))
    assert isinstance(end, Done)


def test_finish_chunk_without_done_marker_still_ends_normally() -> None:
    _, end, _ = run(sse(chunk({"content": "x"}), chunk(finish="stop"), done=False))
    assert isinstance(end, Done)


def test_content_filter_finish_is_blocked_and_refusal_is_blocked_with_its_text() -> None:
    _, end, _ = run(sse(chunk({"content": "x"}), chunk(finish="content_filter")))
    assert isinstance(end, Blocked) and end.reason == "content_filter"
    chunks, end, _ = run(sse(chunk({"content": None, "refusal": ""}), chunk({"refusal": "I can't."}), chunk(finish="stop")))
    assert isinstance(end, Blocked) and "I can't." in end.reason and texts(chunks) == ""


def test_reasoning_field_names_follow_the_server_row() -> None:
    body = sse(chunk({"reasoning_content": "R1 "}), chunk({"reasoning": "R2 "}), chunk({"content": "A"}), chunk(finish="stop"))
    for row, expected in [("deepseek", "R1 "), ("groq", "R2 ")]:
        chunks, _, _ = run(body, COMPAT_ROWS[row].quirks)
        assert "".join(c.part.text for c in chunks if isinstance(c.part, Thinking)) == expected


def test_multi_line_data_and_crlf_framing_convert_like_lf() -> None:
    body = b'data: {"id":"c","choices":[{"index":0,\ndata: "delta":{"content":"hi"},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]\r\n\r\n'
    chunks, end, _ = run(body)
    assert texts(chunks) == "hi" and isinstance(end, Done)


def test_utf8_split_across_reads_is_not_corrupted() -> None:
    body = sse(chunk({"content": "你好🎉"}), chunk(finish="stop"))
    for pieces in range(2, 40):
        assert texts(run(body, pieces=pieces)[0]) == "你好🎉"


def test_non_json_data_is_a_protocol_error_naming_the_data() -> None:
    _, end, _ = run(b"data: <html>bad gateway</html>\n\n")
    assert isinstance(end, ProtocolError) and "bad gateway" in str(end)


def test_second_choice_chunks_are_marked_with_their_choice_index() -> None:
    chunks, _, _ = run(sse(chunk({"content": "a"}), chunk({"content": "b"}, index=1), chunk(finish="stop"), chunk(finish="stop", index=1)))
    assert [(c.part.text, (c.meta or {}).get("choice", 0)) for c in chunks if isinstance(c.part, Text)] == [("a", 0), ("b", 1)]


def test_choice_zero_decides_the_end_state_whatever_order_choices_finish_in() -> None:
    _, end, conv = run(sse(chunk({"content": "a"}), chunk(finish="length", index=1), chunk(finish="stop")))
    assert isinstance(end, Done) and conv.finish_reason == "stop"


def test_groq_usage_inside_x_groq_is_used() -> None:
    _, _, conv = run(sse(chunk(finish="stop", x_groq={"usage": {"prompt_tokens": 5, "completion_tokens": 3}})))
    assert conv.usage is not None and conv.usage.total_tokens == 8


def test_non_streaming_response_converts_forced_tool_call_and_usage() -> None:
    body = {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "t", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 4},
    }
    chunks, end, conv = chat_convert_response("openai", body)
    assert calls(chunks) == [FuncCall("get_weather", '{"city":"Oslo"}', "t")]
    assert isinstance(end, Done) and conv.usage is not None and conv.usage.generated_tokens == 4


# ----------------------------------------------------------------------------- requests


def test_request_carries_system_prompts_history_tool_calls_results_and_tools() -> None:
    ctx = (
        ModelContextBuilder()
        .prompt("You are Parley.")
        .prompt("Be brief.")
        .user("Weather in Oslo?")
        .message(Message.assistant("", tool_calls=[FuncCall("get_weather", '{"city":"Oslo"}', "call_9")]))
        .message(Message.tool(ToolResult("call_9", "get_weather", "sunny")))
        .tool(WEATHER)
        .params(max_tokens=50, temperature=0.2, stop=["\n\n"])
        .build()
    )
    body = build_chat_body("openai", "gpt-4o-mini", ctx, OPENAI_QUIRKS, stream=True)
    assert body["messages"][0] == {"role": "system", "content": "You are Parley.\n\nBe brief."}
    assert body["messages"][2]["tool_calls"][0] == {
        "id": "call_9",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_9", "content": "sunny"}
    assert body["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert body["max_completion_tokens"] == 50 and body["temperature"] == 0.2 and body["stop"] == ["\n\n"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_tool_results_without_ids_pair_fifo_with_calls_without_ids() -> None:
    ctx = (
        ModelContextBuilder()
        .user("two cities")
        .message(Message.assistant("", tool_calls=[FuncCall("get_weather", '{"city":"A"}'), FuncCall("get_weather", '{"city":"B"}')]))
        .message(Message.tool(ToolResult("", "get_weather", "ra")), Message.tool(ToolResult("", "get_weather", "rb")))
        .build()
    )
    msgs = build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)["messages"]
    ids = [tc["id"] for tc in msgs[1]["tool_calls"]]
    assert len(set(ids)) == 2
    assert [(m["tool_call_id"], m["content"]) for m in msgs[2:]] == [(ids[0], "ra"), (ids[1], "rb")]


def test_tool_result_with_unknown_call_id_is_a_pairing_error() -> None:
    ctx = ModelContextBuilder().user("x").message(Message.tool(ToolResult("nope", "f", "r"))).build()
    with pytest.raises(ToolPairingError, match="nope"):
        build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)


def test_images_are_sent_as_data_urls_and_unsupported_blobs_are_rejected() -> None:
    ctx = ModelContextBuilder().message(Message(Role.USER, [Text("what is this"), Blob("image/png", b"\x89PNG")])).build()
    content = build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)["messages"][0]["content"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    ctx = ModelContextBuilder().message(Message(Role.USER, [Blob("video/mp4", b"x")])).build()
    with pytest.raises(UnsupportedSettingError, match="video/mp4"):
        build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)


def test_unsupported_params_are_rejected_not_dropped() -> None:
    ctx = ModelContextBuilder().user("x").params(ModelParams(top_k=5)).build()
    with pytest.raises(UnsupportedSettingError, match="top_k"):
        build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)
    body = build_chat_body("llamacpp", "m", ctx, COMPAT_ROWS["llamacpp"].quirks, stream=False)
    assert body["top_k"] == 5


def test_repeat_penalty_maps_to_each_servers_field_name() -> None:
    ctx = ModelContextBuilder().user("x").params(ModelParams(repeat_penalty=1.1)).build()
    assert build_chat_body("p", "m", ctx, COMPAT_ROWS["llamacpp"].quirks, stream=False)["repeat_penalty"] == 1.1
    assert build_chat_body("p", "m", ctx, COMPAT_ROWS["vllm"].quirks, stream=False)["repetition_penalty"] == 1.1
    with pytest.raises(UnsupportedSettingError):
        build_chat_body("p", "m", ctx, COMPAT_ROWS["groq"].quirks, stream=False)


def test_web_search_tool_is_rejected_over_chat_completions() -> None:
    ctx = ModelContextBuilder().user("x").tool(SearchWebTool()).build()
    with pytest.raises(UnsupportedSettingError, match="web-search"):
        build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)


def test_forced_tool_call_request_sets_tool_choice() -> None:
    body = build_chat_body("openai", "m", ModelContextBuilder().user("x").build(), OPENAI_QUIRKS, stream=False, forced=WEATHER)
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert "stream" not in body


def test_extra_params_pass_through_and_n_above_one_is_rejected() -> None:
    ctx = ModelContextBuilder().user("x").params(ModelParams(extra={"logit_bias": {"1": 2}})).build()
    assert build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)["logit_bias"] == {"1": 2}
    ctx = ModelContextBuilder().user("x").params(ModelParams(extra={"n": 3})).build()
    with pytest.raises(UnsupportedSettingError, match="n=3"):
        build_chat_body("openai", "m", ctx, OPENAI_QUIRKS, stream=False)


def test_thinking_parts_are_not_sent_back_over_chat_completions() -> None:
    ctx = ModelContextBuilder().message(Message(Role.ASSISTANT, [Thinking("secret plan"), Text("Hi")])).build()
    assert build_chat_body("deepseek", "m", ctx, COMPAT_ROWS["deepseek"].quirks, stream=False)["messages"] == [
        {"role": "assistant", "content": "Hi"}
    ]


def test_every_compatible_server_is_a_row_not_a_subclass() -> None:
    assert {"llamacpp", "vllm", "lmstudio", "dashscope", "deepseek", "groq", "openrouter"} <= set(COMPAT_ROWS)
    gens = [openai_compatible(name, api_key="k", model="m") for name in COMPAT_ROWS]
    assert {type(g).__name__ for g in gens} == {"OpenAIChatGenerator"}


def test_context_length_error_is_classified_from_the_message() -> None:
    body = sse({"error": {"message": "This model's maximum context length is 8192 tokens", "type": "invalid_request_error"}}, done=False)
    assert isinstance(run(body)[1], ContextLengthError)
