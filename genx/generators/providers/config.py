"""Connection settings shared by every adapter: base URL, key, headers, timeouts, retries.

:class:`ProviderConfig` is what an adapter constructor receives. Its ``repr``
redacts the API key and every auth-looking header, so logging a config never
leaks a secret. :func:`kind_config` fills one in from a row of the provider
kinds table (:mod:`genx.generators.provider_kinds`) for the adapter constructors.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from genx.generators.provider_kinds import AuthStyle, ProviderKind, is_credential_header
from genx.generators.providers.errors import ProviderConfigError


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
    return {k: ("***" if is_credential_header(k) else v) for k, v in headers.items()}


@dataclass(slots=True, frozen=True)
class ProviderConfig:
    """Where and how to reach one provider.

    ``provider`` labels errors and logs (``"openai"``, ``"groq"``, ``"llamacpp"``).
    ``model`` is the provider's model id; when ``None`` the name passed to
    ``generate_stream`` is sent as the model.

    The key is either ``api_key`` or, resolved at request time (from a worker
    thread), ``key_resolver()``; ``header_resolver()`` adds secret headers the
    same way. Without either and with ``api_key_required`` construction fails.
    ``api_key_env`` is the variable the key falls back to (set only for the
    kind's own default host); ``key_hint`` says why there is none otherwise.
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
    key_hint: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        validate_base_url(self.provider, self.base_url)
        if self.api_key_required and not self.api_key and self.key_resolver is None:
            raise self.missing_key()

    def missing_key(self) -> ProviderConfigError:
        env = f" or set the {self.api_key_env} environment variable" if self.api_key_env else ""
        hint = f" ({self.key_hint})" if self.key_hint else ""
        return ProviderConfigError(
            self.provider, f"no API key configured; add api_key to the provider's settings{env}{hint}", key="api_key"
        )

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
            provider,
            f"base URL {base_url!r} needs an http:// or https:// scheme and a host (e.g. https://api.example.com/v1)",
            key="base_url",
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


def kind_config(
    row: ProviderKind,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeouts: Timeouts | Mapping[str, Any] | float | None = None,
    provider: str | None = None,
) -> ProviderConfig:
    """The config an adapter constructor builds for ``row``: its defaults under the caller's values.

    Without ``api_key`` the key comes from the row's environment variable, and only
    when ``base_url`` is the row's own default host (a custom host never gets it).
    """
    label = provider or row.label
    url = base_url or row.base_url
    if not url:
        raise ProviderConfigError(label, "no base_url configured for this server; add base_url to its settings", key="base_url")
    env = row.fallback_env(url)
    return ProviderConfig(
        provider=label,
        base_url=url,
        api_key=api_key or (os.environ.get(env) if env else None) or None,
        model=model,
        headers=dict(headers or {}),
        timeouts=timeouts if isinstance(timeouts, Timeouts) else timeouts_from(timeouts),
        auth=row.auth,
        api_key_required=row.api_key_required,
        api_key_env=env,
        key_hint=row.key_hint(url),
    )


__all__ = [
    "AuthStyle",
    "ProviderConfig",
    "RetryPolicy",
    "Timeouts",
    "kind_config",
    "redact_headers",
    "timeouts_from",
    "validate_base_url",
]
