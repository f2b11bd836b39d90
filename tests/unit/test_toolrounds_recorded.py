"""Recorded tool rounds (../shared/fixtures/providers) replayed through ToolRounds and the real adapters.

Each recorded response body is served in turn by ``httpx.MockTransport``; the
runner runs the tool and the adapter builds the follow-up request, which must
match the request the provider got in the recording (``<name>-2.request.json``).
The recordings were made by pydantic-ai; where its request shape differs from
ours in ways the API does not care about, the test says so and normalises only
that field. The Anthropic tool-use stream comes without its follow-up request,
so that test writes the expected messages from the Messages API's tool-use shape.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from toolround_fakes import drain

from genx.chunk import Message, Role, Thinking
from genx.errors import Done
from genx.generators.providers import AnthropicGenerator, GeminiGenerator, OpenAIChatGenerator, OpenAIResponsesGenerator
from genx.model import ModelContextBuilder, ModelParams, MultiModelContext
from genx.toolrounds import LABEL_RESULT, CallStatus, ToolRounds, tool_event
from genx.tools import FuncTool

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared/fixtures/providers"

pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"provider fixtures not present at {FIXTURES}")


class Replay:
    """Serves recorded bodies in order and keeps every request body."""

    def __init__(self, *bodies: str) -> None:
        self.bodies = [(FIXTURES / b).read_bytes() for b in bodies]
        self.requests: list[dict[str, Any]] = []
        self.urls: list[str] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        self.urls.append(str(request.url))
        body = self.bodies[len(self.requests) - 1]
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def get_capital(country: str) -> str:
    return {"UK": "London"}.get(country, "unknown")


def get_country() -> str:
    return "Mexico"


def get_weather(location: str) -> str:
    return f"Sunny and 22 °C in {location}."


def openai_shape(body: dict[str, Any]) -> dict[str, Any]:
    """pydantic-ai also sent ``tool_choice: "auto"`` (the API default) and ``strict: true`` per tool; we send neither."""
    out = copy.deepcopy(body)
    out.pop("tool_choice", None)
    for t in out.get("tools", []):
        t["function"].pop("strict", None)
    return out


async def test_openai_chat_tool_round_trip_sends_the_recorded_follow_up_request() -> None:
    replay = Replay("openai-chat/tool-round-trip-1.sse", "openai-chat/tool-round-trip-2.sse")
    gen = OpenAIChatGenerator(api_key="k", model="gpt-4o-mini", client=replay.client())
    tool = FuncTool.from_function(get_capital, description="")
    ctx = ModelContextBuilder().user("What is the capital of the UK? Use the tool, then answer.").tool(tool).build()
    stream = await ToolRounds(gen).generate_stream("m", ctx)
    chunks, end = await drain(stream)
    assert isinstance(end, Done)
    assert len(replay.requests) == 2
    assert replay.requests[0] == openai_shape(recorded("openai-chat/tool-round-trip-1.request.json"))
    assert replay.requests[1] == openai_shape(recorded("openai-chat/tool-round-trip-2.request.json"))
    assert stream.report.answer == "The capital of the UK is London."
    results = [tool_event(c) for c in chunks if c.label == LABEL_RESULT]
    assert [(r.call_id, r.result.content if r.result else None) for r in results if r] == [("call_ZR5UUuTt3pf61kjwAJIYdVMj", "London")]


async def test_openai_responses_tool_round_sends_the_call_and_its_output_with_the_call_id() -> None:
    replay = Replay("openai-responses/tool-round-trip-1.sse", "openai-responses/tool-round-trip-2.sse")
    gen = OpenAIResponsesGenerator(api_key="k", model="gpt-4o", client=replay.client())

    def get_capital(country: str) -> str:
        return {"France": "Paris"}[country]

    ctx = ModelContextBuilder().user("What is the capital of France?").tool(FuncTool.from_function(get_capital, description="")).build()
    stream = await ToolRounds(gen).generate_stream("m", ctx)
    _, end = await drain(stream)
    assert isinstance(end, Done)
    assert stream.report.answer == "The capital of France is Paris."
    want = recorded("openai-responses/tool-round-trip-2.request.json")["input"][1:]
    # MANIFEST: the recording sent the item id (fc_…) as call_id, a pydantic-ai bug of the time; the API pairs by
    # the call's call_id, which the stream gave as call_kL0PCQV7M2WMoVX8V8OtYSAL.
    for item in want:
        item["call_id"] = "call_kL0PCQV7M2WMoVX8V8OtYSAL"
    assert replay.requests[1]["input"][1:] == want
    assert replay.requests[1]["input"][0] == replay.requests[0]["input"][0]


async def test_gemini_thought_signature_of_a_call_goes_back_with_it() -> None:
    replay = Replay("gemini/tool-call-thought-signature-1.sse", "gemini/tool-call-thought-signature-2.sse")
    gen = GeminiGenerator(api_key="k", model="gemini-3-pro-preview", client=replay.client())
    tool = FuncTool.from_function(get_country, description="")
    ctx = (
        ModelContextBuilder()
        .user("What is the capital of the user country? Call the tool")
        .tool(tool)
        .params(ModelParams(extra={"generationConfig": {"responseModalities": ["TEXT"]}}))
        .build()
    )
    stream = await ToolRounds(gen).generate_stream("m", ctx)
    _, end = await drain(stream)
    assert isinstance(end, Done)
    assert stream.report.answer == "The capital of Mexico is Mexico City."
    want = recorded("gemini/tool-call-thought-signature-2.request.json")
    got = replay.requests[1]
    # pydantic-ai named the schema field in snake case and left out an empty "required"; the API takes both forms.
    [[decl]] = [t["functionDeclarations"] for t in got["tools"]]
    [[want_decl]] = [t["functionDeclarations"] for t in want["tools"]]
    assert decl["name"] == want_decl["name"] and decl["description"] == want_decl["description"]
    assert {**decl["parametersJsonSchema"], "required": []} == {**want_decl["parameters_json_schema"], "required": []}
    assert got["generationConfig"] == want["generationConfig"]
    assert got["contents"][0] == want["contents"][0]
    model_turn, answer_turn = got["contents"][1], got["contents"][2]
    want_model, want_answer = want["contents"][1], want["contents"][2]
    assert model_turn["role"] == want_model["role"] == "model"
    [part] = model_turn["parts"]
    [want_part] = want_model["parts"]
    # The signature goes back byte for byte as Gemini sent it; the recording has the same bytes in URL-safe
    # base64 (the Google SDK decodes and re-encodes it).
    sent = re.search(r'"thoughtSignature": ?"([^"]+)"', (FIXTURES / "gemini/tool-call-thought-signature-1.sse").read_text())
    assert sent is not None and part["thoughtSignature"] == sent.group(1)
    assert base64.b64decode(part["thoughtSignature"]) == base64.urlsafe_b64decode(want_part["thoughtSignature"])
    assert len(part["thoughtSignature"]) == 1408
    # Gemini sent the call without an id; pydantic-ai invented "pyd_ai_…" ids, we send none (Gemini pairs by order).
    assert part["functionCall"] == {k: v for k, v in want_part["functionCall"].items() if k != "id"}
    [fr] = [p["functionResponse"] for p in answer_turn["parts"]]
    [want_fr] = [p["functionResponse"] for p in want_answer["parts"]]
    assert answer_turn["role"] == want_answer["role"] == "user"
    assert fr["name"] == want_fr["name"] and "id" not in fr
    # pydantic-ai wraps a result as {"return_value": …}; ours is {"result": …}: the API takes any object.
    assert list(fr["response"].values()) == list(want_fr["response"].values()) == ["Mexico"]
    history_call = stream.report.messages[0]
    assert list(history_call.meta["thought_signatures"].values()) == [part["thoughtSignature"]]
    assert history_call.meta["provider_family"] == "gemini"


async def test_anthropic_tool_use_round_sends_text_tool_use_and_tool_result_blocks() -> None:
    replay = Replay("anthropic/tool-use.sse", "anthropic/thinking.sse")
    gen = AnthropicGenerator(api_key="k", model="claude-sonnet-4-20250514", client=replay.client())
    tool = FuncTool.from_function(get_weather, description="Current weather for a place.")
    ctx = ModelContextBuilder().user("What's the weather like in Paris?").tool(tool).build()
    stream = await ToolRounds(gen).generate_stream("m", ctx)
    _, end = await drain(stream)
    assert isinstance(end, Done)
    assert [r.status for r in stream.report.calls] == [CallStatus.OK]
    # The Anthropic Messages API shape of a tool round (docs: "tool use"): the assistant turn repeats its text and
    # tool_use block, the next user turn carries the tool_result for that tool_use id.
    assert replay.requests[1]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "What's the weather like in Paris?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll check the current weather in Paris for you."},
                {"type": "tool_use", "id": "toolu_01NRLabsLyVHZPKxbKvkfSMn", "name": "get_weather", "input": {"location": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01NRLabsLyVHZPKxbKvkfSMn", "content": "Sunny and 22 °C in Paris."}],
        },
    ]
    assert replay.requests[1]["tools"] == replay.requests[0]["tools"]
    assert stream.report.answer.startswith("Here are the basic steps for safely crossing the street:")


async def test_anthropic_thinking_signature_kept_in_the_report_is_replayed_next_turn() -> None:
    replay = Replay("anthropic/thinking.sse", "anthropic/tool-use.sse", "anthropic/thinking.sse")
    gen = AnthropicGenerator(api_key="k", model="claude-sonnet-4-0", client=replay.client())
    tool = FuncTool.from_function(get_weather, description="Current weather for a place.")
    question = ModelContextBuilder().user("How do I safely cross the street?").tool(tool).build()
    first = await ToolRounds(gen).generate_stream("m", question)
    await drain(first)
    [answer] = first.report.messages
    [thinking] = [p for p in answer.parts if isinstance(p, Thinking)]
    assert len(thinking.signature) == 504 and thinking.signature.startswith("EvMCCkYICxgCKkCHP2cSuEdcJK/0rF")
    follow = ModelContextBuilder().messages(first.report.messages).message(Message.user("And in Paris, what's the weather?")).build()
    second = await ToolRounds(gen).generate_stream("m", MultiModelContext(question, follow))
    await drain(second)
    sent = replay.requests[1]["messages"][1]
    assert sent["role"] == "assistant"
    assert sent["content"][0] == {"type": "thinking", "thinking": thinking.text, "signature": thinking.signature}
    # and the signature is still there in the tool round's follow-up request
    assert replay.requests[2]["messages"][1]["content"][0]["signature"] == thinking.signature
    assert [m.role for m in second.report.messages] == [Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
