"""``build(spec, provider, secrets)``: the model loader's factory for every HTTP kind.

Registered with :mod:`genx.modelloader.registry` for each kind of the provider
kinds table (:data:`genx.generators.provider_kinds.KINDS`), following the
contract in :mod:`genx.modelloader`: ``spec`` is a ``GeneratorSpec`` (``kind``,
``model``, ``model_params()``, ``system_prompt``, ``options``), ``provider``
the ``ProviderSpec`` it references (``name``, ``kind``, ``base_url``,
``api_key``, ``headers``, ``options``). Plain mappings with the same keys work
too (tests, scripts; there ``api_key`` may also be a literal string).

Keys: a secret reference in ``api_key`` is resolved through
``secrets.api_key(provider)`` at request time, never here. Without one, the
kind's environment variable (``OPENAI_API_KEY`` …) is read at request time,
and only when the base URL is the kind's own default host: a custom
``base_url`` gets a key only from an explicit reference. Headers whose names
look like credentials (``Authorization``, ``x-api-key``, ``api-key`` …) must be
secret references too (resolved through ``secrets.headers(provider)``).

Rows: ``openai-compatible`` takes the server row from ``options.server``, else
the provider name when it is a server, else the generic row (``base_url``
required).

Options (provider options, overridden by the generator's): ``server``,
``quirks`` (Chat Completions quirk overrides), ``timeouts`` (seconds or
``{connect, read, write, pool}``), ``max_retries``. Anything else is a config error.

Errors are :class:`~genx.generators.providers.errors.ProviderConfigError` with
``key`` naming the setting; the loader turns them into ``ConfigError`` s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from genx.generators.provider_kinds import KINDS, SERVERS, DialectName, ProviderKind, is_credential_header
from genx.generators.providers.anthropic import AnthropicGenerator
from genx.generators.providers.config import ProviderConfig, RetryPolicy, timeouts_from
from genx.generators.providers.errors import ProviderConfigError
from genx.generators.providers.gemini import GeminiGenerator
from genx.generators.providers.generator import KindGenerator
from genx.generators.providers.ollama import OllamaGenerator
from genx.generators.providers.openai_chat import ChatDialect, OpenAIChatGenerator, quirks_with
from genx.generators.providers.openai_responses import OpenAIResponsesGenerator
from genx.model import ModelParams

OPTION_KEYS = frozenset({"server", "quirks", "timeouts", "max_retries"})

#: The adapter class of each dialect of the kinds table.
ADAPTERS: dict[DialectName, type[KindGenerator]] = {
    "chat": OpenAIChatGenerator,
    "responses": OpenAIResponsesGenerator,
    "anthropic": AnthropicGenerator,
    "gemini": GeminiGenerator,
    "ollama": OllamaGenerator,
}

KeyResolver = Callable[[], str | None]


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _secret_str(v: Any) -> str | None:
    if v is None:
        return None
    get = getattr(v, "get_secret_value", None)
    return str(get()) if callable(get) else str(v)


class _Where:
    """Key paths of one generator's settings: ``options.x`` (generator's own) or ``providers.<name>.x``."""

    __slots__ = ("generator_options", "prefix")

    def __init__(self, provider_name: str | None, generator_options: Mapping[str, Any]) -> None:
        self.prefix = f"providers.{provider_name}" if provider_name else ""
        self.generator_options = generator_options

    def provider(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def option(self, name: str) -> str:
        return f"options.{name}" if name in self.generator_options or not self.prefix else self.provider(f"options.{name}")


def _select_row(kind: str, options: Mapping[str, Any], provider_name: str | None, where: _Where, label: str) -> ProviderKind:
    """The kinds-table row a configuration means (see module docstring)."""
    if kind == "openai-compatible":
        server = options.get("server") or (provider_name if provider_name in SERVERS else None)
        if server is None:
            return KINDS[kind]
        if server not in SERVERS:
            known = ", ".join(sorted(SERVERS))
            raise ProviderConfigError(label, f"unknown server {server!r}; known: {known}", key=where.option("server"))
        return SERVERS[server]
    row = KINDS.get(kind)
    if row is None:
        raise ProviderConfigError(label, f"kind {kind!r} is not an HTTP provider kind; known: {', '.join(sorted(KINDS))}", key="kind")
    return row


def _key_source(
    row: ProviderKind, provider: Any, secrets: Any, base_url: str, where: _Where, label: str
) -> tuple[str | None, KeyResolver | None]:
    """``(literal key, resolver)``: an explicit reference, else the env fallback for the default host only."""
    ref = _get(provider, "api_key")
    if isinstance(ref, str):
        return (ref or None), None
    if ref is not None:
        if secrets is None or not hasattr(secrets, "api_key"):
            raise ProviderConfigError(label, "api_key is a secret reference but no secret store was given", key=where.provider("api_key"))
        return None, lambda: _secret_str(secrets.api_key(provider))
    env = row.fallback_env(base_url)
    if env is not None:
        return None, lambda: os.environ.get(env) or None
    if row.api_key_required:
        # No source at all: the first request fails with the hint (not the app start, as for an unset variable).
        return None, lambda: None
    return None, None


def _headers(provider: Any, secrets: Any, where: _Where, label: str) -> tuple[dict[str, str], Callable[[], Mapping[str, str]] | None]:
    """``(static headers, resolver)``; a credential-looking header given as a plain string is a config error."""
    headers: Mapping[str, Any] = _get(provider, "headers") or {}
    for name, value in headers.items():
        if isinstance(value, str) and is_credential_header(name):
            raise ProviderConfigError(
                label,
                f"header {name!r} looks like a credential: never write its value in the config file; "
                f'write {{ env = "VARIABLE" }} or {{ keyring = "service/user" }} instead',
                key=where.provider(f"headers.{name}"),
            )
    if all(isinstance(v, str) for v in headers.values()):
        return dict(headers), None
    if secrets is None or not hasattr(secrets, "headers"):
        raise ProviderConfigError(label, "headers hold secret references but no secret store was given", key=where.provider("headers"))
    return {}, lambda: dict(secrets.headers(provider))


def _connection(
    row: ProviderKind, provider: Any, secrets: Any, options: Mapping[str, Any], where: _Where, label: str, *, model: str | None
) -> ProviderConfig:
    base_url = _get(provider, "base_url") or row.base_url
    if not base_url:
        raise ProviderConfigError(
            label, f"provider {label!r} needs a base_url (e.g. http://127.0.0.1:8080/v1)", key=where.provider("base_url")
        )
    api_key, key_resolver = _key_source(row, provider, secrets, str(base_url), where, label)
    static_headers, header_resolver = _headers(provider, secrets, where, label)
    retry = RetryPolicy(max_retries=int(options["max_retries"])) if options.get("max_retries") is not None else RetryPolicy()
    try:
        return ProviderConfig(
            provider=label,
            base_url=str(base_url),
            api_key=api_key,
            model=model,
            headers=static_headers,
            timeouts=timeouts_from(options.get("timeouts")),
            retry=retry,
            auth=row.auth,
            api_key_required=row.api_key_required,
            api_key_env=row.fallback_env(str(base_url)),
            key_resolver=key_resolver,
            header_resolver=header_resolver,
            key_hint=row.key_hint(str(base_url)),
        )
    except ProviderConfigError as e:
        raise ProviderConfigError(label, e.message, key=where.provider(e.key or "base_url")) from e


def connection_config(
    kind: str, provider: Any, secrets: Any, *, model: str | None = None, options: Mapping[str, Any] | None = None
) -> ProviderConfig:
    """Base URL, key source, headers, timeouts and retries of HTTP kind ``kind``'s row for a non-generator user.

    The cloud speech and realtime transformers connect to the same accounts as the
    generators: ``provider`` is the ``[providers.<name>]`` table they reference (or
    None: the kind's defaults, key from its environment variable on its own host
    only). ``options`` may hold ``timeouts`` and ``max_retries``.
    """
    opts = dict(options or {})
    provider_name = _get(provider, "name") or None
    where = _Where(provider_name, opts)
    label = str(provider_name or KINDS[kind].label)
    return _connection(KINDS[kind], provider, secrets, opts, where, label, model=model)


def build(spec: Any, provider: Any = None, secrets: Any = None, *, kind: str | None = None, **kw: Any) -> KindGenerator:
    """A configured HTTP generator for ``spec`` (see module docstring); ``kw`` goes to the generator (``client=`` …)."""
    kind = kind or _get(spec, "effective_kind") or _get(spec, "kind") or _get(provider, "kind") or ""
    spec_options: Mapping[str, Any] = _get(spec, "options") or {}
    options: dict[str, Any] = {**(_get(provider, "options") or {}), **spec_options}
    provider_name = _get(provider, "name") or None
    where = _Where(provider_name, spec_options)
    label = str(provider_name or options.get("server") or kind or "provider")
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        known = ", ".join(sorted(OPTION_KEYS))
        raise ProviderConfigError(
            label, f"unknown option(s) {', '.join(unknown)} for kind {kind!r}; known: {known}", key=where.option(unknown[0])
        )
    row = _select_row(kind, options, provider_name, where, label)
    cfg = _connection(row, provider, secrets, options, where, label, model=_get(spec, "model"))
    params_fn = _get(spec, "model_params")
    params: ModelParams | None = params_fn() if callable(params_fn) else _get(spec, "params")
    if params is not None and not isinstance(params, ModelParams):
        params = ModelParams(**dict(params))
    quirks = options.get("quirks") or {}
    if row.dialect == "chat":
        try:
            kw["dialect"] = ChatDialect(quirks_with(label, row.quirks, quirks))
        except ProviderConfigError as e:
            raise ProviderConfigError(label, e.message, key=where.option("quirks")) from e
    elif quirks:
        raise ProviderConfigError(label, f"quirks apply to Chat Completions kinds only, not {kind!r}", key=where.option("quirks"))
    return ADAPTERS[row.dialect](config=cfg, params=params, system_prompt=_get(spec, "system_prompt"), **kw)


__all__ = ["ADAPTERS", "OPTION_KEYS", "build", "connection_config"]
