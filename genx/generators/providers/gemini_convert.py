"""Gemini event conversion: streamed ``GenerateContentResponse`` chunks → genx chunks and end errors (part of
:mod:`genx.generators.providers.gemini`, whose docstring states the conversion rules)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from genx.chunk import FuncCall, MessageChunk
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.convert import ConverterBase, as_int, call_chunk, text_chunk, thinking_chunk
from genx.generators.providers.errors import ProviderError, classify
from genx.generators.providers.gemini_request import FAMILY
from genx.generators.providers.toolcalls import DroppedCall, new_call_id
from genx.model import Usage

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
