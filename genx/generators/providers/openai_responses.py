"""OpenAI Responses API (``POST {base_url}/responses``, SSE; dispatch on ``data.type``).

Conversion rules: ``response.output_text.delta`` → Text;
``response.reasoning_summary_text.delta`` / ``response.reasoning_text.delta`` →
Thinking; a finished reasoning item with ``encrypted_content`` →
``Thinking("", encrypted_content, meta={"reasoning_item": {...}})`` for round
trips; function calls are assembled from ``function_call_arguments.delta`` keyed
by ``output_index`` (``.done`` / ``output_item.done`` carry the authoritative
arguments) and emitted at ``output_item.done``. Terminal events:
``response.completed`` → Done (and any output the deltas missed is emitted from
the final payload), ``response.incomplete`` → Truncated (max_output_tokens) or
Blocked (content_filter), ``response.failed`` / ``error`` → typed error. A body
that ends after only ``response.created`` is a StreamEndedError.

Round trip: assistant Text → ``output_text`` message item; tool calls →
``function_call`` items; tool results → ``function_call_output``; a
``Thinking("", encrypted)`` whose message meta holds ``reasoning_items`` is
replayed as reasoning items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from genx.chunk import Blob, Message, MessageChunk, Role, Text
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.convert import ConverterBase, as_int, call_chunk, text_chunk, thinking_chunk
from genx.generators.providers.errors import ProviderError, classify
from genx.generators.providers.generator import KindGenerator
from genx.generators.providers.request import (
    blob_kind,
    data_url,
    deep_merge,
    map_params,
    only_text,
    signature_usable,
    system_text,
    unsupported_blob,
)
from genx.generators.providers.toolcalls import FunctionToolLike, function_specs, pair_tool_results
from genx.generators.providers.transport import WireRequest
from genx.model import ModelContext, Usage

FAMILY = "openai-responses"
_PARAMS: dict[str, str | None] = {
    "max_tokens": "max_output_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": None,
    "stop": None,
    "frequency_penalty": None,
    "presence_penalty": None,
    "repeat_penalty": None,
    "seed": None,
}


# --------------------------------------------------------------------------- request


def _user_content(provider: str, m: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, Text):
            out.append({"type": "input_text", "text": p.text})
        elif isinstance(p, Blob):
            kind = blob_kind(p)
            if kind == "image":
                out.append({"type": "input_image", "image_url": data_url(p)})
            elif kind == "pdf":
                out.append({"type": "input_file", "filename": "document.pdf", "file_data": data_url(p)})
            else:
                raise unsupported_blob(provider, p, m.role, "the Responses API takes images and PDF files")
    return out


def responses_input(provider: str, ctx: ModelContext) -> list[dict[str, Any]]:
    paired = pair_tool_results(provider, ctx.messages())
    items: list[dict[str, Any]] = []
    for i, m in enumerate(paired.messages):
        if m.role == Role.SYSTEM:
            items.append({"role": "system", "content": only_text(provider, m)})
        elif m.role == Role.USER:
            items.append({"role": "user", "content": _user_content(provider, m)})
        elif m.role == Role.ASSISTANT:
            if signature_usable(m, FAMILY):
                for r in m.meta.get("reasoning_items") or []:
                    if isinstance(r, dict) and r.get("encrypted_content"):
                        items.append(
                            {
                                "type": "reasoning",
                                "id": r.get("id"),
                                "summary": r.get("summary") or [],
                                "encrypted_content": r["encrypted_content"],
                            }
                        )
            text = "".join(p.text for p in m.parts if isinstance(p, Text))
            for p in m.parts:
                if isinstance(p, Blob):
                    raise unsupported_blob(provider, p, m.role, "assistant messages carry text only")
            if text:
                items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
            for cid, c in zip(paired.call_ids.get(i, []), m.tool_calls, strict=True):
                items.append({"type": "function_call", "call_id": cid, "name": c.name, "arguments": c.arguments or "{}"})
        elif m.role == Role.TOOL and m.tool_result is not None:
            items.append({"type": "function_call_output", "call_id": paired.result_ids[i], "output": m.tool_result.content})
    return items


def build_responses_body(
    provider: str, model: str, ctx: ModelContext, *, stream: bool, forced: FunctionToolLike | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "input": responses_input(provider, ctx)}
    instructions = system_text(ctx)
    if instructions:
        body["instructions"] = instructions
    specs = function_specs(provider, ctx.tools())
    tools: list[dict[str, Any]] = [
        {"type": "function", "name": f.name, "description": f.description, "parameters": f.schema, "strict": False} for f in specs.functions
    ]
    if specs.web_search:
        tools.append({"type": "web_search"})
    if forced is not None:
        tools = [t for t in tools if t.get("name") != forced.name]
        tools.append(
            {"type": "function", "name": forced.name, "description": forced.description, "parameters": forced.schema, "strict": False}
        )
        body["tool_choice"] = {"type": "function", "name": forced.name}
    if tools:
        body["tools"] = tools
    params = ctx.params()
    body.update(map_params(provider, params, _PARAMS))
    if stream:
        body["stream"] = True
    if params is not None and params.extra:
        deep_merge(body, params.extra)
    return body


# --------------------------------------------------------------------------- conversion


def responses_usage(u: Mapping[str, Any]) -> Usage:
    idt = u.get("input_tokens_details") or {}
    odt = u.get("output_tokens_details") or {}
    return Usage(
        prompt_tokens=as_int(u.get("input_tokens")),
        cached_prompt_tokens=as_int(idt.get("cached_tokens")),
        generated_tokens=as_int(u.get("output_tokens")),
        thinking_tokens=as_int(odt.get("reasoning_tokens")),
    )


def _reasoning_chunk(item: Mapping[str, Any]) -> MessageChunk | None:
    enc = item.get("encrypted_content")
    if not enc:
        return None
    ref = {"id": item.get("id"), "encrypted_content": enc, "summary": item.get("summary") or []}
    return thinking_chunk("", str(enc), {"reasoning_item": ref})


class ResponsesConverter(ConverterBase):
    family = FAMILY

    def __init__(self, provider: str) -> None:
        super().__init__(provider)
        self._done_items: set[str] = set()
        self._text_seen = False
        self._error: ProviderError | None = None

    def feed(self, event: str, data: Any) -> list[MessageChunk]:
        if not isinstance(data, dict):
            return []
        t = str(data.get("type") or event)
        if t == "response.output_text.delta":
            s = data.get("delta") or ""
            if s:
                self._text_seen = True
                return [text_chunk(s)]
            return []
        if t in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            s = data.get("delta") or ""
            return [thinking_chunk(s)] if s else []
        if t == "response.function_call_arguments.delta":
            self.calls.append(as_int(data.get("output_index")), data.get("delta") or "")
            return []
        if t == "response.function_call_arguments.done":
            if isinstance(data.get("arguments"), str):
                self.calls.set_arguments(as_int(data.get("output_index")), data["arguments"])
            return []
        if t == "response.output_item.added":
            item = data.get("item") or {}
            if item.get("type") == "function_call":
                self.calls.start(as_int(data.get("output_index")), item.get("call_id"), item.get("name"), item_id=item.get("id"))
            return []
        if t == "response.output_item.done":
            return self._item_done(as_int(data.get("output_index")), data.get("item") or {})
        if t == "response.refusal.delta":
            self.refusal += str(data.get("delta") or "")
            return []
        if t == "response.created" or t == "response.in_progress":
            resp = data.get("response") or {}
            self.response_id = str(resp.get("id") or self.response_id)
            return []
        if t in ("response.completed", "response.incomplete", "response.failed"):
            return self._terminal(t, data.get("response") or {})
        if t == "error":
            self._error = classify(self.provider, None, data)
            return []
        return []

    def _item_done(self, idx: int, item: Mapping[str, Any]) -> list[MessageChunk]:
        kind = item.get("type")
        if item.get("id"):
            self._done_items.add(str(item["id"]))
        if kind == "function_call":
            if idx not in self.calls:
                self.calls.start(idx, item.get("call_id"), item.get("name"), item_id=item.get("id"))
            if isinstance(item.get("arguments"), str):
                self.calls.set_arguments(idx, item["arguments"])
            done = self.calls.complete(idx)
            if done is None:
                return []
            return [call_chunk(done[0], {"item_id": done[1].get("item_id")} if done[1].get("item_id") else None)]
        if kind == "reasoning":
            c = _reasoning_chunk(item)
            return [c] if c else []
        return []

    def _terminal(self, t: str, resp: Mapping[str, Any]) -> list[MessageChunk]:
        self.response_id = str(resp.get("id") or self.response_id)
        u = resp.get("usage")
        if isinstance(u, dict):
            self.usage = responses_usage(u)
        out = self._missed_output(resp.get("output") or [])
        status = str(resp.get("status") or t.rsplit(".", 1)[-1])
        if t == "response.failed":
            err = resp.get("error")
            self.end_with(self._error or classify(self.provider, None, {"error": err or {"message": "response failed"}}), "failed")
        elif t == "response.incomplete":
            reason = str((resp.get("incomplete_details") or {}).get("reason") or "incomplete")
            end: BaseException = Blocked(reason) if reason == "content_filter" else Truncated()
            self.end_with(end, reason)
        else:
            self.end_with(Blocked(f"refusal: {self.refusal}") if self.refusal else Done(), status)
        return out

    def _missed_output(self, output: list[Any]) -> list[MessageChunk]:
        """Output items the deltas did not deliver (the terminal payload is authoritative)."""
        out: list[MessageChunk] = []
        for idx, item in enumerate(output):
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if item.get("id") and str(item["id"]) in self._done_items:
                continue
            if kind in ("function_call", "reasoning"):
                out += self._item_done(-1 - idx, item)
            elif kind == "message" and not self._text_seen:
                for c in item.get("content") or []:
                    if isinstance(c, dict) and c.get("type") == "output_text" and c.get("text"):
                        out.append(text_chunk(str(c["text"])))
                    elif isinstance(c, dict) and c.get("type") == "refusal":
                        self.refusal += str(c.get("refusal") or "")
        return out

    def close(self) -> tuple[list[MessageChunk], BaseException]:
        if self._end is None and self._error is not None:
            return [], self._error
        return super().close()

    def eof_detail(self) -> str:
        return "no response.completed / response.incomplete / response.failed event"


def responses_convert_response(provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, ResponsesConverter]:
    conv = ResponsesConverter(provider)
    if not isinstance(body, dict) or ("error" in body and body.get("error") and "output" not in body):
        raise classify(provider, None, body)
    status = body.get("status") or "completed"
    t = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}.get(
        str(status), "response.completed"
    )
    chunks = conv.feed("", {"type": t, "response": body})
    tail, end = conv.close()
    return chunks + tail, end, conv


@dataclass(slots=True, frozen=True)
class ResponsesDialect:
    framing: Literal["sse", "ndjson"] = "sse"
    path: str = "responses"

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest:
        body = build_responses_body(config.provider, model, ctx, stream=True)
        return WireRequest(config.url(self.path), body, {**config.request_headers(), "accept": "text/event-stream"})

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest:
        return WireRequest(
            config.url(self.path), build_responses_body(config.provider, model, ctx, stream=False, forced=tool), config.request_headers()
        )

    def new_converter(self, provider: str) -> ResponsesConverter:
        return ResponsesConverter(provider)

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, ResponsesConverter]:
        return responses_convert_response(provider, body)


class OpenAIResponsesGenerator(KindGenerator):
    """``OpenAIResponsesGenerator(api_key=…, model="gpt-5-mini")``.

    Defaults from the kinds table: https://api.openai.com/v1, key ``OPENAI_API_KEY``.
    """

    KIND = "openai-responses"

    def new_dialect(self) -> ResponsesDialect:
        return ResponsesDialect()


__all__ = [
    "OpenAIResponsesGenerator",
    "ResponsesConverter",
    "ResponsesDialect",
    "build_responses_body",
    "responses_convert_response",
    "responses_input",
    "responses_usage",
]
