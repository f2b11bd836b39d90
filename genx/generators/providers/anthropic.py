"""Anthropic Messages (``POST {base_url}/v1/messages``, SSE with named events).

Conversion rules: ``text_delta`` → Text; ``thinking_delta`` → Thinking;
``signature_delta`` → ``Thinking("", signature)``; a ``redacted_thinking`` block →
``Thinking("", data, meta={"redacted": True})``; ``tool_use`` blocks are assembled
from ``input_json_delta`` (an empty ``partial_json`` means ``{}``) and emitted at
``content_block_stop``; a block that never stops (cut by ``max_tokens``) is
dropped unless its JSON is complete. ``message_delta.stop_reason``: end_turn /
stop_sequence / tool_use / pause_turn → Done, max_tokens → Truncated, refusal →
Blocked. ``message_stop`` (or a ``message_delta`` with a stop reason followed by
EOF) is terminal; ``event: error`` ends with the typed error. Usage: input,
cache read / creation from ``message_start``, output from ``message_delta``.

Round trip: an assistant ``Thinking(text, signature)`` becomes a ``thinking``
block, ``Thinking("", data)`` a ``redacted_thinking`` block (only for messages
whose ``meta["provider_family"]`` is absent or ``"anthropic"``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from genx.chunk import Blob, Message, MessageChunk, Role, Text, Thinking
from genx.errors import Done
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.convert import ConverterBase, as_int, call_chunk, end_for_finish, text_chunk, thinking_chunk
from genx.generators.providers.errors import UnsupportedSettingError, classify
from genx.generators.providers.framing import loads_json
from genx.generators.providers.generator import KindGenerator
from genx.generators.providers.request import b64, blob_kind, deep_merge, map_params, signature_usable, system_text, unsupported_blob
from genx.generators.providers.toolcalls import FunctionToolLike, function_specs, pair_tool_results
from genx.generators.providers.transport import WireRequest
from genx.model import ModelContext, Usage

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
_PARAMS: dict[str, str | None] = {
    "max_tokens": "max_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "stop": "stop_sequences",
    "frequency_penalty": None,
    "presence_penalty": None,
    "repeat_penalty": None,
    "seed": None,
}
_TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})
_BLOCKED = frozenset({"refusal"})
FAMILY = "anthropic"


# --------------------------------------------------------------------------- request


def _user_blocks(provider: str, m: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, Text):
            if p.text:
                out.append({"type": "text", "text": p.text})
        elif isinstance(p, Blob):
            kind = blob_kind(p)
            src = {"type": "base64", "media_type": p.mime.split(";")[0], "data": b64(p.data)}
            if kind == "image":
                out.append({"type": "image", "source": src})
            elif kind == "pdf":
                out.append({"type": "document", "source": src})
            else:
                raise unsupported_blob(provider, p, m.role, "Anthropic takes images and PDF documents only")
    return out


def _assistant_blocks(provider: str, m: Message, ids: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    keep_sig = signature_usable(m, FAMILY)
    for p in m.parts:
        if isinstance(p, Thinking):
            if not keep_sig or not p.signature:
                continue  # thinking without a signature cannot be replayed
            if p.text:
                out.append({"type": "thinking", "thinking": p.text, "signature": p.signature})
            else:
                out.append({"type": "redacted_thinking", "data": p.signature})
        elif isinstance(p, Text):
            if p.text:
                out.append({"type": "text", "text": p.text})
        else:
            raise unsupported_blob(provider, p, m.role, "assistant messages carry text and thinking only")
    for cid, c in zip(ids, m.tool_calls, strict=True):
        try:
            args = loads_json(c.arguments or "{}")
        except ValueError:
            args = {}
        out.append({"type": "tool_use", "id": cid, "name": c.name, "input": args if isinstance(args, dict) else {}})
    return out


def anthropic_messages(provider: str, ctx: ModelContext) -> tuple[str, list[dict[str, Any]]]:
    paired = pair_tool_results(provider, ctx.messages())
    msgs: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if msgs and msgs[-1]["role"] == role:  # the API wants alternating roles: merge neighbours
            msgs[-1]["content"].extend(blocks)
        else:
            msgs.append({"role": role, "content": blocks})

    for i, m in enumerate(paired.messages):
        if m.role == Role.USER:
            add("user", _user_blocks(provider, m))
        elif m.role == Role.ASSISTANT:
            add("assistant", _assistant_blocks(provider, m, paired.call_ids.get(i, [])))
        elif m.role == Role.TOOL and m.tool_result is not None:
            tr = m.tool_result
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": paired.result_ids[i], "content": tr.content}
            if tr.is_error:
                block["is_error"] = True
            add("user", [block])
    return system_text(ctx, paired.messages), msgs


def build_anthropic_body(
    provider: str, model: str, ctx: ModelContext, *, stream: bool, forced: FunctionToolLike | None = None
) -> dict[str, Any]:
    system, messages = anthropic_messages(provider, ctx)
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": DEFAULT_MAX_TOKENS}
    if system:
        body["system"] = system
    specs = function_specs(provider, ctx.tools())
    tools: list[dict[str, Any]] = [{"name": f.name, "description": f.description, "input_schema": f.schema} for f in specs.functions]
    if specs.web_search:
        tools.append({"type": "web_search_20250305", "name": "web_search"})
    if forced is not None:
        tools = [t for t in tools if t.get("name") != forced.name]
        tools.append({"name": forced.name, "description": forced.description, "input_schema": forced.schema})
        body["tool_choice"] = {"type": "tool", "name": forced.name}
    if tools:
        body["tools"] = tools
    params = ctx.params()
    body.update(map_params(provider, params, _PARAMS))
    if stream:
        body["stream"] = True
    if params is not None and params.extra:
        deep_merge(body, params.extra)
    if forced is not None and isinstance(body.get("thinking"), dict) and body["thinking"].get("type") == "enabled":
        raise UnsupportedSettingError(
            provider, "extended thinking cannot be combined with a forced tool call; remove 'thinking' for invoke()"
        )
    return body


# --------------------------------------------------------------------------- conversion


def anthropic_usage(u: Mapping[str, Any], prev: Usage | None) -> Usage:
    out = Usage() if prev is None else Usage(prev.prompt_tokens, prev.cached_prompt_tokens, prev.cache_write_tokens, prev.generated_tokens)
    if "input_tokens" in u and u["input_tokens"] is not None:
        out.prompt_tokens = as_int(u.get("input_tokens"))
    if u.get("cache_read_input_tokens") is not None:
        out.cached_prompt_tokens = as_int(u.get("cache_read_input_tokens"))
    if u.get("cache_creation_input_tokens") is not None:
        out.cache_write_tokens = as_int(u.get("cache_creation_input_tokens"))
    if "output_tokens" in u and u["output_tokens"] is not None:
        out.generated_tokens = as_int(u.get("output_tokens"))
    return out


class AnthropicConverter(ConverterBase):
    family = FAMILY

    def __init__(self, provider: str) -> None:
        super().__init__(provider)
        self._kinds: dict[int, str] = {}
        self._stop_seen = False

    def feed(self, event: str, data: Any) -> list[MessageChunk]:
        if not isinstance(data, dict):
            return []
        t = data.get("type") or event
        if t == "content_block_delta":
            d = data.get("delta") or {}
            dt = d.get("type")
            if dt == "text_delta":
                s = d.get("text") or ""
                return [text_chunk(s)] if s else []
            if dt == "input_json_delta":
                self.calls.append(as_int(data.get("index")), d.get("partial_json") or "")
                return []
            if dt == "thinking_delta":
                s = d.get("thinking") or ""
                return [thinking_chunk(s)] if s else []
            if dt == "signature_delta":
                sig = d.get("signature") or ""
                return [thinking_chunk("", sig)] if sig else []
            return []
        if t == "content_block_start":
            idx = as_int(data.get("index"))
            b = data.get("content_block") or {}
            kind = str(b.get("type") or "")
            self._kinds[idx] = kind
            if kind == "tool_use":
                self.calls.start(idx, b.get("id"), b.get("name"))
                inp = b.get("input")
                if isinstance(inp, dict) and inp:
                    self.calls.set_arguments(idx, json.dumps(inp))
            elif kind == "text" and b.get("text"):
                return [text_chunk(b["text"])]
            elif kind == "thinking" and b.get("thinking"):
                return [thinking_chunk(b["thinking"], b.get("signature") or "")]
            elif kind == "redacted_thinking":
                return [thinking_chunk("", str(b.get("data") or ""), {"redacted": True})]
            return []
        if t == "content_block_stop":
            idx = as_int(data.get("index"))
            if self._kinds.get(idx) == "tool_use":
                done = self.calls.complete(idx)
                return [call_chunk(done[0])] if done else []
            return []
        if t == "message_start":
            msg = data.get("message") or {}
            self.response_id = str(msg.get("id") or "")
            u = msg.get("usage")
            if isinstance(u, dict):
                self.usage = anthropic_usage(u, None)
            return []
        if t == "message_delta":
            d = data.get("delta") or {}
            u = data.get("usage")
            if isinstance(u, dict):
                self.usage = anthropic_usage(u, self.usage)
            reason = d.get("stop_reason")
            if isinstance(reason, str) and reason:
                self.end_with(end_for_finish(reason, truncated=_TRUNCATED, blocked=_BLOCKED), reason, final=False)
            return []
        if t == "message_stop":
            if self._end is None:
                self.end_with(Done(), "")
            self.finished = True
            return []
        if t == "error":
            raise classify(self.provider, None, data)
        return []  # ping and future event types

    def eof_detail(self) -> str:
        return "no message_delta with a stop_reason and no message_stop"


def anthropic_convert_response(provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, AnthropicConverter]:
    """A non-streaming ``message`` through the streaming converter (as synthetic events)."""
    conv = AnthropicConverter(provider)
    if not isinstance(body, dict) or body.get("type") == "error":
        raise classify(provider, None, body)
    out = conv.feed("", {"type": "message_start", "message": {"id": body.get("id"), "usage": body.get("usage") or {}}})
    for i, b in enumerate(body.get("content") or []):
        if not isinstance(b, dict):
            continue
        if b.get("type") == "tool_use":
            out += conv.feed("", {"type": "content_block_start", "index": i, "content_block": {**b, "input": {}}})
            out += conv.feed(
                "",
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(b.get("input") or {})},
                },
            )
        else:
            out += conv.feed("", {"type": "content_block_start", "index": i, "content_block": b})
        out += conv.feed("", {"type": "content_block_stop", "index": i})
    out += conv.feed(
        "", {"type": "message_delta", "delta": {"stop_reason": body.get("stop_reason") or "end_turn"}, "usage": body.get("usage") or {}}
    )
    out += conv.feed("", {"type": "message_stop"})
    tail, end = conv.close()
    return out + tail, end, conv


@dataclass(slots=True, frozen=True)
class AnthropicDialect:
    framing: Literal["sse", "ndjson"] = "sse"
    path: str = "v1/messages"

    def _headers(self, config: ProviderConfig) -> dict[str, str]:
        return {"anthropic-version": API_VERSION, **config.request_headers()}

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest:
        body = build_anthropic_body(config.provider, model, ctx, stream=True)
        return WireRequest(config.url(self.path), body, {**self._headers(config), "accept": "text/event-stream"})

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest:
        return WireRequest(
            config.url(self.path), build_anthropic_body(config.provider, model, ctx, stream=False, forced=tool), self._headers(config)
        )

    def new_converter(self, provider: str) -> AnthropicConverter:
        return AnthropicConverter(provider)

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, AnthropicConverter]:
        return anthropic_convert_response(provider, body)


class AnthropicGenerator(KindGenerator):
    """``AnthropicGenerator(api_key=…, model="claude-sonnet-4-0")``.

    Defaults from the kinds table: https://api.anthropic.com, key ``ANTHROPIC_API_KEY``.
    """

    KIND = "anthropic"

    def new_dialect(self) -> AnthropicDialect:
        return AnthropicDialect()


__all__ = [
    "AnthropicConverter",
    "AnthropicDialect",
    "AnthropicGenerator",
    "anthropic_convert_response",
    "anthropic_messages",
    "anthropic_usage",
    "build_anthropic_body",
]
