"""Gemini request building: a :class:`~genx.model.ModelContext` as a ``generateContent`` body (part of
:mod:`genx.generators.providers.gemini`, whose docstring states the round-trip rules)."""

from __future__ import annotations

from typing import Any

from genx.chunk import Blob, Message, Role, Text, Thinking
from genx.generators.providers.framing import loads_json
from genx.generators.providers.request import b64, blob_kind, deep_merge, map_params, signature_usable, system_text, unsupported_blob
from genx.generators.providers.toolcalls import (
    FunctionToolLike,
    function_specs,
    is_generated_id,
    pair_tool_results,
)
from genx.model import ModelContext

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
