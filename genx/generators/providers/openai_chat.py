"""OpenAI Chat Completions (``POST {base_url}/chat/completions``, SSE) and every server that speaks it.

Server differences are :class:`ChatQuirks` values, not code: the rows for
llama.cpp server, vLLM, LM Studio, DashScope, DeepSeek, Groq and OpenRouter live
in :mod:`genx.generators.providers.compat`.

Conversion rules: ``delta.content`` → Text; the quirk's reasoning fields
(``reasoning_content`` / ``reasoning``) → Thinking; ``delta.refusal`` is
collected and ends the stream ``Blocked("refusal: …")``; ``tool_calls`` deltas
are assembled per (choice, index), ``id``/``name`` only on the first delta; a
call is emitted when its choice finishes. ``finish_reason`` stop/tool_calls →
Done, length → Truncated, content_filter → Blocked. Usage comes from any chunk
carrying ``usage`` (the usage-only ``choices: []`` chunk, Groq's finish chunk or
``x_groq.usage``). ``event: error`` or an ``{"error": …}`` payload ends the
stream with the typed error. ``[DONE]`` or the finish chunk is the terminal event.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from genx.chunk import Blob, Message, MessageChunk, Role, Text
from genx.errors import Blocked, Done
from genx.generators.provider_kinds import OPENAI_QUIRKS, ChatQuirks
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.convert import ConverterBase, as_int, call_chunk, end_for_finish, text_chunk, thinking_chunk
from genx.generators.providers.errors import ProviderConfigError, ProviderError, UnsupportedSettingError, classify
from genx.generators.providers.generator import KindGenerator
from genx.generators.providers.request import b64, blob_kind, data_url, deep_merge, map_params, only_text, system_text, unsupported_blob
from genx.generators.providers.toolcalls import FunctionToolLike, function_specs, pair_tool_results
from genx.generators.providers.transport import WireRequest
from genx.model import ModelContext, Usage

_TRUNCATED = frozenset({"length", "max_tokens"})
_BLOCKED = frozenset({"content_filter"})
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


# --------------------------------------------------------------------------- request


def _user_content(provider: str, m: Message, q: ChatQuirks) -> str | list[dict[str, Any]]:
    if all(not isinstance(p, Blob) for p in m.parts):
        return m.text()
    out: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, Blob):
            kind = blob_kind(p)
            if kind == "image" and q.images:
                out.append({"type": "image_url", "image_url": {"url": data_url(p)}})
            elif kind == "audio" and q.audio and p.mime.split(";")[0] in _AUDIO_FORMATS:
                out.append({"type": "input_audio", "input_audio": {"data": b64(p.data), "format": _AUDIO_FORMATS[p.mime.split(";")[0]]}})
            else:
                raise unsupported_blob(
                    provider,
                    p,
                    m.role,
                    "this server takes " + ("images" if q.images else "no blobs") + (" and wav/mp3 audio" if q.audio else ""),
                )
        elif isinstance(p, Text):
            out.append({"type": "text", "text": p.text})
    return out


def chat_messages(provider: str, ctx: ModelContext, q: ChatQuirks) -> list[dict[str, Any]]:
    paired = pair_tool_results(provider, ctx.messages())
    out: list[dict[str, Any]] = []
    system = system_text(ctx)
    if system:
        out.append({"role": q.system_role, "content": system})
    for i, m in enumerate(paired.messages):
        if m.role == Role.SYSTEM:
            out.append({"role": q.system_role, "content": only_text(provider, m)})
        elif m.role == Role.USER:
            msg: dict[str, Any] = {"role": "user", "content": _user_content(provider, m, q)}
            if m.name:
                msg["name"] = m.name
            out.append(msg)
        elif m.role == Role.ASSISTANT:
            text = only_text(provider, m)
            ids = paired.call_ids.get(i, [])
            if not text and not ids:
                continue
            msg = {"role": "assistant", "content": text or (None if q.null_content else "")}
            if ids:
                msg["tool_calls"] = [
                    {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
                    for cid, c in zip(ids, m.tool_calls, strict=True)
                ]
            out.append(msg)
        elif m.role == Role.TOOL:
            if m.tool_result is None:
                raise UnsupportedSettingError(provider, "a tool message without a tool_result; build it with Message.tool(ToolResult(...))")
            out.append({"role": "tool", "tool_call_id": paired.result_ids[i], "content": m.tool_result.content})
    return out


def chat_tools(provider: str, ctx: ModelContext) -> list[dict[str, Any]]:
    specs = function_specs(provider, ctx.tools())
    if specs.web_search:
        raise UnsupportedSettingError(
            provider, "the web-search tool is not available over Chat Completions; use the Responses, Anthropic or Gemini adapter"
        )
    return [
        {"type": "function", "function": {"name": f.name, "description": f.description, "parameters": f.schema}} for f in specs.functions
    ]


def build_chat_body(
    provider: str, model: str, ctx: ModelContext, q: ChatQuirks, *, stream: bool, forced: FunctionToolLike | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": chat_messages(provider, ctx, q)}
    tools = chat_tools(provider, ctx)
    if forced is not None:
        spec = {"type": "function", "function": {"name": forced.name, "description": forced.description, "parameters": forced.schema}}
        tools = [t for t in tools if t["function"]["name"] != forced.name] + [spec]
        if not q.forced_tool_choice:
            raise UnsupportedSettingError(provider, "this server cannot force a tool call (tool_choice); invoke() needs it")
        body["tool_choice"] = {"type": "function", "function": {"name": forced.name}}
    if tools:
        body["tools"] = tools
    params = ctx.params()
    body.update(map_params(provider, params, q.param_names()))
    if stream:
        body["stream"] = True
        if q.include_usage:
            body["stream_options"] = {"include_usage": True}
    if params is not None and params.extra:
        n = params.extra.get("n")
        if n not in (None, 1):
            raise UnsupportedSettingError(provider, f"n={n!r}: genx streams one answer per call; remove n from the params")
        deep_merge(body, params.extra)
    return body


# --------------------------------------------------------------------------- conversion


def chat_usage(u: Mapping[str, Any]) -> Usage:
    pd = u.get("prompt_tokens_details") or {}
    cd = u.get("completion_tokens_details") or {}
    cached = as_int(pd.get("cached_tokens")) or as_int(u.get("prompt_cache_hit_tokens"))
    write = as_int(pd.get("cache_write_tokens")) or as_int(u.get("cache_creation_input_tokens"))
    return Usage(
        prompt_tokens=as_int(u.get("prompt_tokens")),
        cached_prompt_tokens=cached,
        cache_write_tokens=write,
        generated_tokens=as_int(u.get("completion_tokens")),
        thinking_tokens=as_int(cd.get("reasoning_tokens")),
    )


class ChatConverter(ConverterBase):
    family = "openai-chat"

    def __init__(self, provider: str, quirks: ChatQuirks = OPENAI_QUIRKS) -> None:
        super().__init__(provider)
        self.reasoning_fields = quirks.reasoning_fields or ("reasoning_content", "reasoning")

    def feed(self, event: str, data: Any) -> list[MessageChunk]:
        if not isinstance(data, dict):
            return []
        if event == "error" or ("error" in data and "choices" not in data):
            raise classify(self.provider, None, data)
        if not self.response_id and isinstance(data.get("id"), str):
            self.response_id = data["id"]
        usage = data.get("usage")
        if not usage:
            xg = data.get("x_groq")
            usage = xg.get("usage") if isinstance(xg, dict) else None
        if isinstance(usage, dict) and usage:
            self.usage = chat_usage(usage)
        choices = data.get("choices")
        if not choices:
            return []
        out: list[MessageChunk] = []
        for ch in choices:
            out += self._choice(ch)
        return out

    def _choice(self, ch: Mapping[str, Any]) -> list[MessageChunk]:
        idx = as_int(ch.get("index"))
        meta = {"choice": idx} if idx else None
        out: list[MessageChunk] = []
        delta = ch.get("delta") or ch.get("message") or {}
        for f in self.reasoning_fields:
            r = delta.get(f)
            if isinstance(r, str) and r:
                out.append(thinking_chunk(r, meta=dict(meta) if meta else None))
        content = delta.get("content")
        if isinstance(content, str) and content:
            out.append(text_chunk(content, dict(meta) if meta else None))
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal and idx == 0:
            self.refusal += refusal
        tcs = delta.get("tool_calls")
        if isinstance(tcs, list):
            for pos, tc in enumerate(tcs):
                self._tool_delta(idx, pos, tc)
        reason = ch.get("finish_reason")
        if isinstance(reason, str) and reason:
            for call, _extra in self.calls.complete_where(lambda k, i=idx: k[0] == i):
                out.append(call_chunk(call, dict(meta) if meta else None))
            if idx == 0 or self._end is None:  # choice 0 decides the end state
                end = end_for_finish(reason, truncated=_TRUNCATED, blocked=_BLOCKED)
                if self.refusal:
                    end = Blocked(f"refusal: {self.refusal}")
                if not isinstance(self._end, ProviderError):
                    self._end = end
                    self.finish_reason = reason
        return out

    def _tool_delta(self, choice: int, pos: int, tc: Any) -> None:
        if not isinstance(tc, dict):
            return
        i = tc.get("index")
        if not isinstance(i, int):  # servers that omit the index send whole calls: position is the key
            i = pos
        key = (choice, i)
        fn = tc.get("function") or {}
        if key not in self.calls or tc.get("id") or fn.get("name"):
            self.calls.start(key, tc.get("id"), fn.get("name"))
        args = fn.get("arguments")
        if isinstance(args, str):
            self.calls.append(key, args)
        elif isinstance(args, dict):  # some servers send the object itself
            self.calls.set_arguments(key, json.dumps(args))

    def on_done(self) -> list[MessageChunk]:
        if self._end is None:
            self.end_with(Done(), "")
        self.finished = True
        return []


def chat_convert_response(
    provider: str, body: Any, quirks: ChatQuirks = OPENAI_QUIRKS
) -> tuple[list[MessageChunk], BaseException, ChatConverter]:
    """Non-streaming ``chat.completion`` body through the same conversion as the stream."""
    conv = ChatConverter(provider, quirks)
    if not isinstance(body, dict):
        raise classify(provider, None, {"error": {"message": f"unexpected response: {str(body)[:200]}"}})
    if "error" in body and "choices" not in body:
        raise classify(provider, None, body)
    chunks: list[MessageChunk] = []
    choices = []
    for ch in body.get("choices") or []:
        msg = dict(ch.get("message") or {})
        calls = msg.get("tool_calls")
        if isinstance(calls, list):
            msg["tool_calls"] = [{**tc, "index": k} for k, tc in enumerate(calls) if isinstance(tc, dict)]
        choices.append({"index": ch.get("index", 0), "delta": msg, "finish_reason": ch.get("finish_reason") or "stop"})
    chunks += conv.feed("", {"id": body.get("id"), "choices": choices, "usage": body.get("usage")})
    chunks += conv.on_done()
    tail, end = conv.close()
    return chunks + tail, end, conv


@dataclass(slots=True, frozen=True)
class ChatDialect:
    quirks: ChatQuirks = OPENAI_QUIRKS
    path: str = "chat/completions"
    framing: Literal["sse", "ndjson"] = "sse"

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest:
        body = build_chat_body(config.provider, model, ctx, self.quirks, stream=True)
        return WireRequest(config.url(self.path), body, {**config.request_headers(), "accept": "text/event-stream"})

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest:
        body = build_chat_body(config.provider, model, ctx, self.quirks, stream=False, forced=tool)
        return WireRequest(config.url(self.path), body, config.request_headers())

    def new_converter(self, provider: str) -> ChatConverter:
        return ChatConverter(provider, self.quirks)

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, ChatConverter]:
        return chat_convert_response(provider, body, self.quirks)


class OpenAIChatGenerator(KindGenerator):
    """Chat Completions generator.

    ``OpenAIChatGenerator(api_key=…, model="gpt-4o-mini")``: defaults from the kinds table
    (https://api.openai.com/v1, ``OPENAI_API_KEY``, :data:`OPENAI_QUIRKS`); for OpenAI-compatible
    servers prefer :func:`genx.generators.providers.compat.openai_compatible`. ``quirks`` replaces the
    row's; the rest as :class:`~genx.generators.providers.generator.KindGenerator`.
    """

    KIND = "openai-chat"

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        *,
        quirks: ChatQuirks | None = None,
        **kw: Any,
    ) -> None:
        self._quirks = quirks if quirks is not None else OPENAI_QUIRKS
        super().__init__(base_url, api_key, model, **kw)

    def new_dialect(self) -> ChatDialect:
        return ChatDialect(self._quirks)


def quirks_with(provider: str, base: ChatQuirks, overrides: Mapping[str, Any]) -> ChatQuirks:
    """``base`` with config overrides (lists become tuples); an unknown quirk name is a config error."""
    if not overrides:
        return base
    known = set(ChatQuirks.__dataclass_fields__)
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ProviderConfigError(provider, f"unknown quirk(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()}
    return replace(base, **kw)


__all__ = [
    "OPENAI_QUIRKS",
    "ChatConverter",
    "ChatDialect",
    "ChatQuirks",
    "OpenAIChatGenerator",
    "build_chat_body",
    "chat_convert_response",
    "chat_messages",
    "chat_usage",
    "quirks_with",
]
