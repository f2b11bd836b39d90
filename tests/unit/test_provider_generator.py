"""HttpGenerator end to end over httpx.MockTransport: streaming, usage, headers, invoke, retries, cancellation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from genx.chunk import FuncCall, MessageChunk, Text
from genx.errors import Done, ToolArgumentsError
from genx.generators.providers import (
    AnthropicGenerator,
    GeminiGenerator,
    NoToolCallError,
    OpenAIChatGenerator,
    OpenAIResponsesGenerator,
    ProviderStream,
    RateLimitError,
    ServerError,
    UnsupportedSettingError,
)
from genx.generators.providers.config import RetryPolicy
from genx.model import ModelContextBuilder, ModelParams, Usage
from genx.tools import FuncTool

WEATHER = FuncTool(
    "get_weather", "Weather", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, lambda city: city
)
CHAT_OK = (
    b'data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b'data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n'
    b"data: [DONE]\n\n"
)


def sse_response(body: bytes, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, content=body, headers={"content-type": "text/event-stream", **headers})


async def drain(stream: ProviderStream) -> tuple[list[MessageChunk], BaseException]:
    out: list[MessageChunk] = []
    while True:
        try:
            out.append(await asyncio.wait_for(stream.next(), 10))
        except BaseException as e:  # the end state
            return out, e


async def test_stream_exposes_usage_on_the_stream_and_on_the_last_meta_chunk() -> None:
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: sse_response(CHAT_OK))) as client:
        gen = OpenAIChatGenerator(api_key="k", model="gpt", client=client)
        stream = await gen.generate_stream("chat", ModelContextBuilder().user("hi").build())
        chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert [c.part for c in chunks if c.part] == [Text("Hi")]
    last = chunks[-1]
    assert last.part is None and last.tool_call is None and last.meta is not None
    assert last.meta["usage"] == Usage(prompt_tokens=3, generated_tokens=1) == stream.usage
    assert last.meta["finish_reason"] == "stop" == stream.finish_reason and stream.response_id == "c"


@pytest.mark.parametrize(
    ("make", "url", "header", "value"),
    [
        (
            lambda c: OpenAIChatGenerator(api_key="KEY", model="m", client=c),
            "https://api.openai.com/v1/chat/completions",
            "authorization",
            "Bearer KEY",
        ),
        (
            lambda c: OpenAIResponsesGenerator(api_key="KEY", model="m", client=c),
            "https://api.openai.com/v1/responses",
            "authorization",
            "Bearer KEY",
        ),
        (lambda c: AnthropicGenerator(api_key="KEY", model="m", client=c), "https://api.anthropic.com/v1/messages", "x-api-key", "KEY"),
        (
            lambda c: GeminiGenerator(api_key="KEY", model="gemini-2.5-flash", client=c),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "x-goog-api-key",
            "KEY",
        ),
    ],
)
async def test_each_adapter_posts_to_its_endpoint_with_its_auth_header(make: Any, url: str, header: str, value: str) -> None:
    seen: list[httpx.Request] = []

    def handler(r: httpx.Request) -> httpx.Response:
        seen.append(r)
        return sse_response(b"")

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        stream = await make(client).generate_stream("m", ModelContextBuilder().user("hi").build())
        await drain(stream)
    assert str(seen[0].url) == url and seen[0].headers[header] == value
    assert "alt=sse" in url or json.loads(seen[0].content)["stream"] is True


async def test_unsupported_setting_raises_from_generate_stream_before_any_request() -> None:
    seen: list[httpx.Request] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: seen.append(r) or sse_response(CHAT_OK))) as client:
        gen = OpenAIChatGenerator(api_key="k", model="m", client=client)
        with pytest.raises(UnsupportedSettingError, match="top_k"):
            await gen.generate_stream("m", ModelContextBuilder().user("x").params(ModelParams(top_k=3)).build())
    assert seen == []


async def test_429_with_retry_after_is_retried_after_that_delay_then_succeeds() -> None:
    responses = [httpx.Response(429, json={"error": {"message": "slow down"}}, headers={"retry-after": "2"}), sse_response(CHAT_OK)]
    sleeps: list[float] = []

    async def sleep(s: float) -> None:
        sleeps.append(s)

    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: responses.pop(0))) as client:
        gen = OpenAIChatGenerator(api_key="k", model="m", client=client, sleep=sleep)
        _chunks, end = await drain(await gen.generate_stream("m", ModelContextBuilder().user("x").build()))
    assert isinstance(end, Done) and sleeps == [2.0]


async def test_retries_stop_at_the_limit_and_surface_the_last_typed_error() -> None:
    calls = 0

    def handler(r: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(503, json={"error": {"message": "unavailable", "type": "server_error"}})

    async def sleep(s: float) -> None:
        pass

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        gen = OpenAIChatGenerator(api_key="k", model="m", client=client, sleep=sleep)
        _, end = await drain(await gen.generate_stream("m", ModelContextBuilder().user("x").build()))
    assert isinstance(end, ServerError) and calls == RetryPolicy().max_retries + 1


async def test_spent_quota_is_not_retried() -> None:
    calls = 0

    def handler(r: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(
            429, json={"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        gen = OpenAIChatGenerator(api_key="k", model="m", client=client)
        _, end = await drain(await gen.generate_stream("m", ModelContextBuilder().user("x").build()))
    assert isinstance(end, RateLimitError) and calls == 1


def _chat_json(tool_calls: list[dict[str, Any]], finish: str = "tool_calls") -> dict[str, Any]:
    return {
        "id": "x",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": tool_calls}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 4},
    }


async def test_invoke_returns_usage_and_a_schema_valid_forced_call() -> None:
    seen: list[dict[str, Any]] = []

    def handler(r: httpx.Request) -> httpx.Response:
        seen.append(json.loads(r.content))
        return httpx.Response(
            200, json=_chat_json([{"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}])
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        usage, call = await OpenAIChatGenerator(api_key="k", model="m", client=client).invoke(
            "m", ModelContextBuilder().user("x").build(), WEATHER
        )
    assert call == FuncCall("get_weather", '{"city":"Oslo"}', "t1") and usage.total_tokens == 13
    assert seen[0]["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}


async def test_invoke_rejects_arguments_that_fail_the_tool_schema() -> None:
    body = _chat_json([{"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"town":"Oslo"}'}}])
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, json=body))) as client:
        with pytest.raises(ToolArgumentsError, match="get_weather"):
            await OpenAIChatGenerator(api_key="k", model="m", client=client).invoke("m", ModelContextBuilder().user("x").build(), WEATHER)


async def test_invoke_with_truncated_arguments_says_to_raise_max_tokens() -> None:
    body = _chat_json([{"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Os'}}], finish="length")
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, json=body))) as client:
        with pytest.raises(NoToolCallError, match="max_tokens"):
            await OpenAIChatGenerator(api_key="k", model="m", client=client).invoke("m", ModelContextBuilder().user("x").build(), WEATHER)


async def test_closing_the_stream_cancels_the_reader_task() -> None:
    gate = asyncio.Event()

    class SlowBody(httpx.AsyncByteStream):
        closed = False

        async def __aiter__(self):  # type: ignore[override]
            yield b'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n'
            await gate.wait()
            yield b""

        async def aclose(self) -> None:
            SlowBody.closed = True

    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, stream=SlowBody()))) as client:
        gen = OpenAIChatGenerator(api_key="k", model="m", client=client)
        stream = await gen.generate_stream("m", ModelContextBuilder().user("x").build())
        first = await asyncio.wait_for(stream.next(), 5)
        assert first.part == Text("a")
        await stream.close()
        for _ in range(100):
            if not gen._tasks:
                break
            await asyncio.sleep(0.01)
        assert not gen._tasks and SlowBody.closed
        with pytest.raises(Done):
            await stream.next()
