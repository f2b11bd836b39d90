"""Connection settings shared by every adapter: base URL, key, headers, timeouts, retries.

:class:`ProviderConfig` is what an adapter constructor receives. Its ``repr``
redacts the API key and every auth-looking header, so logging a config never
leaks a secret. :func:`config_from_mapping` is the thin bridge the model loader
calls (``from_config(spec, provider, secrets)`` in each adapter module).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from genx.generators.providers.errors import ProviderConfigError

AuthStyle = Literal["bearer", "x-api-key", "x-goog-api-key", "none"]

_SECRET_HEADER_HINTS = ("auth", "key", "token", "secret", "cookie")


@dataclass(slots=True, frozen=True)
class Timeouts:
    """Seconds. ``read`` is the idle gap allowed between two reads, not a whole-stream limit."""

    connect: float = 10.0
    read: float = 60.0
    write: float = 30.0
    pool: float = 10.0


@dataclass(slots=True, frozen=True)
class RetryPolicy:
    """Retries happen only before the first response byte reached the caller."""

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 30.0  # a longer Retry-After is surfaced as RateLimitError instead
    statuses: frozenset[int] = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

    def backoff(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * (2**attempt)))


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: ("***" if any(h in k.lower() for h in _SECRET_HEADER_HINTS) else v) for k, v in headers.items()}


@dataclass(slots=True, frozen=True)
class ProviderConfig:
    """Where and how to reach one provider.

    ``provider`` labels errors and logs (``"openai"``, ``"groq"``, ``"llamacpp"``).
    ``model`` is the provider's model id; when ``None`` the name passed to
    ``generate_stream`` is sent as the model.

    The key is either ``api_key`` or, resolved at request time (from a worker
    thread), ``key_resolver()``; ``header_resolver()`` adds secret headers the
    same way. Without either and with ``api_key_required`` construction fails.
    """

    provider: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    model: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    auth: AuthStyle = "bearer"
    api_key_required: bool = True
    api_key_env: str | None = None
    key_resolver: Callable[[], str | None] | None = field(default=None, repr=False, compare=False)
    header_resolver: Callable[[], Mapping[str, str]] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        validate_base_url(self.provider, self.base_url)
        if self.api_key_required and not self.api_key and self.key_resolver is None:
            raise self.missing_key()

    def missing_key(self) -> ProviderConfigError:
        env = f" or set the {self.api_key_env} environment variable" if self.api_key_env else ""
        return ProviderConfigError(self.provider, f"no API key configured; add api_key to the provider's settings{env}")

    @property
    def resolves_secrets(self) -> bool:
        return self.key_resolver is not None or self.header_resolver is not None

    def __repr__(self) -> str:
        key = "***" if self.api_key else None
        return (
            f"ProviderConfig(provider={self.provider!r}, base_url={self.base_url!r}, api_key={key!r}, model={self.model!r}, "
            f"headers={redact_headers(self.headers)!r}, timeouts={self.timeouts!r}, auth={self.auth!r})"
        )

    __str__ = __repr__

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    def request_headers(self) -> dict[str, str]:
        """Headers without credentials (the transport adds :meth:`auth_headers` when sending)."""
        return {"content-type": "application/json"}

    def auth_headers(self) -> dict[str, str]:
        """Credentials and configured headers; may block in a resolver (call from a worker thread)."""
        h: dict[str, str] = {}
        key = self.api_key
        if not key and self.key_resolver is not None:
            key = self.key_resolver()
        if not key and self.api_key_required:
            raise self.missing_key()
        if key:
            if self.auth == "bearer":
                h["authorization"] = f"Bearer {key}"
            elif self.auth != "none":
                h[self.auth] = key
        h.update(self.headers)
        if self.header_resolver is not None:
            h.update(self.header_resolver())
        return h


def validate_base_url(provider: str, base_url: str) -> None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProviderConfigError(
            provider, f"base URL {base_url!r} needs an http:// or https:// scheme and a host (e.g. https://api.example.com/v1)"
        )


def _float(v: Any, default: float) -> float:
    return default if v is None else float(v)


def timeouts_from(spec: Mapping[str, Any] | float | None) -> Timeouts:
    if spec is None:
        return Timeouts()
    if isinstance(spec, int | float):
        return Timeouts(connect=float(spec), read=float(spec))
    d = Timeouts()
    return Timeouts(
        connect=_float(spec.get("connect"), d.connect),
        read=_float(spec.get("read"), d.read),
        write=_float(spec.get("write"), d.write),
        pool=_float(spec.get("pool"), d.pool),
    )


def config_from_mapping(
    spec: Mapping[str, Any],
    provider: Mapping[str, Any] | None,
    secrets: Mapping[str, str] | None,
    *,
    default_provider: str,
    default_base_url: str | None,
    auth: AuthStyle,
    api_key_required: bool,
    api_key_env: str | None,
) -> ProviderConfig:
    """Merge a model ``spec`` over its ``provider`` section; keys are looked up in ``secrets`` then the environment.

    Recognised keys: ``name``/``provider`` (label), ``base_url``, ``api_key``, ``api_key_env``,
    ``model``, ``headers``, ``timeouts`` (number or ``{connect, read, write, pool}``),
    ``max_retries``.
    """
    merged: dict[str, Any] = {**(provider or {}), **spec}
    label = str(merged.get("provider") or merged.get("name") or default_provider)
    base_url = merged.get("base_url") or default_base_url
    if not base_url:
        raise ProviderConfigError(label, "no base_url configured; add base_url (e.g. http://127.0.0.1:8080/v1) to the provider's settings")
    env_name = merged.get("api_key_env") or api_key_env
    key = merged.get("api_key")
    if not key and secrets is not None:
        key = secrets.get(label) or (secrets.get(env_name) if env_name else None) or secrets.get("api_key")
    if not key and env_name:
        key = os.environ.get(env_name)
    retry = RetryPolicy()
    if merged.get("max_retries") is not None:
        retry = RetryPolicy(max_retries=int(merged["max_retries"]))
    return ProviderConfig(
        provider=label,
        base_url=str(base_url),
        api_key=key or None,
        model=merged.get("model"),
        headers=dict(merged.get("headers") or {}),
        timeouts=timeouts_from(merged.get("timeouts")),
        retry=retry,
        auth=auth,
        api_key_required=bool(merged.get("api_key_required", api_key_required)),
        api_key_env=env_name,
    )


__all__ = [
    "AuthStyle",
    "ProviderConfig",
    "RetryPolicy",
    "Timeouts",
    "config_from_mapping",
    "redact_headers",
    "timeouts_from",
    "validate_base_url",
]
