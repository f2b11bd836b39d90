"""Fuzzing the SSE / NDJSON framing and the provider converters behind it.

Random splits of a valid body give the same events; garbage and huge lines give
bounded memory and a typed error (``ValueError`` from the decoders, a provider
``ProviderError`` from ``convert_bytes``), never another exception.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from genx.errors import State
from genx.generators.providers.anthropic import AnthropicConverter
from genx.generators.providers.convert import ConverterBase
from genx.generators.providers.errors import ProtocolError, ProviderError
from genx.generators.providers.framing import FrameTooLargeError, NDJSONDecoder, SSEDecoder, SSEEvent
from genx.generators.providers.gemini import GeminiConverter
from genx.generators.providers.generator import convert_bytes
from genx.generators.providers.ollama import OllamaConverter
from genx.generators.providers.openai_chat import ChatConverter
from genx.generators.providers.openai_responses import ResponsesConverter

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIMIT = 256  # a small line limit, so "huge" stays CI-sized

field_text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n\x00"), max_size=30)
events = st.lists(
    st.builds(
        SSEEvent,
        event=st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters=":"), max_size=10),
        data=st.lists(field_text, min_size=1, max_size=3).map("\n".join),
        id=st.just(""),
    ),
    max_size=6,
)
line_end = st.sampled_from([b"\n", b"\r\n", b"\r"])
cut_list = st.lists(st.integers(min_value=0, max_value=2000), max_size=12)


def pieces(body: bytes, cuts: list[int]) -> list[bytes]:
    bounds = sorted({min(c, len(body)) for c in cuts} | {0, len(body)})
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def sse_body(evs: list[SSEEvent], eol: bytes, comments: bool) -> bytes:
    out = b""
    for e in evs:
        if comments:
            out += b": keep-alive" + eol
        if e.event:
            out += b"event: " + e.event.encode() + eol
        for line in e.data.split("\n"):
            out += b"data: " + line.encode() + eol
        out += eol
    return out


def decode_sse(parts: list[bytes], limit: int = 1 << 20) -> list[SSEEvent]:
    d = SSEDecoder(max_line_bytes=limit)
    out: list[SSEEvent] = []
    for p in parts:
        out += d.feed(p)
        assert d.buffered <= 2 * limit
    return out + d.close()


@FUZZ
@given(evs=events, eol=line_end, comments=st.booleans(), cuts=cut_list, trailing_blank=st.booleans())
# Found by this test: a read ending "\r\r" merged the two lone CRs into one line end (the event's blank line was lost).
@example(evs=[SSEEvent("00", "00"), SSEEvent("", "")], eol=b"\r", comments=False, cuts=[20], trailing_blank=False)
def test_any_split_of_a_valid_sse_body_gives_the_events_it_encodes(
    evs: list[SSEEvent], eol: bytes, comments: bool, cuts: list[int], trailing_blank: bool
) -> None:
    body = sse_body(evs, eol, comments)
    if not trailing_blank and body:
        body = body[: -len(eol)]  # the last event without its blank line (Anthropic ends so)
    expect = [(e.event.strip(), e.data) for e in evs]
    assert [(e.event, e.data) for e in decode_sse(pieces(body, cuts))] == expect


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | field_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(field_text, inner, max_size=3),
    max_leaves=10,
)


@FUZZ
@given(objs=st.lists(json_values, max_size=8), cuts=cut_list, blank_lines=st.booleans(), final_newline=st.booleans())
def test_any_split_of_a_valid_ndjson_body_gives_its_objects(
    objs: list[Any], cuts: list[int], blank_lines: bool, final_newline: bool
) -> None:
    sep = b"\n\n" if blank_lines else b"\n"
    body = sep.join(json.dumps(o, ensure_ascii=False).encode() for o in objs) + (b"\n" if final_newline else b"")
    d = NDJSONDecoder()
    out: list[Any] = []
    for p in pieces(body, cuts):
        out += d.feed(p)
    assert out + d.close() == objs


@FUZZ
@given(body=st.binary(max_size=1500), cuts=cut_list)
@example(body=b"data: " + b"[" * 100_000 + b"\n\n", cuts=[])
@example(body=b"x" * (LIMIT + 1), cuts=[10, 100])
@example(body=b"data: a\n" * 200, cuts=[])  # one event growing past the limit line by line
def test_sse_garbage_never_raises_anything_but_the_typed_limit_and_memory_stays_bounded(body: bytes, cuts: list[int]) -> None:
    try:
        decode_sse(pieces(body, cuts), limit=LIMIT)
    except FrameTooLargeError as e:
        assert f"exceeds the limit of {LIMIT} bytes" in str(e)


@FUZZ
@given(body=st.binary(max_size=1500) | st.text(max_size=300).map(str.encode), cuts=cut_list)
@example(body=b"[" * 100_000 + b"\n", cuts=[])  # deeper than the JSON parser can recurse
@example(body=b'{"a":' * 50_000, cuts=[7])
def test_ndjson_garbage_raises_only_a_value_error_and_memory_stays_bounded(body: bytes, cuts: list[int]) -> None:
    d = NDJSONDecoder(max_line_bytes=LIMIT if len(body) < 10_000 else 1 << 20)
    try:
        for p in pieces(body, cuts):
            d.feed(p)
            assert d.buffered <= d.max_line_bytes
        d.close()
    except ValueError as e:
        assert "not a JSON line" in str(e) or isinstance(e, FrameTooLargeError)


def test_a_huge_line_is_refused_before_it_is_buffered_whole() -> None:
    d = NDJSONDecoder(max_line_bytes=1000)
    d.feed(b"x" * 600)
    with pytest.raises(FrameTooLargeError, match="1200 bytes exceeds the limit of 1000"):
        d.feed(b"x" * 600)
    s = SSEDecoder(max_line_bytes=1000)
    with pytest.raises(FrameTooLargeError):
        s.feed(b"data: " + b"y" * 1000 + b"\n")


# -- the converters behind the framing: garbage events end in a provider error -------------------------------------
CONVERTERS: dict[str, tuple[Callable[[], ConverterBase], str]] = {
    "openai-chat": (lambda: ChatConverter("openai"), "sse"),
    "openai-responses": (lambda: ResponsesConverter("openai"), "sse"),
    "anthropic": (lambda: AnthropicConverter("anthropic"), "sse"),
    "gemini": (lambda: GeminiConverter("gemini"), "sse"),
    "ollama": (lambda: OllamaConverter("ollama"), "ndjson"),
}
KEYS = [
    "type", "choices", "delta", "content", "text", "role", "index", "tool_calls", "function", "name", "arguments", "id",
    "finish_reason", "usage", "message", "content_block", "stop_reason", "candidates", "parts", "functionCall", "args",
    "finishReason", "usageMetadata", "response", "output_index", "item", "item_id", "done", "done_reason", "thinking",
    "partial_json", "input", "error", "status", "output", "refusal", "reasoning_content", "prompt_eval_count", "eval_count",
    "input_tokens", "output_tokens", "prompt_tokens", "completion_tokens", "totalTokenCount", "thought", "signature",
]  # fmt: skip
TYPES = [
    "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop",
    "error", "ping", "text_delta", "input_json_delta", "thinking_delta", "tool_use", "text", "thinking", "function_call",
    "response.created", "response.output_text.delta", "response.output_item.added", "response.output_item.done",
    "response.function_call_arguments.delta", "response.completed", "response.failed", "response.incomplete",
    "response.reasoning_summary_text.delta", "response.refusal.delta", "message",
]  # fmt: skip
scalar = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.sampled_from(TYPES) | st.text(max_size=8)
shaped = st.recursive(
    scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5), max_leaves=25
)


def event_bytes(obj: Any, framing: str) -> bytes:
    raw = json.dumps(obj).encode()
    if framing == "ndjson":
        return raw + b"\n"
    kind = obj.get("type") if isinstance(obj, dict) and isinstance(obj.get("type"), str) else "message"
    return b"event: " + kind.encode() + b"\ndata: " + raw + b"\n\n"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(CONVERTERS)), objs=st.lists(shaped, max_size=6), tail=st.binary(max_size=40), cuts=cut_list)
# Found by this test: the OpenAI Chat converter iterated "choices": true (a TypeError, not a provider error).
@example(kind="openai-chat", objs=[{"choices": True}], tail=b"", cuts=[])
@example(kind="anthropic", objs=[], tail=b"data: " + b"[" * 100_000 + b"\n\n", cuts=[])  # found: a RecursionError
def test_shaped_garbage_events_end_every_converter_with_a_provider_error_or_an_end_state(
    kind: str, objs: list[Any], tail: bytes, cuts: list[int]
) -> None:
    make, framing = CONVERTERS[kind]
    body = b"".join(event_bytes(o, framing) for o in objs) + tail
    _, end = convert_bytes(make(), framing, pieces(body, cuts))  # type: ignore[arg-type]
    assert isinstance(end, ProviderError | State), repr(end)


def test_a_body_that_is_one_endless_line_ends_the_stream_with_a_protocol_error() -> None:
    _, end = convert_bytes(ChatConverter("openai"), "sse", [b"data: " + b"a" * (1 << 20)] * 20)
    assert isinstance(end, ProtocolError) and "exceeds the limit" in str(end)
