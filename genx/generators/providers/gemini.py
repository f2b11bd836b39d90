"""Google Gemini (``POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse``).

The real wire frames events with CRLF; every chunk is a whole
``GenerateContentResponse`` with cumulative ``usageMetadata``.

Conversion rules: text parts → Text, ``thought: true`` parts → Thinking; a
``thoughtSignature`` on a text or thought part → ``Thinking("", signature)``
right after that part's text (an empty text part only carries its signature:
no empty Text chunk); ``functionCall`` parts → tool calls at once (Gemini sends
whole calls; ids are generated when missing), with the signature in
``meta["thought_signature"]``; Vertex's streamed ``partialArgs`` calls
(``willContinue``) are assembled by JSON path and closed by the empty
``functionCall`` part. ``finishReason`` STOP → Done, MAX_TOKENS → Truncated,
SAFETY / RECITATION / BLOCKLIST / PROHIBITED_CONTENT / SPII → Blocked,
MALFORMED_FUNCTION_CALL and other failures → a typed error;
``promptFeedback.blockReason`` → Blocked. The chunk with a finish reason is terminal.

Round trip: a signature is replayed on the part it followed (text or
functionCall, the latter via ``Message.meta["thought_signatures"][call_id]``);
generated call ids are not sent.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Role, Text, Thinking
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.convert import ConverterBase, as_int, call_chunk, text_chunk, thinking_chunk
from genx.generators.providers.errors import ProviderError, classify
from genx.generators.providers.framing import loads_json
from genx.generators.providers.generator import KindGenerator
from genx.generators.providers.request import b64, blob_kind, deep_merge, map_params, signature_usable, system_text, unsupported_blob
from genx.generators.providers.toolcalls import (
    DroppedCall,
    FunctionToolLike,
    function_specs,
    is_generated_id,
    new_call_id,
    pair_tool_results,
)
from genx.generators.providers.transport import WireRequest
from genx.model import ModelContext, Usage

FAMILY = "gemini"
_PARAMS: dict[str, str | None] = {
    "max_tokens": "maxOutputTokens",
    "temperature": "temperature",
    "top_p": "topP",
    "top_k": "topK",
    "stop": "stopSequences",
    "frequency_penalty": "frequencyPenalty",
    "presence_penalty": "presencePenalty",
    "repeat_penalty": None,
    "seed": "seed",
}
_BLOCKED = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "LANGUAGE",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)
_FAILED = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "OTHER", "NO_IMAGE"})


# --------------------------------------------------------------------------- request


def _user_parts(provider: str, m: Message) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, Text):
            if p.text:
                out.append({"text": p.text})
        elif isinstance(p, Blob):
            if blob_kind(p) == "other" and not p.mime.startswith(("video/", "text/")):
                raise unsupported_blob(provider, p, m.role, "Gemini takes image, audio, video, text and PDF data")
            if not p.mime:
                raise unsupported_blob(provider, p, m.role, "the blob has no valid MIME type")
            out.append({"inlineData": {"mimeType": p.mime.split(";")[0], "data": b64(p.data)}})
    return out


def _model_parts(provider: str, m: Message, ids: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    keep = signature_usable(m, FAMILY)
    for p in m.parts:
        if isinstance(p, Thinking):
            if p.text:
                part: dict[str, Any] = {"text": p.text, "thought": True}
                if keep and p.signature:
                    part["thoughtSignature"] = p.signature
                out.append(part)
            elif keep and p.signature:
                if out and "thoughtSignature" not in out[-1] and "functionCall" not in out[-1]:
                    out[-1]["thoughtSignature"] = p.signature
                else:
                    out.append({"text": "", "thoughtSignature": p.signature})
        elif isinstance(p, Text):
            if p.text:
                out.append({"text": p.text})
        else:
            raise unsupported_blob(provider, p, m.role, "model messages carry text and thinking only")
    sigs = m.meta.get("thought_signatures") or {}
    for cid, c in zip(ids, m.tool_calls, strict=True):
        try:
            args = loads_json(c.arguments or "{}")
        except ValueError:
            args = {}
        fc: dict[str, Any] = {"name": c.name, "args": args if isinstance(args, dict) else {}}
        if not is_generated_id(cid):
            fc["id"] = cid
        part = {"functionCall": fc}
        sig = sigs.get(c.id) if keep and isinstance(sigs, dict) else None
        if sig:
            part["thoughtSignature"] = sig
        out.append(part)
    return out


def gemini_contents(provider: str, ctx: ModelContext) -> tuple[str, list[dict[str, Any]]]:
    paired = pair_tool_results(provider, ctx.messages())
    contents: list[dict[str, Any]] = []

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})

    for i, m in enumerate(paired.messages):
        if m.role == Role.USER:
            add("user", _user_parts(provider, m))
        elif m.role == Role.ASSISTANT:
            add("model", _model_parts(provider, m, paired.call_ids.get(i, [])))
        elif m.role == Role.TOOL and m.tool_result is not None:
            tr = m.tool_result
            cid = paired.result_ids[i]
            key = "error" if tr.is_error else "result"
            fr: dict[str, Any] = {"name": paired.result_names[i], "response": {key: tr.content}}
            if not is_generated_id(cid):
                fr["id"] = cid
            add("user", [{"functionResponse": fr}])
    return system_text(ctx, paired.messages), contents


def build_gemini_body(provider: str, ctx: ModelContext, *, forced: FunctionToolLike | None = None) -> dict[str, Any]:
    system, contents = gemini_contents(provider, ctx)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    specs = function_specs(provider, ctx.tools())
    decls = [{"name": f.name, "description": f.description, "parametersJsonSchema": f.schema} for f in specs.functions]
    if forced is not None:
        decls = [d for d in decls if d["name"] != forced.name]
        decls.append({"name": forced.name, "description": forced.description, "parametersJsonSchema": forced.schema})
        body["toolConfig"] = {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [forced.name]}}
    tools: list[dict[str, Any]] = []
    if decls:
        tools.append({"functionDeclarations": decls})
    if specs.web_search:
        tools.append({"googleSearch": {}})
    if tools:
        body["tools"] = tools
    params = ctx.params()
    gen = map_params(provider, params, _PARAMS)
    if gen:
        body["generationConfig"] = gen
    if params is not None and params.extra:
        deep_merge(body, params.extra)
    return body


# --------------------------------------------------------------------------- conversion


def gemini_usage(u: Mapping[str, Any]) -> Usage:
    thoughts = as_int(u.get("thoughtsTokenCount"))
    return Usage(
        prompt_tokens=as_int(u.get("promptTokenCount")),
        cached_prompt_tokens=as_int(u.get("cachedContentTokenCount")),
        generated_tokens=as_int(u.get("candidatesTokenCount")) + thoughts,
        thinking_tokens=thoughts,
    )


_PATH_TOKEN = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


def _set_path(root: dict[str, Any], path: str, value: Any, append: bool) -> None:
    """Set ``value`` at a ``$.a.b[0]`` JSON path; strings with ``append`` are concatenated."""
    keys: list[str | int] = []
    for m in _PATH_TOKEN.finditer(path[1:] if path.startswith("$") else path):
        name, idx, q1, q2 = m.groups()
        keys.append(int(idx) if idx is not None else (name or q1 or q2 or ""))
    if not keys:
        return
    cur: Any = root
    for k, nxt in itertools.pairwise(keys):
        child_default: Any = [] if isinstance(nxt, int) else {}
        if isinstance(cur, list) and isinstance(k, int):
            while len(cur) <= k:
                cur.append(None)
            if cur[k] is None:
                cur[k] = child_default
            cur = cur[k]
        elif isinstance(cur, dict):
            cur = cur.setdefault(k, child_default)
    last = keys[-1]
    if isinstance(cur, list) and isinstance(last, int):
        while len(cur) <= last:
            cur.append(None)
        prev = cur[last]
        cur[last] = prev + value if append and isinstance(prev, str) and isinstance(value, str) else value
    elif isinstance(cur, dict):
        prev = cur.get(last)
        cur[last] = prev + value if append and isinstance(prev, str) and isinstance(value, str) else value


def _partial_value(pa: Mapping[str, Any]) -> tuple[bool, Any]:
    for k in ("stringValue", "numberValue", "boolValue"):
        if k in pa:
            return True, pa[k]
    if "nullValue" in pa:
        return True, None
    return False, None


@dataclass(slots=True)
class _PartialCall:
    name: str
    id: str
    args: dict[str, Any]
    signature: str


class GeminiConverter(ConverterBase):
    family = FAMILY

    def __init__(self, provider: str) -> None:
        super().__init__(provider)
        self._partial: _PartialCall | None = None

    def feed(self, event: str, data: Any) -> list[MessageChunk]:
        if not isinstance(data, dict):
            return []
        if "error" in data and "candidates" not in data:
            raise classify(self.provider, None, data)
        if not self.response_id and data.get("responseId"):
            self.response_id = str(data["responseId"])
        u = data.get("usageMetadata")
        if isinstance(u, dict) and ("promptTokenCount" in u or "candidatesTokenCount" in u):
            self.usage = gemini_usage(u)
        out: list[MessageChunk] = []
        cands = data.get("candidates") or []
        cand = cands[0] if cands and isinstance(cands[0], dict) else None
        if cand is not None:
            content = cand.get("content") or {}
            for part in content.get("parts") or []:
                if isinstance(part, dict):
                    out += self._part(part)
            reason = cand.get("finishReason")
            if isinstance(reason, str) and reason and reason != "FINISH_REASON_UNSPECIFIED":
                out += self._finish(reason, cand)
        pf = data.get("promptFeedback")
        if isinstance(pf, dict) and pf.get("blockReason") and self._end is None:
            self.end_with(Blocked(str(pf["blockReason"])), str(pf["blockReason"]))
        return out

    def _part(self, part: Mapping[str, Any]) -> list[MessageChunk]:
        sig = str(part.get("thoughtSignature") or "")
        fc = part.get("functionCall")
        if isinstance(fc, dict):
            return self._function_call(fc, sig)
        out: list[MessageChunk] = []
        text = part.get("text")
        if isinstance(text, str):
            if part.get("thought"):
                if text or sig:
                    out.append(thinking_chunk(text, sig))
                return out
            if text:
                out.append(text_chunk(text))
            if sig:
                out.append(thinking_chunk("", sig))
        elif sig:
            out.append(thinking_chunk("", sig))
        return out

    def _function_call(self, fc: Mapping[str, Any], sig: str) -> list[MessageChunk]:
        partial = self._partial
        if partial is not None:
            for pa in fc.get("partialArgs") or []:
                if isinstance(pa, dict):
                    has, value = _partial_value(pa)
                    if has:
                        _set_path(partial.args, str(pa.get("jsonPath") or ""), value, append=True)
            if fc.get("name") and fc.get("name") != partial.name:
                out = self._close_partial()
                return out + self._function_call(fc, sig)
            if fc.get("willContinue") or fc.get("partialArgs"):
                return []
            return self._close_partial()
        name = fc.get("name")
        if not name:
            return []
        if fc.get("willContinue"):
            args = fc.get("args")
            self._partial = _PartialCall(str(name), str(fc.get("id") or ""), dict(args) if isinstance(args, dict) else {}, sig)
            return []
        args = fc.get("args")
        call = FuncCall(
            str(name), json.dumps(args if isinstance(args, dict) else {}, ensure_ascii=False), str(fc.get("id") or "") or new_call_id()
        )
        return [call_chunk(call, {"thought_signature": sig} if sig else None)]

    def _close_partial(self) -> list[MessageChunk]:
        p, self._partial = self._partial, None
        if p is None:
            return []
        call = FuncCall(p.name, json.dumps(p.args, ensure_ascii=False), p.id or new_call_id())
        return [call_chunk(call, {"thought_signature": p.signature} if p.signature else None)]

    def _finish(self, reason: str, cand: Mapping[str, Any]) -> list[MessageChunk]:
        out: list[MessageChunk] = []
        if reason == "MAX_TOKENS":
            if self._partial is not None:  # arguments cut mid-way: never emit them
                p, self._partial = self._partial, None
                self.calls.dropped.append(DroppedCall(p.name, p.id, json.dumps(p.args), "arguments cut by MAX_TOKENS"))
            self.end_with(Truncated(), reason)
            return out
        out += self._close_partial()
        if reason == "STOP":
            self.end_with(Done(), reason)
        elif reason in _BLOCKED:
            self.end_with(Blocked(reason), reason)
        elif reason in _FAILED:
            msg = str(cand.get("finishMessage") or f"generation failed with finish reason {reason}")
            self.end_with(ProviderError(self.provider, msg, code=reason), reason)
        else:
            self.end_with(Done(), reason)
        return out

    def eof_detail(self) -> str:
        return "no candidate with a finishReason"


def gemini_convert_response(provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, GeminiConverter]:
    conv = GeminiConverter(provider)
    if isinstance(body, list):  # some proxies return the streamed array
        chunks: list[MessageChunk] = []
        for b in body:
            chunks += conv.feed("", b)
    else:
        chunks = conv.feed("", body)
    tail, end = conv.close()
    return chunks + tail, end, conv


@dataclass(slots=True, frozen=True)
class GeminiDialect:
    framing: Literal["sse", "ndjson"] = "sse"
    api_version: str = "v1beta"

    def _url(self, config: ProviderConfig, model: str, method: str) -> str:
        name = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
        return config.url(f"{self.api_version}/{quote(name, safe='/')}:{method}")

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest:
        body = build_gemini_body(config.provider, ctx)
        url = self._url(config, model, "streamGenerateContent") + "?alt=sse"
        return WireRequest(url, body, {**config.request_headers(), "accept": "text/event-stream"})

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest:
        return WireRequest(
            self._url(config, model, "generateContent"), build_gemini_body(config.provider, ctx, forced=tool), config.request_headers()
        )

    def new_converter(self, provider: str) -> GeminiConverter:
        return GeminiConverter(provider)

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, GeminiConverter]:
        return gemini_convert_response(provider, body)


class GeminiGenerator(KindGenerator):
    """``GeminiGenerator(api_key=…, model="gemini-2.5-flash")``.

    Defaults from the kinds table: https://generativelanguage.googleapis.com, key ``GEMINI_API_KEY``.
    """

    KIND = "gemini"

    def new_dialect(self) -> GeminiDialect:
        return GeminiDialect()


__all__ = [
    "GeminiConverter",
    "GeminiDialect",
    "GeminiGenerator",
    "build_gemini_body",
    "gemini_contents",
    "gemini_convert_response",
    "gemini_usage",
]
