"""``from_config(spec, provider, secrets)``: the model loader's factory for every HTTP kind.

Follows the contract in :mod:`genx.modelloader`: ``spec`` is a ``GeneratorSpec``
(``kind``, ``model``, ``model_params()``, ``system_prompt``, ``options``),
``provider`` the ``ProviderSpec`` it references (``name``, ``kind``,
``base_url``, ``options``; its ``api_key`` / ``headers`` are resolved through
``secrets.api_key(provider)`` / ``secrets.headers(provider)`` at request time,
never here). Plain mappings with the same keys work too (tests, scripts).

Kinds: ``openai-chat``, ``openai-compatible`` (row from ``options.server``, else
the provider name when it is a row, else generic), ``llamacpp-server``,
``openai-responses``, ``anthropic``, ``gemini``, ``ollama``.

Options (provider options, overridden by the generator's): ``server``,
``quirks`` (Chat Completions quirk overrides), ``timeouts`` (seconds or
``{connect, read, write, pool}``), ``max_retries``. Anything else is a config error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from genx.generators.providers.anthropic import AnthropicDialect
from genx.generators.providers.compat import COMPAT_ROWS, CompatRow
from genx.generators.providers.config import AuthStyle, ProviderConfig, RetryPolicy, timeouts_from
from genx.generators.providers.errors import ProviderConfigError
from genx.generators.providers.gemini import GeminiDialect
from genx.generators.providers.generator import Dialect, HttpGenerator
from genx.generators.providers.ollama import OllamaDialect, OllamaGenerator
from genx.generators.providers.openai_chat import ChatDialect, ChatQuirks, quirks_with
from genx.generators.providers.openai_responses import ResponsesDialect
from genx.model import ModelParams

OPTION_KEYS = frozenset({"server", "quirks", "timeouts", "max_retries"})


@dataclass(slots=True, frozen=True)
class KindDefaults:
    base_url: str | None
    auth: AuthStyle
    api_key_required: bool
    api_key_env: str | None


KINDS: dict[str, KindDefaults] = {
    "openai-chat": KindDefaults("https://api.openai.com/v1", "bearer", True, "OPENAI_API_KEY"),
    "openai-responses": KindDefaults("https://api.openai.com/v1", "bearer", True, "OPENAI_API_KEY"),
    "anthropic": KindDefaults("https://api.anthropic.com", "x-api-key", True, "ANTHROPIC_API_KEY"),
    "gemini": KindDefaults("https://generativelanguage.googleapis.com", "x-goog-api-key", True, "GEMINI_API_KEY"),
    "ollama": KindDefaults("http://127.0.0.1:11434", "bearer", False, None),
}
_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "openai-responses": ResponsesDialect,
    "anthropic": AnthropicDialect,
    "gemini": GeminiDialect,
    "ollama": OllamaDialect,
}
_GENERIC_ROW = CompatRow("openai-compatible", None, api_key_required=False, quirks=ChatQuirks())


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def config_error(message: str, key: str | None = None) -> Exception:
    """The model loader's ConfigError when available (it is a GenxError), else ProviderConfigError."""
    try:
        from genx.modelloader.errors import ConfigError
    except ImportError:  # pragma: no cover - the loader is part of genx
        return ProviderConfigError(key or "config", message)
    return ConfigError(message, key=key)


def _secret_str(v: Any) -> str | None:
    if v is None:
        return None
    get = getattr(v, "get_secret_value", None)
    return str(get()) if callable(get) else str(v)


def _resolvers(provider: Any, secrets: Any, env: str | None) -> tuple[Callable[[], str | None], Callable[[], Mapping[str, str]] | None]:
    def key() -> str | None:
        if provider is not None and secrets is not None and _get(provider, "api_key") is not None and hasattr(secrets, "api_key"):
            return _secret_str(secrets.api_key(provider))
        if isinstance(secrets, Mapping):
            v = secrets.get(str(_get(provider, "name", ""))) or (secrets.get(env) if env else None)
            if v:
                return str(v)
        direct = _get(provider, "api_key")
        if isinstance(direct, str) and direct:
            return direct
        return os.environ.get(env) if env else None

    headers: Callable[[], Mapping[str, str]] | None = None
    if provider is not None and _get(provider, "headers") and secrets is not None and hasattr(secrets, "headers"):

        def headers() -> Mapping[str, str]:
            return dict(secrets.headers(provider))

    return key, headers


def build(spec: Any, provider: Any = None, secrets: Any = None, *, kind: str | None = None, **kw: Any) -> HttpGenerator:
    """A configured HTTP generator for ``spec`` (see module docstring); ``kw`` goes to the generator (``client=`` …)."""
    kind = kind or _get(spec, "effective_kind") or _get(spec, "kind") or _get(provider, "kind") or ""
    options: dict[str, Any] = {**(_get(provider, "options") or {}), **(_get(spec, "options") or {})}
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise config_error(f"unknown option(s) {', '.join(unknown)} for kind {kind!r}; known: {', '.join(sorted(OPTION_KEYS))}", "options")
    label = str(_get(provider, "name") or options.get("server") or kind or "provider")
    dialect: Dialect
    if kind in ("openai-chat", "openai-compatible", "llamacpp-server"):
        if kind == "openai-chat":
            r = COMPAT_ROWS["openai"]
        elif kind == "llamacpp-server":
            r = COMPAT_ROWS["llamacpp"]
        else:
            server = options.get("server") or (label if label in COMPAT_ROWS else None)
            if server is not None and server not in COMPAT_ROWS:
                raise config_error(f"unknown server {server!r}; known: {', '.join(sorted(COMPAT_ROWS))}", "options.server")
            r = COMPAT_ROWS[server] if server else _GENERIC_ROW
        defaults = KindDefaults(r.base_url, r.auth, r.api_key_required, r.api_key_env)
        try:
            dialect = ChatDialect(quirks_with(label, r.quirks, options.get("quirks") or {}))
        except ProviderConfigError as e:
            raise config_error(e.message, "options.quirks") from e
    elif kind in KINDS:
        defaults = KINDS[kind]
        if options.get("quirks"):
            raise config_error(f"quirks apply to Chat Completions kinds only, not {kind!r}", "options.quirks")
        dialect = _DIALECTS[kind]()
    else:
        known = ", ".join(sorted([*KINDS, "openai-chat", "openai-compatible", "llamacpp-server"]))
        raise config_error(f"kind {kind!r} is not an HTTP provider kind; known: {known}")
    base_url = _get(provider, "base_url") or defaults.base_url
    if not base_url:
        raise config_error(f"provider {label!r} needs a base_url (e.g. http://127.0.0.1:8080/v1)", f"providers.{label}.base_url")
    key, headers = _resolvers(provider, secrets, defaults.api_key_env)
    static_headers = {} if headers is not None else {k: v for k, v in (_get(provider, "headers") or {}).items() if isinstance(v, str)}
    retry = RetryPolicy(max_retries=int(options["max_retries"])) if options.get("max_retries") is not None else RetryPolicy()
    try:
        cfg = ProviderConfig(
            provider=label,
            base_url=str(base_url),
            model=_get(spec, "model"),
            headers=static_headers,
            timeouts=timeouts_from(options.get("timeouts")),
            retry=retry,
            auth=defaults.auth,
            api_key_required=defaults.api_key_required,
            api_key_env=defaults.api_key_env,
            key_resolver=key,
            header_resolver=headers,
        )
    except ProviderConfigError as e:
        raise config_error(e.message, f"providers.{label}.base_url") from e
    params_fn = _get(spec, "model_params")
    params: ModelParams | None = params_fn() if callable(params_fn) else _get(spec, "params")
    if params is not None and not isinstance(params, ModelParams):
        params = ModelParams(**dict(params))
    gen_cls = OllamaGenerator if kind == "ollama" else HttpGenerator
    if gen_cls is OllamaGenerator:
        return OllamaGenerator(config=cfg, params=params, system_prompt=_get(spec, "system_prompt"), **kw)
    return HttpGenerator(cfg, dialect, params=params, system_prompt=_get(spec, "system_prompt"), **kw)


def from_config(spec: Any, provider: Any = None, secrets: Any = None, **kw: Any) -> HttpGenerator:
    """Generic entry point: the kind comes from ``spec`` / ``provider``."""
    return build(spec, provider, secrets, **kw)


__all__ = ["KINDS", "OPTION_KEYS", "KindDefaults", "build", "config_error", "from_config"]
