"""Small helpers shared by the realtime dialects (pure)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from genx.generators.providers.request import deep_merge


def ws_url(base_url: str, path: str, query: Mapping[str, str] | None = None) -> str:
    """``base_url`` (http/https/ws/wss) + ``path`` as a websocket URL: https → wss, http → ws."""
    parts = urlsplit(base_url)
    scheme = {"https": "wss", "http": "ws"}.get(parts.scheme.lower(), parts.scheme.lower())
    full = parts.path.rstrip("/") + "/" + path.lstrip("/")
    q = "&".join(f"{k}={quote(v, safe='')}" for k, v in (query or {}).items())
    return urlunsplit((scheme, parts.netloc, full, q, ""))


def b64encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def b64decode(text: Any) -> bytes | None:
    """Decoded base64 audio, or None when ``text`` is not valid base64."""
    if not isinstance(text, str):
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def merged(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    return deep_merge(base, extra) if extra else base


def as_str(v: Any) -> str:
    return v if isinstance(v, str) else ""


__all__ = ["as_str", "b64decode", "b64encode", "merged", "ws_url"]
