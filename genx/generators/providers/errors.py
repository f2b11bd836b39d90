"""Typed provider errors and their classification from HTTP status / error bodies.

Every error names the provider (``str(err)`` starts with it) and keeps the
provider's own message, error type and code. API keys never appear here: error
bodies come from the provider, request headers are never echoed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

from genx.errors import GenxError, UnexpectedEndOfStreamError
from genx.generators.providers.framing import loads_json


class ProviderError(GenxError):
    """Base of every error raised by an HTTP provider adapter."""

    hint = ""

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status: int | None = None,
        type: str = "",
        code: str = "",
        hint: str | None = None,
    ) -> None:
        self.provider = provider
        self.message = message
        self.status = status
        self.type = type
        self.code = code
        h = self.hint if hint is None else hint
        parts = [f"{provider}: {message}"]
        tags = [t for t in (f"HTTP {status}" if status else "", type, code if code != type else "") if t]
        if tags:
            parts.append(f" [{', '.join(tags)}]")
        if h:
            parts.append(f"; {h}")
        # Not super(): StreamEndedError also inherits UnexpectedEndOfStreamError, whose __init__ formats its own text.
        Exception.__init__(self, "".join(parts))


class ProviderConfigError(ProviderError, ValueError):
    """The adapter's configuration is unusable (missing key, bad base URL …).

    ``key`` names the setting when known: relative to the generator's table
    (``"options.server"``, ``"kind"``) or absolute when it starts with
    ``providers.`` (``"providers.groq.base_url"``). The model loader turns it
    into a ``ConfigError`` at that key.
    """

    def __init__(self, provider: str, message: str, *, key: str | None = None, **kw: Any) -> None:
        super().__init__(provider, message, **kw)
        self.key = key


class UnsupportedSettingError(ProviderConfigError):
    """A request setting (param, tool, content type) this wire API cannot honour."""


class ToolPairingError(ProviderConfigError):
    """History whose tool results cannot be paired with the assistant's tool calls."""


class AuthenticationError(ProviderError):
    hint = "check the API key configured for this provider"


class PermissionDeniedError(ProviderError):
    hint = "the API key is valid but not allowed to use this model or endpoint"


class ModelNotFoundError(ProviderError):
    hint = "check the model name and the base URL"


class RateLimitError(ProviderError):
    hint = "wait and retry, or lower the request rate"

    def __init__(self, provider: str, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        self.retry_after = retry_after
        super().__init__(provider, message, **kw)


class ContextLengthError(ProviderError):
    hint = "shorten the conversation history or the prompts, or lower max_tokens"


class ContentFilterError(ProviderError):
    hint = "the provider's content policy rejected the request"


class BadRequestError(ProviderError):
    hint = "the provider rejected the request"


class ServerError(ProviderError):
    hint = "the provider failed; retry later"


class ProtocolError(ProviderError):
    """A malformed event or a stream that violates the wire protocol."""


class StreamEndedError(ProtocolError, UnexpectedEndOfStreamError):
    """The stream ended before the provider sent a terminal event."""

    def __init__(self, provider: str, detail: str = "") -> None:
        msg = "unexpected end of stream: the provider closed the stream without a terminal event"
        if detail:
            msg += f" ({detail})"
        ProtocolError.__init__(self, provider, msg)


class ProviderTimeoutError(ProviderError):
    hint = "the provider did not answer in time; check the network or raise the timeout"


class ProviderConnectionError(ProviderError):
    hint = "check the base URL and the network connection"


_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "exceeds the context",
    "input is too long",
)
_FILTER_MARKERS = ("content_filter", "content_policy", "content policy", "safety")


def error_fields(payload: Any) -> tuple[str, str, str, int | None]:
    """``(message, type, code, status)`` from any provider's error JSON.

    Shapes: OpenAI ``{"error": {message, type, code}}``, Anthropic
    ``{"type": "error", "error": {type, message}}``, Gemini ``{"error": {code,
    message, status}}``, Ollama ``{"error": "text"}``, Responses ``error`` events
    with the fields at top level.
    """
    if not isinstance(payload, Mapping):
        return (str(payload), "", "", None)
    err: Any = payload.get("error", payload)
    if isinstance(err, str):
        return (err, "", "", None)
    if not isinstance(err, Mapping):
        return (json.dumps(payload)[:500], "", "", None)
    message = str(err.get("message") or err.get("detail") or json.dumps(err)[:500])
    etype = err.get("type") or err.get("status") or ""
    code = err.get("code") or ""
    status = err.get("status_code")
    if isinstance(code, int):
        status = status or code
        code = ""
    return (message, str(etype), str(code), status if isinstance(status, int) else None)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (delta seconds or HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        pass
    try:
        from datetime import UTC, datetime

        when = parsedate_to_datetime(ra)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def classify(
    provider: str,
    status: int | None,
    payload: Any,
    *,
    retry_after: float | None = None,
) -> ProviderError:
    """The typed error for an HTTP error response or an in-stream error event."""
    message, etype, code, inner_status = error_fields(payload)
    status = status if status and status >= 400 else inner_status
    kw: dict[str, Any] = {"status": status, "type": etype, "code": code}
    key = f"{etype} {code} {message}".lower()
    if (
        status == 401
        or "authentication" in etype.lower()
        or code == "invalid_api_key"
        or "api key not valid" in key
        or "invalid api key" in key
    ):
        return AuthenticationError(provider, message, **kw)
    if status == 403 or "permission" in etype.lower():
        return PermissionDeniedError(provider, message, **kw)
    if any(m in key for m in _CONTEXT_MARKERS):
        return ContextLengthError(provider, message, **kw)
    if status == 429 or "rate_limit" in key or "quota" in key or "resource_exhausted" in key:
        return RateLimitError(provider, message, retry_after=retry_after, **kw)
    if status == 404 or "model_not_found" in key or "not_found" in etype.lower() or ("model" in key and "not found" in key):
        return ModelNotFoundError(provider, message, **kw)
    if any(m in key for m in _FILTER_MARKERS):
        return ContentFilterError(provider, message, **kw)
    if (status is not None and status >= 500) or "overloaded" in key or "server_error" in key or "api_error" in etype:
        return ServerError(provider, message, **kw)
    if (status is not None and 400 <= status < 500) or "invalid_request" in key:
        return BadRequestError(provider, message, **kw)
    return ProviderError(provider, message, **kw)


def classify_body(provider: str, status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
    """The typed error for a non-2xx HTTP response with raw ``body``."""
    text = body.decode("utf-8", "replace").strip()
    payload: Any
    try:
        payload = loads_json(text) if text else {}
    except ValueError:
        payload = {"error": {"message": text[:500] or f"HTTP {status}"}}
    if isinstance(payload, list) and payload:  # Gemini wraps errors in a list on some endpoints
        payload = payload[0]
    if payload == {}:
        payload = {"error": {"message": f"HTTP {status} with an empty body"}}
    return classify(provider, status, payload, retry_after=parse_retry_after(headers))


__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ContentFilterError",
    "ContextLengthError",
    "ModelNotFoundError",
    "PermissionDeniedError",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderTimeoutError",
    "RateLimitError",
    "ServerError",
    "StreamEndedError",
    "ToolPairingError",
    "UnsupportedSettingError",
    "classify",
    "classify_body",
    "error_fields",
    "parse_retry_after",
]
