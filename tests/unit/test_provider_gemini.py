"""Gemini streamGenerateContent: CRLF framing, thought signatures, partialArgs, finish reasons, requests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Role, Text, Thinking, ToolResult
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.accumulate import accumulate
from genx.generators.providers.errors import BadRequestError, ProviderError, StreamEndedError, UnsupportedSettingError
from genx.generators.providers.gemini import GeminiConverter, build_gemini_body
from genx.generators.providers.generator import convert_bytes
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import FuncTool, SearchWebTool


def resp(parts: list[dict[str, Any]] | None = None, finish: str | None = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts or []}}
    if finish:
        cand["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [cand]}
    if usage:
        out["usageMetadata"] = usage
    return out


def body(*events: dict[str, Any], crlf: bool = True) -> bytes:
    nl = "\r\n" if crlf else "\n"
    return "".join(f"data: {json.dumps(e)}{nl}{nl}" for e in events).encode()


def run(data: bytes, pieces: int = 1) -> tuple[list[MessageChunk], BaseException, GeminiConverter]:
    conv = GeminiConverter("gemini")
    step = max(1, len(data) // pieces)
    chunks, end = convert_bytes(conv, "sse", [data[i : i + step] for i in range(0, len(data), step)])
    return chunks, end, conv


def test_crlf_framed_text_with_cumulative_usage_keeps_the_last_usage() -> None:
    data = body(
        resp([{"text": "1\n2"}], usage={"promptTokenCount": 5, "candidatesTokenCount": 2}),
        resp([{"text": "\n3"}], finish="STOP", usage={"promptTokenCount": 5, "candidatesTokenCount": 4, "thoughtsTokenCount": 10}),
    )
    for pieces in (1, 3, 7, 50):
        chunks, end, conv = run(data, pieces)
        assert "".join(c.part.text for c in chunks if isinstance(c.part, Text)) == "1\n2\n3"
        assert isinstance(end, Done)
        assert conv.usage is not None and (conv.usage.prompt_tokens, conv.usage.generated_tokens, conv.usage.thinking_tokens) == (5, 14, 10)


def test_thought_signature_on_empty_text_part_is_kept_without_an_empty_text_chunk() -> None:
    chunks, _end, _ = run(body(resp([{"text": "4"}]), resp([{"text": "", "thoughtSignature": "SIG"}], finish="STOP")))
    assert [type(c.part).__name__ for c in chunks] == ["Text", "Thinking"]
    assert chunks[1].part == Thinking("", "SIG")
    msg = accumulate(chunks)
    assert msg.text() == "4"
    parts = build_gemini_body("gemini", ModelContextBuilder().user("2+2").message(msg).build())["contents"][1]["parts"]
    assert parts == [{"text": "4", "thoughtSignature": "SIG"}]


def test_thought_parts_are_thinking_and_function_call_signature_round_trips() -> None:
    data = body(
        resp([{"text": "pondering", "thought": True}]),
        resp([{"functionCall": {"name": "get_country", "args": {}}, "thoughtSignature": "FSIG"}]),
        resp([{"text": ""}], finish="STOP"),
    )
    chunks, end, _ = run(data)
    assert isinstance(end, Done)
    call = next(c for c in chunks if c.tool_call)
    assert call.tool_call is not None and call.tool_call.name == "get_country" and call.tool_call.arguments == "{}"
    assert call.tool_call.id  # generated: Gemini sent none
    assert call.meta == {"thought_signature": "FSIG"}
    msg = accumulate(chunks)
    ctx = ModelContextBuilder().user("q").message(msg).message(Message.tool(ToolResult("", "get_country", "Mexico"))).build()
    contents = build_gemini_body("gemini", ctx)["contents"]
    fc_part = contents[1]["parts"][-1]
    assert fc_part == {"functionCall": {"name": "get_country", "args": {}}, "thoughtSignature": "FSIG"}  # generated id not sent
    assert contents[2]["parts"][0] == {"functionResponse": {"name": "get_country", "response": {"result": "Mexico"}}}


def test_vertex_partial_args_are_assembled_by_json_path() -> None:
    data = body(
        resp([{"functionCall": {"name": "getWeather", "willContinue": True}}]),
        resp(
            [
                {
                    "functionCall": {
                        "partialArgs": [{"jsonPath": "$.location", "stringValue": "San ", "willContinue": True}],
                        "willContinue": True,
                    }
                }
            ]
        ),
        resp([{"functionCall": {"partialArgs": [{"jsonPath": "$.location", "stringValue": "Francisco"}], "willContinue": True}}]),
        resp([{"functionCall": {"partialArgs": [{"jsonPath": "$.days", "numberValue": 3}], "willContinue": True}}]),
        resp([{"functionCall": {}}], finish="STOP"),
        crlf=False,
    )
    chunks, _end, _ = run(data)
    calls = [c.tool_call for c in chunks if c.tool_call]
    assert len(calls) == 1 and calls[0] is not None
    assert json.loads(calls[0].arguments) == {"location": "San Francisco", "days": 3}


def test_partial_call_cut_by_max_tokens_is_dropped() -> None:
    data = body(
        resp([{"functionCall": {"name": "getWeather", "willContinue": True}}]),
        resp(
            [
                {
                    "functionCall": {
                        "partialArgs": [{"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True}],
                        "willContinue": True,
                    }
                }
            ]
        ),
        resp([], finish="MAX_TOKENS"),
    )
    chunks, end, conv = run(data)
    assert not [c for c in chunks if c.tool_call]
    assert isinstance(end, Truncated) and conv.dropped_calls[0].name == "getWeather"


@pytest.mark.parametrize(("reason", "kind"), [("SAFETY", Blocked), ("RECITATION", Blocked), ("MAX_TOKENS", Truncated), ("STOP", Done)])
def test_finish_reasons_map_to_end_states(reason: str, kind: type) -> None:
    assert isinstance(run(body(resp([{"text": "x"}], finish=reason)))[1], kind)


def test_malformed_function_call_finish_is_a_provider_error() -> None:
    end = run(body(resp([], finish="MALFORMED_FUNCTION_CALL")))[1]
    assert isinstance(end, ProviderError) and end.code == "MALFORMED_FUNCTION_CALL"


def test_prompt_feedback_block_is_blocked() -> None:
    end = run(body({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}))[1]
    assert isinstance(end, Blocked) and end.reason == "PROHIBITED_CONTENT"


def test_error_object_in_stream_is_typed() -> None:
    end = run(body({"error": {"code": 400, "message": "Invalid JSON payload", "status": "INVALID_ARGUMENT"}}))[1]
    assert isinstance(end, BadRequestError) and "Invalid JSON payload" in str(end)


def test_stream_without_finish_reason_is_a_stream_ended_error() -> None:
    assert isinstance(run(body(resp([{"text": "partial"}])))[1], StreamEndedError)


def test_request_uses_system_instruction_json_schema_tools_search_and_generation_config() -> None:
    tool = FuncTool("f", "d", {"type": "object", "properties": {"a": {"type": "integer"}}}, lambda a=0: a)
    ctx = (
        ModelContextBuilder()
        .prompt("sys")
        .message(Message(Role.USER, [Text("listen"), Blob("audio/wav", b"RIFF")]))
        .tool(tool, SearchWebTool())
        .params(ModelParams(max_tokens=9, top_k=2, seed=1))
        .build()
    )
    b = build_gemini_body("gemini", ctx)
    assert b["systemInstruction"] == {"parts": [{"text": "sys"}]}
    assert b["contents"][0]["parts"][1]["inlineData"]["mimeType"] == "audio/wav"
    assert b["tools"] == [
        {"functionDeclarations": [{"name": "f", "description": "d", "parametersJsonSchema": tool.schema}]},
        {"googleSearch": {}},
    ]
    assert b["generationConfig"] == {"maxOutputTokens": 9, "topK": 2, "seed": 1}


def test_forced_call_uses_function_calling_mode_any_and_repeat_penalty_is_rejected() -> None:
    tool = FuncTool("f", "d", {"type": "object", "properties": {}}, lambda: None)
    b = build_gemini_body("gemini", ModelContextBuilder().user("x").build(), forced=tool)
    assert b["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}}
    with pytest.raises(UnsupportedSettingError, match="repeat_penalty"):
        build_gemini_body("gemini", ModelContextBuilder().user("x").params(ModelParams(repeat_penalty=1.2)).build())


def test_provider_call_ids_are_echoed_in_function_call_and_response() -> None:
    ctx = (
        ModelContextBuilder()
        .user("q")
        .message(Message.assistant("", tool_calls=[FuncCall("f", "{}", "fc-1")]))
        .message(Message.tool(ToolResult("fc-1", "f", "r")))
        .build()
    )
    contents = build_gemini_body("gemini", ctx)["contents"]
    assert contents[1]["parts"][0]["functionCall"]["id"] == "fc-1"
    assert contents[2]["parts"][0]["functionResponse"]["id"] == "fc-1"
