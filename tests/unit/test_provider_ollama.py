"""Ollama native /api/chat NDJSON: whole tool calls, thinking, done line, errors, requests, structured-output invoke."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Role, Text, Thinking, ToolResult
from genx.errors import Done, ToolArgumentsError, Truncated
from genx.generators.providers.errors import ModelNotFoundError, ProtocolError, StreamEndedError, UnsupportedSettingError
from genx.generators.providers.generator import convert_bytes
from genx.generators.providers.ollama import OllamaConverter, OllamaGenerator, build_ollama_body
from genx.model import ModelContextBuilder, ModelParams
from genx.tools import FuncTool

WEATHER = FuncTool(
    "get_weather", "Weather", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, lambda city: city
)


def lines(*objs: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def msg(content: str = "", **kw: Any) -> dict[str, Any]:
    return {"model": "m", "message": {"role": "assistant", "content": content, **kw}, "done": False}


DONE = {
    "model": "m",
    "message": {"role": "assistant", "content": ""},
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 12,
    "eval_count": 5,
}


def run(data: bytes, pieces: int = 1) -> tuple[list[MessageChunk], BaseException, OllamaConverter]:
    conv = OllamaConverter("ollama")
    step = max(1, len(data) // pieces)
    chunks, end = convert_bytes(conv, "ndjson", [data[i : i + step] for i in range(0, len(data), step)])
    return chunks, end, conv


def test_thinking_then_text_then_done_with_usage() -> None:
    for pieces in (1, 5, 31):
        chunks, end, conv = run(lines(msg(thinking="hmm "), msg("Hel"), msg("lo 🎉"), DONE), pieces)
        assert [c.part for c in chunks] == [Thinking("hmm "), Text("Hel"), Text("lo 🎉")]
        assert isinstance(end, Done)
        assert conv.usage is not None and (conv.usage.prompt_tokens, conv.usage.generated_tokens) == (12, 5)


def test_whole_tool_calls_are_emitted_with_generated_ids() -> None:
    data = lines(
        msg(
            tool_calls=[
                {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
                {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}},
            ]
        ),
        DONE,
    )
    chunks, _, _ = run(data)
    calls = [c.tool_call for c in chunks if c.tool_call is not None]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Rome"})]
    assert all(c.id for c in calls) and calls[0].id != calls[1].id


def test_length_done_reason_is_truncated() -> None:
    assert isinstance(run(lines(msg("x"), {**DONE, "done_reason": "length"}))[1], Truncated)


def test_error_line_is_typed_and_missing_done_is_stream_ended() -> None:
    end = run(lines({"error": "model 'nope' not found"}))[1]
    assert isinstance(end, ModelNotFoundError) and "nope" in str(end)
    assert isinstance(run(lines(msg("partial")))[1], StreamEndedError)


def test_garbage_line_is_a_protocol_error() -> None:
    end = run(lines(msg("a")) + b"\x00\xffnot json\n")[1]
    assert isinstance(end, ProtocolError) and "malformed" in str(end)


def test_request_has_images_tool_results_by_name_and_options() -> None:
    ctx = (
        ModelContextBuilder()
        .prompt("sys")
        .message(Message(Role.USER, [Text("see"), Blob("image/png", b"png")]))
        .message(Message.assistant("", tool_calls=[FuncCall("get_weather", '{"city":"Oslo"}', "c1")]))
        .message(Message.tool(ToolResult("c1", "get_weather", "cold")))
        .tool(WEATHER)
        .params(ModelParams(max_tokens=10, repeat_penalty=1.1, top_k=4))
        .build()
    )
    b = build_ollama_body("ollama", "qwen", ctx, stream=True)
    assert b["messages"][0] == {"role": "system", "content": "sys"}
    assert b["messages"][1]["images"] == ["cG5n"]
    assert b["messages"][2]["tool_calls"] == [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]
    assert b["messages"][3] == {"role": "tool", "content": "cold", "tool_name": "get_weather"}
    assert b["options"] == {"num_predict": 10, "top_k": 4, "repeat_penalty": 1.1}
    assert b["tools"][0]["function"]["name"] == "get_weather"


def test_audio_blob_is_rejected() -> None:
    with pytest.raises(UnsupportedSettingError, match="audio/wav"):
        build_ollama_body("ollama", "m", ModelContextBuilder().message(Message(Role.USER, [Blob("audio/wav", b"x")])).build(), stream=True)


async def test_invoke_uses_structured_output_and_validates_against_the_schema() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        content = '{"city": "Oslo"}' if len(seen) == 1 else '{"town": 3}'
        return httpx.Response(
            200, json={"message": {"role": "assistant", "content": content}, "done": True, "done_reason": "stop", "eval_count": 4}
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        gen = OllamaGenerator(model="qwen", client=client)
        usage, call = await gen.invoke("qwen", ModelContextBuilder().user("weather in Oslo").build(), WEATHER)
        assert seen[0]["format"] == WEATHER.schema and seen[0]["stream"] is False
        assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Oslo"} and usage.generated_tokens == 4
        with pytest.raises(ToolArgumentsError):
            await gen.invoke("qwen", ModelContextBuilder().user("again").build(), WEATHER)
