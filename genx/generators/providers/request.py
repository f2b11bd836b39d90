"""Request-side helpers shared by the dialects: system text, params mapping, blobs, merging.

Nothing here drops a setting silently: :func:`map_params` raises
:class:`UnsupportedSettingError` for every set parameter the wire API has no field for.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from genx.chunk import Blob, Message, Part, Role, Text, Thinking
from genx.generators.providers.errors import UnsupportedSettingError
from genx.model import ModelContext, ModelParams

PARAM_NAMES = tuple(f.name for f in fields(ModelParams) if f.name != "extra")


def system_text(ctx: ModelContext, history: list[Message] | None = None) -> str:
    """Prompts, then chain-of-thought notes, then (when ``history`` is given) its system messages."""
    parts = [p.text for p in ctx.prompts() if p.text]
    parts += [c for c in ctx.cots() if c]
    if history is not None:
        parts += [m.text() for m in history if m.role == Role.SYSTEM and m.text()]
    return "\n\n".join(parts)


def map_params(provider: str, params: ModelParams | None, wire: Mapping[str, str | None]) -> dict[str, Any]:
    """``{wire_name: value}`` for every set param; a set param absent from ``wire`` (or mapped to None) is an error."""
    out: dict[str, Any] = {}
    if params is None:
        return out
    for name in PARAM_NAMES:
        value = getattr(params, name)
        if value is None:
            continue
        key = wire.get(name)
        if key is None:
            supported = ", ".join(k for k, v in wire.items() if v) or "none"
            raise UnsupportedSettingError(
                provider,
                f"parameter {name}={value!r} is not supported by this API (supported: {supported}); remove it from the model params",
            )
        out[key] = list(value) if isinstance(value, list) else value
    return out


def deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extra`` over ``base``; nested dicts are merged key by key (``extra`` wins)."""
    for k, v in extra.items():
        cur = base.get(k)
        if isinstance(cur, dict) and isinstance(v, Mapping):
            base[k] = deep_merge(dict(cur), v)
        else:
            base[k] = v
    return base


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def data_url(blob: Blob) -> str:
    return f"data:{blob.mime.split(';')[0]};base64,{b64(blob.data)}"


def blob_kind(blob: Blob) -> str:
    """``image``, ``audio``, ``pdf`` or ``other`` (by normalised MIME)."""
    m = blob.mime
    if m.startswith("image/"):
        return "image"
    if m.startswith("audio/"):
        return "audio"
    if m == "application/pdf":
        return "pdf"
    return "other"


def unsupported_blob(provider: str, blob: Blob, role: Role, what: str) -> UnsupportedSettingError:
    mime = blob.mime or "(invalid MIME)"
    return UnsupportedSettingError(provider, f"cannot send a {mime} blob in a {role.value or 'message'} message: {what}")


def text_of(parts: list[Part]) -> str:
    return "".join(p.text for p in parts if isinstance(p, Text))


def only_text(provider: str, m: Message) -> str:
    for p in m.parts:
        if isinstance(p, Blob):
            raise unsupported_blob(provider, p, m.role, "this message role takes text only")
    return m.text()


def signature_usable(m: Message, family: str) -> bool:
    """Signatures are provider state: replay them only to the provider family that produced them."""
    src = m.meta.get("provider_family")
    return src is None or src == family


def thinking_parts(m: Message) -> list[Thinking]:
    return [p for p in m.parts if isinstance(p, Thinking)]


__all__ = [
    "PARAM_NAMES",
    "b64",
    "blob_kind",
    "data_url",
    "deep_merge",
    "map_params",
    "only_text",
    "signature_usable",
    "system_text",
    "text_of",
    "thinking_parts",
    "unsupported_blob",
]
