"""Ollama native chat (``POST {base_url}/api/chat``, NDJSON: one JSON object per line).

Conversion rules: ``message.content`` → Text, ``message.thinking`` → Thinking,
``message.tool_calls`` arrive whole (arguments are an object) → tool calls at
once, ids generated when missing. The line with ``"done": true`` is terminal:
``done_reason`` stop → Done, length → Truncated; ``prompt_eval_count`` /
``eval_count`` give usage. An ``{"error": …}`` line ends with the typed error.

``invoke`` forces the tool through structured output (``format`` = the tool's
JSON schema): Ollama has no forced tool choice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from genx.chunk import Blob, FuncCall, MessageChunk, Role, Text
from genx.errors import Done, Truncated
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.convert import ConverterBase, as_int, call_chunk, text_chunk, thinking_chunk
from genx.generators.providers.errors import UnsupportedSettingError, classify
from genx.generators.providers.framing import loads_json
from genx.generators.providers.generator import KindGenerator, NoToolCallError
from genx.generators.providers.request import b64, blob_kind, deep_merge, map_params, only_text, system_text, unsupported_blob
from genx.generators.providers.toolcalls import (
    DroppedCall,
    FunctionToolLike,
    function_specs,
    new_call_id,
    normalize_arguments,
    pair_tool_results,
    parse_arguments,
)
from genx.generators.providers.transport import WireRequest
from genx.model import ModelContext, Usage

_OPTIONS: dict[str, str | None] = {
    "max_tokens": "num_predict",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "stop": "stop",
    "frequency_penalty": "frequency_penalty",
    "presence_penalty": "presence_penalty",
    "repeat_penalty": "repeat_penalty",
    "seed": "seed",
}


def ollama_messages(provider: str, ctx: ModelContext) -> list[dict[str, Any]]:
    paired = pair_tool_results(provider, ctx.messages())
    out: list[dict[str, Any]] = []
    system = system_text(ctx)
    if system:
        out.append({"role": "system", "content": system})
    for i, m in enumerate(paired.messages):
        if m.role == Role.SYSTEM:
            out.append({"role": "system", "content": only_text(provider, m)})
        elif m.role == Role.USER:
            images = []
            for p in m.parts:
                if isinstance(p, Blob):
                    if blob_kind(p) != "image":
                        raise unsupported_blob(provider, p, m.role, "Ollama takes images only")
                    images.append(b64(p.data))
            msg: dict[str, Any] = {"role": "user", "content": m.text()}
            if images:
                msg["images"] = images
            out.append(msg)
        elif m.role == Role.ASSISTANT:
            msg = {"role": "assistant", "content": only_text(provider, m)}
            if m.thinking():
                msg["thinking"] = m.thinking()
            calls = []
            for c in m.tool_calls:
                try:
                    args = loads_json(c.arguments or "{}")
                except ValueError:
                    args = {}
                calls.append({"function": {"name": c.name, "arguments": args if isinstance(args, dict) else {}}})
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
        elif m.role == Role.TOOL and m.tool_result is not None:
            out.append({"role": "tool", "content": m.tool_result.content, "tool_name": paired.result_names[i]})
    return out


def build_ollama_body(
    provider: str, model: str, ctx: ModelContext, *, stream: bool, forced: FunctionToolLike | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": ollama_messages(provider, ctx), "stream": stream}
    specs = function_specs(provider, ctx.tools())
    if specs.web_search:
        raise UnsupportedSettingError(provider, "Ollama has no web-search tool; remove it or use a cloud provider")
    if forced is not None:
        body["format"] = forced.schema
        hint = f"Answer only with the JSON arguments for the function {forced.name!r}: {forced.description}".strip()
        body["messages"].insert(0, {"role": "system", "content": hint})
    elif specs.functions:
        body["tools"] = [
            {"type": "function", "function": {"name": f.name, "description": f.description, "parameters": f.schema}}
            for f in specs.functions
        ]
    params = ctx.params()
    options = map_params(provider, params, _OPTIONS)
    if options:
        body["options"] = options
    if params is not None and params.extra:
        deep_merge(body, params.extra)
    return body


def ollama_usage(d: Mapping[str, Any]) -> Usage:
    return Usage(prompt_tokens=as_int(d.get("prompt_eval_count")), generated_tokens=as_int(d.get("eval_count")))


class OllamaConverter(ConverterBase):
    family = "ollama"

    def feed(self, event: str, data: Any) -> list[MessageChunk]:
        if not isinstance(data, dict):
            return []
        if "error" in data:
            raise classify(self.provider, None, data)
        out: list[MessageChunk] = []
        msg = data.get("message") or {}
        th = msg.get("thinking")
        if isinstance(th, str) and th:
            out.append(thinking_chunk(th))
        content = msg.get("content")
        if isinstance(content, str) and content:
            out.append(text_chunk(content))
        for tc in msg.get("tool_calls") or []:
            if not isinstance(tc, dict):
                continue
            fn = tc.get("function") or {}
            name = fn.get("name")
            args = fn.get("arguments")
            raw = args if isinstance(args, str) else json.dumps(args if isinstance(args, dict) else {}, ensure_ascii=False)
            norm = normalize_arguments(raw)
            if not name or norm is None:
                self.calls.dropped.append(DroppedCall(str(name or ""), str(tc.get("id") or ""), raw, "invalid tool call"))
                continue
            out.append(call_chunk(FuncCall(str(name), norm, str(tc.get("id") or "") or new_call_id())))
        if data.get("done"):
            reason = str(data.get("done_reason") or "stop")
            self.usage = ollama_usage(data)
            self.end_with(Truncated() if reason == "length" else Done(), reason)
        return out

    def eof_detail(self) -> str:
        return 'no line with "done": true'


def ollama_convert_response(provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, OllamaConverter]:
    conv = OllamaConverter(provider)
    chunks = conv.feed("", body)
    tail, end = conv.close()
    return chunks + tail, end, conv


@dataclass(slots=True, frozen=True)
class OllamaDialect:
    framing: Literal["sse", "ndjson"] = "ndjson"
    path: str = "api/chat"

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest:
        return WireRequest(config.url(self.path), build_ollama_body(config.provider, model, ctx, stream=True), config.request_headers())

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest:
        return WireRequest(
            config.url(self.path), build_ollama_body(config.provider, model, ctx, stream=False, forced=tool), config.request_headers()
        )

    def new_converter(self, provider: str) -> OllamaConverter:
        return OllamaConverter(provider)

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, OllamaConverter]:
        return ollama_convert_response(provider, body)


class OllamaGenerator(KindGenerator):
    """``OllamaGenerator(model="qwen3:4b")``; defaults from the kinds table (http://127.0.0.1:11434, no key).

    ``invoke`` returns the structured-output JSON as the call's arguments.
    """

    KIND = "ollama"

    def new_dialect(self) -> OllamaDialect:
        return OllamaDialect()

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FunctionToolLike) -> tuple[Usage, FuncCall]:
        req = self.dialect.invoke_request(self.config, self.model_for(pattern), self.context(ctx), tool)
        body = await self.transport.post_json(req)
        chunks, end, conv = self.dialect.convert_response(self.provider, body)
        if isinstance(end, Exception) and not isinstance(end, Done | Truncated):
            raise end
        calls = [c.tool_call for c in chunks if c.tool_call is not None and c.tool_call.name == tool.name]
        if calls:
            call = calls[0]
        else:
            text = "".join(c.part.text for c in chunks if isinstance(c.part, Text))
            call = FuncCall(tool.name, text.strip(), new_call_id())
        if isinstance(end, Truncated):
            raise NoToolCallError(
                self.provider, f"no valid call of tool {tool.name!r}: the answer was cut by num_predict; raise max_tokens"
            )
        parse_arguments(self.provider, tool, call)
        return (conv.usage or Usage(), call)


__all__ = [
    "OllamaConverter",
    "OllamaDialect",
    "OllamaGenerator",
    "build_ollama_body",
    "ollama_convert_response",
    "ollama_messages",
    "ollama_usage",
]
