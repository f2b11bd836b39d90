"""Replay every recorded provider stream in ../shared/fixtures/providers through the real generators.

Each ``.sse`` body is served by ``httpx.MockTransport`` whole and split at
arbitrary byte boundaries; the normalised result must match MANIFEST.md's
"expected" column: text, thinking, tool calls, finish reason / end state, usage.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from genx.chunk import MessageChunk, Text, Thinking
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers import (
    AnthropicGenerator,
    BadRequestError,
    GeminiGenerator,
    OpenAIChatGenerator,
    OpenAIResponsesGenerator,
    ProviderStream,
    RateLimitError,
    openai_compatible,
)
from genx.generators.providers.accumulate import accumulate
from genx.generators.providers.generator import HttpGenerator
from genx.model import ModelContextBuilder

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared/fixtures/providers"

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"provider fixtures not present at {FIXTURES}")

Client = httpx.AsyncClient
MAKERS: dict[str, Callable[[Client], HttpGenerator]] = {
    "openai-chat": lambda c: OpenAIChatGenerator(api_key="k", model="m", client=c),
    "openai-compatible": lambda c: openai_compatible("groq", api_key="k", model="m", client=c),
    "openai-responses": lambda c: OpenAIResponsesGenerator(api_key="k", model="m", client=c),
    "anthropic": lambda c: AnthropicGenerator(api_key="k", model="m", client=c),
    "gemini": lambda c: GeminiGenerator(api_key="k", model="m", client=c),
}


@dataclass
class Expect:
    end: type[BaseException]
    finish: str
    text: str | Callable[[str], bool] = ""
    thinking: str | Callable[[str], bool] = ""
    calls: list[tuple[str | None, str, dict[str, Any]]] = field(default_factory=list)  # (id or None when generated, name, args)
    usage: tuple[int, int, int] | None = None  # prompt, generated (incl. thinking), thinking
    cached: int = 0
    signatures: list[tuple[int, str]] = field(default_factory=list)  # (length, prefix) of Thinking signatures in order
    check: Callable[[list[MessageChunk], ProviderStream, BaseException], None] | None = None


def starts_ends(start: str, end: str, length: int | None = None) -> Callable[[str], bool]:
    return lambda s: s.startswith(start) and s.endswith(end) and (length is None or len(s) == length)


def n3_check(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    by_choice: dict[int, str] = {}
    for c in chunks:
        if isinstance(c.part, Text):
            i = (c.meta or {}).get("choice", 0)
            by_choice[i] = by_choice.get(i, "") + c.part.text
    assert by_choice == {i: f'{{"city":"San Francisco","temperature":{t},"units":"f"}}' for i, t in enumerate((65, 61, 59))}


def groq_error_check(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    assert isinstance(end, BadRequestError)
    assert end.type == "invalid_request_error" and end.code == "tool_use_failed"
    assert end.message == (
        "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: "
        "errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]"
    )


def quota_check(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    assert isinstance(end, RateLimitError) and end.code == "insufficient_quota"
    assert end.message.startswith("You exceeded your current quota, please check your plan and billing details.")


def refusal_check(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    assert isinstance(end, Blocked) and end.reason == "refusal: I'm sorry, I can't assist with that request."
    assert chunks[-1].meta is not None and chunks[-1].meta["refusal"] == "I'm sorry, I can't assist with that request."


def responses_reasoning_check(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    items = [c.meta["reasoning_item"] for c in chunks if c.meta and "reasoning_item" in c.meta]
    assert [i["id"] for i in items] == ["rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405"] and items[0]["summary"] == []
    call = next(c for c in chunks if c.tool_call)
    assert call.meta == {"item_id": "fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042"}


def dropped_make_file(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    assert [d.name for d in stream.dropped_tool_calls] == ["make_file"]
    assert stream.dropped_tool_calls[0].arguments.endswith('"## INTRODUCTION",\n"",\n"Filing taxes')


def gemini_signature_on_call(chunks: list[MessageChunk], stream: ProviderStream, end: BaseException) -> None:
    call = next(c for c in chunks if c.tool_call)
    assert call.meta is not None and len(call.meta["thought_signature"]) == 1408


EXPECTED: dict[str, Expect] = {
    "openai-chat/parallel-tool-calls.sse": Expect(
        Done,
        "tool_calls",
        calls=[
            ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", {"city": "Edinburgh", "country": "GB", "units": "c"}),
            ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
        ],
        usage=(149, 60, 0),
    ),
    "openai-chat/finish-reason-length.sse": Expect(Truncated, "length", text='{"', usage=(79, 1, 0)),
    "openai-chat/refusal.sse": Expect(Blocked, "stop", usage=(79, 11, 0), check=refusal_check),
    "openai-chat/n3-choices.sse": Expect(
        Done, "stop", text='{"city":"San Francisco","temperature":65,"units":"f"}', usage=(79, 42, 0), check=n3_check
    ),
    "openai-chat/tool-round-trip-1.sse": Expect(
        Done, "tool_calls", calls=[("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", {"country": "UK"})], usage=(53, 15, 0)
    ),
    "openai-chat/tool-round-trip-2.sse": Expect(Done, "stop", text="The capital of the UK is London.", usage=(78, 9, 0)),
    "openai-compatible/groq-tool-use-failed-1.sse": Expect(
        BadRequestError,
        "",
        thinking=starts_ends("We need to call the tool with invalid parameters first,", "Let's do that.", 412),
        check=groq_error_check,
    ),
    "openai-compatible/groq-tool-use-failed-2.sse": Expect(
        Done,
        "tool_calls",
        thinking='We need to call the function with correct parameter "name". Provide a name, e.g., "example".',
        calls=[("fc_bfb39741-3748-4def-9886-a93fc9c64a90", "get_something_by_name", {"name": "example"})],
        usage=(304, 49, 23),
    ),
    "openai-compatible/groq-tool-use-failed-3.sse": Expect(
        Done,
        "stop",
        thinking=starts_ends("The user wants to test error handling", "Now respond concisely.", 176),
        text="The tool returned the expected result for the valid call.",
        usage=(339, 58, 38),
    ),
    "openai-responses/tool-round-trip-1.sse": Expect(
        Done, "completed", calls=[("call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital", {"country": "France"})], usage=(255, 16, 0)
    ),
    "openai-responses/tool-round-trip-2.sse": Expect(Done, "completed", text="The capital of France is Paris.", usage=(278, 9, 0)),
    "openai-responses/streaming-usage.sse": Expect(
        Done,
        "completed",
        calls=[("call_CWXgs68YprAjp6t0371hiPOI", "final_result", {"result": 6666})],
        usage=(53, 469, 448),
        signatures=[(3896, "gAAAAABoyXvxI6jwG5j6")],  # encrypted_content of the reasoning item
        check=responses_reasoning_check,
    ),
    "openai-responses/error-insufficient-quota.sse": Expect(RateLimitError, "failed", check=quota_check),
    "anthropic/tool-use.sse": Expect(
        Done,
        "tool_use",
        text="I'll check the current weather in Paris for you.",
        calls=[("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", {"location": "Paris"})],
        usage=(377, 65, 0),
    ),
    "anthropic/incomplete-partial-json.sse": Expect(
        Truncated,
        "max_tokens",
        text=(
            "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. "
            "Let me do that for you now."
        ),
        usage=(450, 124, 0),
        check=dropped_make_file,
    ),
    "anthropic/thinking.sse": Expect(
        Done,
        "end_turn",
        thinking=(
            "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about how to safely "
            "cross a street. This is basic safety information that could help prevent accidents."
        ),
        text=starts_ends(
            "Here are the basic steps for safely crossing the street:", "Always prioritize safety over speed when crossing streets.", 1021
        ),
        usage=(43, 282, 0),
        signatures=[(504, "EvMCCkYICxgCKkCHP2cSuEdcJK/0rF")],
    ),
    "anthropic/thinking-redacted.sse": Expect(
        Done,
        "end_turn",
        text=starts_ends(
            "I notice that you've sent what appears to be some kind of test string or command.",
            "How can I assist you today with a legitimate task or question?",
        ),
        usage=(92, 189, 0),
        signatures=[(744, "EqkECkYIBxgCKkA8"), (296, "EtgBCkYIBxgCKkDQ")],
    ),
    "anthropic/tool-no-args.sse": Expect(
        Done,
        "tool_use",
        text="I'll update the issue list for you.",
        calls=[("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", {})],
        usage=(565, 48, 0),
    ),
    "gemini/tool-call-thought-signature-1.sse": Expect(
        Done, "STOP", calls=[(None, "get_country", {})], usage=(29, 212, 202), check=gemini_signature_on_call
    ),
    "gemini/tool-call-thought-signature-2.sse": Expect(Done, "STOP", text="The capital of Mexico is Mexico City.", usage=(257, 8, 0)),
    "gemini/usage-live-mid-stream.sse": Expect(Done, "STOP", text="\n".join(str(i) for i in range(1, 31)), usage=(18, 115, 35)),
    "gemini/adk-go-generate-stream-ok.sse": Expect(Done, "STOP", text="Paris", usage=(11, 34, 33)),
    "gemini/vertex-partial-args-tool-call.sse": Expect(
        Done,
        "STOP",
        calls=[(None, "getWeather", {"location": "Boston"}), (None, "getWeather", {"location": "San Francisco"})],
        usage=(26, 155, 132),
    ),
    "gemini/empty-text-thought-signature.sse": Expect(Done, "STOP", text="4", usage=(15, 53, 52), signatures=[(376, "EpcCCpQC")]),
}


def fixture_files() -> list[str]:
    if not FIXTURES.is_dir():
        return []
    return sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("*/*.sse"))


class Pieces(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for p in self.pieces:
            yield p
            await asyncio.sleep(0)


def splits(body: bytes, name: str) -> dict[str, list[bytes]]:
    rng = random.Random(name)
    out = {"whole": [body], "every-7-bytes": [body[i : i + 7] for i in range(0, len(body), 7)]}
    for k in range(3):
        cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 40))))
        out[f"random-{k}"] = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    if len(body) < 4000:
        out["single-bytes"] = [body[i : i + 1] for i in range(len(body))]
    return out


async def replay(folder: str, pieces: list[bytes]) -> tuple[list[MessageChunk], ProviderStream, BaseException]:
    handler = lambda r: httpx.Response(200, stream=Pieces(pieces), headers={"content-type": "text/event-stream"})  # noqa: E731
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        gen = MAKERS[folder](client)
        stream = await gen.generate_stream("m", ModelContextBuilder().user("hi").build())
        out: list[MessageChunk] = []
        while True:
            try:
                out.append(await asyncio.wait_for(stream.next(), 10))
            except BaseException as e:  # the end state
                return out, stream, e


def matches(expected: str | Callable[[str], bool], actual: str) -> bool:
    return expected(actual) if callable(expected) else expected == actual


def test_every_recorded_stream_has_an_expectation() -> None:
    assert fixture_files(), "no .sse fixtures found"
    assert set(fixture_files()) == set(EXPECTED)


@pytest.mark.parametrize("name", fixture_files() or ["none"])
async def test_recorded_stream_matches_manifest_whole_and_split(name: str) -> None:
    exp = EXPECTED[name]
    body = (FIXTURES / name).read_bytes()
    folder = name.split("/")[0]
    for how, pieces in splits(body, name).items():
        chunks, stream, end = await replay(folder, pieces)
        where = f"{name} [{how}]"
        assert isinstance(end, exp.end), f"{where}: ended with {end!r}"
        assert stream.finish_reason == exp.finish, where
        msg = accumulate(chunks)
        assert matches(exp.text, msg.text()), f"{where}: text {msg.text()[:120]!r}"
        assert matches(exp.thinking, msg.thinking()), f"{where}: thinking {msg.thinking()[:120]!r}"
        got_calls = [(c.id, c.name, json.loads(c.arguments)) for c in msg.tool_calls]
        assert [(n, a) for _, n, a in got_calls] == [(n, a) for _, n, a in exp.calls], where
        for (gid, _, _), (eid, _, _) in zip(got_calls, exp.calls, strict=True):
            assert gid == eid if eid is not None else gid.startswith("call_genx_"), where
        if exp.usage is None:
            assert stream.usage is None, where
        else:
            assert stream.usage is not None, where
            got = (stream.usage.prompt_tokens, stream.usage.generated_tokens, stream.usage.thinking_tokens)
            assert got == exp.usage and stream.usage.cached_prompt_tokens == exp.cached, f"{where}: usage {stream.usage}"
        sigs = [
            (len(p.signature), p.signature[: len(prefix)])
            for p, (_, prefix) in zip([p for p in msg.parts if isinstance(p, Thinking) and p.signature], exp.signatures, strict=False)
        ]
        assert sigs == exp.signatures, where
        assert len([p for p in msg.parts if isinstance(p, Thinking) and p.signature]) == len(exp.signatures), where
        last = chunks[-1]
        assert last.part is None and last.meta is not None and last.meta["usage"] == stream.usage, where
        if exp.check is not None:
            exp.check(chunks, stream, end)
