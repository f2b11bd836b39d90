"""MIME-channel normalisation.

Two spellings of one MIME type must name one channel of a route, so every MIME
that enters genx goes through :func:`normalize_mime`: lower case, parameters
sorted by name, no spaces (``"; "`` between parts). An empty or malformed MIME
normalises to ``""`` (no channel); :func:`parse_mime` raises
:class:`InvalidMimeError` instead, for callers that must reject bad input.
"""

from __future__ import annotations

from functools import lru_cache

from genx.errors import InvalidMimeError

TEXT_MIME = "text/plain"
THINKING_MIME = "text/x-genx-thinking"

_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789!#$&^_.+-*'%`|~")


def _is_token(s: str) -> bool:
    return bool(s) and all(c in _TOKEN_CHARS for c in s)


@lru_cache(maxsize=1024)
def _normalize(raw: str) -> str:
    parts = raw.split(";")
    head = parts[0].strip().lower()
    if "/" not in head:
        raise InvalidMimeError(raw, "expected type/subtype, e.g. 'audio/L16; rate=16000'")
    typ, _, sub = head.partition("/")
    if not _is_token(typ) or not _is_token(sub):
        raise InvalidMimeError(raw, "type and subtype must be non-empty tokens")
    params: dict[str, str] = {}
    for p in parts[1:]:
        p = p.strip()
        if not p:
            raise InvalidMimeError(raw, "empty parameter (stray ';')")
        if "=" not in p:
            raise InvalidMimeError(raw, f"parameter {p!r} has no value; write name=value")
        k, _, v = p.partition("=")
        k = k.strip().lower()
        v = v.strip()
        if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
            v = v[1:-1].strip()
        v = v.lower()
        # The output is unquoted, so a value must not keep quotes or edge spaces: normalising twice must change nothing.
        if not _is_token(k) or not v or '"' in v:
            raise InvalidMimeError(raw, f"parameter {p!r} is not name=value")
        if k in params:
            raise InvalidMimeError(raw, f"parameter {k!r} given twice")
        params[k] = v
    out = f"{typ}/{sub}"
    for k in sorted(params):
        out += f"; {k}={params[k]}"
    return out


def parse_mime(raw: str) -> str:
    """Return the normalised form of ``raw`` or raise :class:`InvalidMimeError`."""
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidMimeError(str(raw), "MIME type is empty")
    return _normalize(raw)


def normalize_mime(raw: str | None) -> str:
    """Return the normalised MIME, or ``""`` when ``raw`` is empty or invalid."""
    if not raw:
        return ""
    try:
        return parse_mime(raw)
    except InvalidMimeError:
        return ""


def mime_params(mime: str) -> dict[str, str]:
    """Parameters of a (normalised or raw) MIME as a dict; ``{}`` when invalid."""
    norm = normalize_mime(mime)
    if not norm:
        return {}
    out: dict[str, str] = {}
    for p in norm.split("; ")[1:]:
        k, _, v = p.partition("=")
        out[k] = v
    return out


def mime_essence(mime: str) -> str:
    """``type/subtype`` without parameters; ``""`` when invalid."""
    norm = normalize_mime(mime)
    return norm.split(";", 1)[0] if norm else ""
