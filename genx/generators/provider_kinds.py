"""The provider kinds table: every HTTP provider kind and OpenAI-compatible server, written once.

Each :class:`ProviderKind` row says which wire dialect a kind speaks, where it
lives by default, how it authenticates, which environment variable its key
falls back to and (Chat Completions only) which :class:`ChatQuirks` it needs.
The adapter constructors (:mod:`genx.generators.providers`), the model-loader
factory (:mod:`genx.generators.providers.factory`) and the kind registry
(:mod:`genx.modelloader.registry`) all read this table; adding a server is
adding a row.

Pure data and pure functions: no I/O, no httpx, cheap to import (the loader
imports it at start-up without pulling in the HTTP stack).

Key safety: the environment fallback (``OPENAI_API_KEY`` …) applies only when
the configured base URL is the row's own default origin (same scheme, host and
port); a custom base URL gets a key only from an explicit reference
(:meth:`ProviderKind.fallback_env`). Header names that look like credentials
(:func:`is_credential_header`) must carry secret references in configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

AuthStyle = Literal["bearer", "x-api-key", "x-goog-api-key", "none"]
DialectName = Literal["chat", "responses", "anthropic", "gemini", "ollama"]

#: Substrings of header names that carry credentials (``Authorization``, ``x-api-key``, ``api-key``, ``X-Auth-Token`` …).
CREDENTIAL_HEADER_HINTS = ("auth", "key", "token", "secret", "cookie")


@dataclass(slots=True, frozen=True)
class ChatQuirks:
    """What one Chat-Completions server accepts and how it streams."""

    include_usage: bool = True  # send stream_options.include_usage
    max_tokens_field: str = "max_tokens"  # OpenAI proper: max_completion_tokens
    reasoning_fields: tuple[str, ...] = ("reasoning_content", "reasoning")
    top_k: bool = False
    repeat_penalty_field: str | None = None  # llama.cpp: repeat_penalty, vLLM/OpenRouter: repetition_penalty
    seed: bool = True
    penalties: bool = True  # frequency_penalty / presence_penalty
    images: bool = True
    audio: bool = False
    forced_tool_choice: bool = True  # tool_choice {"type": "function", "function": {"name": …}}
    system_role: str = "system"  # OpenAI o-series also take "developer"
    null_content: bool = True  # assistant tool-call turns send content null; "" for servers whose chat template concatenates it

    def param_names(self) -> dict[str, str | None]:
        return {
            "max_tokens": self.max_tokens_field,
            "temperature": "temperature",
            "top_p": "top_p",
            "top_k": "top_k" if self.top_k else None,
            "stop": "stop",
            "frequency_penalty": "frequency_penalty" if self.penalties else None,
            "presence_penalty": "presence_penalty" if self.penalties else None,
            "repeat_penalty": self.repeat_penalty_field,
            "seed": "seed" if self.seed else None,
        }


OPENAI_QUIRKS = ChatQuirks(max_tokens_field="max_completion_tokens", reasoning_fields=(), audio=True)
_LOCAL = ChatQuirks(top_k=True, repeat_penalty_field="repeat_penalty", reasoning_fields=("reasoning_content",), null_content=False)


@dataclass(slots=True, frozen=True)
class ProviderKind:
    """One row: a configuration ``kind`` and/or an OpenAI-compatible ``server`` name.

    ``kind`` is what ``[providers.x] kind = "…"`` selects directly (None: reachable
    only as ``kind = "openai-compatible"`` with ``options.server``); ``server`` is
    the name ``options.server`` / :func:`~genx.generators.providers.compat.openai_compatible`
    use (None: not a Chat Completions server). ``label`` names the provider in
    errors and logs when the configuration gives no name.
    """

    label: str
    dialect: DialectName
    base_url: str | None  # None: the user must configure it
    auth: AuthStyle = "bearer"
    api_key_env: str | None = None
    api_key_required: bool = True
    quirks: ChatQuirks = field(default_factory=ChatQuirks)  # Chat Completions dialect only
    kind: str | None = None
    server: str | None = None

    def fallback_env(self, base_url: str | None) -> str | None:
        """The environment variable the key falls back to for ``base_url``: only the row's own default origin gets it."""
        if self.api_key_env is None or self.base_url is None:
            return None
        return self.api_key_env if base_url is None or same_origin(base_url, self.base_url) else None

    def key_hint(self, base_url: str | None) -> str:
        """Why a custom ``base_url`` gets no environment key (empty when the fallback applies or there is none)."""
        if self.api_key_env is None or self.fallback_env(base_url) is not None:
            return ""
        return f"{self.api_key_env} is only sent to {self.base_url}; a custom base_url needs its own api_key reference"


_OPENAI = "https://api.openai.com/v1"

#: The one table. Order is documentation order (README's providers section follows it).
PROVIDER_KINDS: tuple[ProviderKind, ...] = (
    ProviderKind("openai", "chat", _OPENAI, api_key_env="OPENAI_API_KEY", quirks=OPENAI_QUIRKS, kind="openai-chat", server="openai"),
    ProviderKind("openai", "responses", _OPENAI, api_key_env="OPENAI_API_KEY", kind="openai-responses"),
    ProviderKind("anthropic", "anthropic", "https://api.anthropic.com", "x-api-key", "ANTHROPIC_API_KEY", kind="anthropic"),
    ProviderKind("gemini", "gemini", "https://generativelanguage.googleapis.com", "x-goog-api-key", "GEMINI_API_KEY", kind="gemini"),
    ProviderKind("ollama", "ollama", "http://127.0.0.1:11434", api_key_required=False, kind="ollama"),
    # Any other Chat Completions server: base_url required, a key only when configured.
    ProviderKind("openai-compatible", "chat", None, api_key_required=False, kind="openai-compatible"),
    # llama-cpp-python's server and llama.cpp's own llama-server: no key unless started with --api-key.
    ProviderKind(
        "llamacpp", "chat", "http://127.0.0.1:8080/v1", api_key_required=False, quirks=_LOCAL, kind="llamacpp-server", server="llamacpp"
    ),
    ProviderKind(
        "vllm",
        "chat",
        "http://127.0.0.1:8000/v1",
        api_key_required=False,
        quirks=ChatQuirks(top_k=True, repeat_penalty_field="repetition_penalty", reasoning_fields=("reasoning_content", "reasoning")),
        server="vllm",
    ),
    ProviderKind("lmstudio", "chat", "http://127.0.0.1:1234/v1", auth="none", api_key_required=False, quirks=_LOCAL, server="lmstudio"),
    ProviderKind(
        "dashscope",
        "chat",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        api_key_env="DASHSCOPE_API_KEY",
        quirks=ChatQuirks(top_k=True, repeat_penalty_field="repetition_penalty", reasoning_fields=("reasoning_content",), audio=True),
        server="dashscope",
    ),
    ProviderKind(
        "deepseek",
        "chat",
        "https://api.deepseek.com/v1",
        api_key_env="DEEPSEEK_API_KEY",
        quirks=ChatQuirks(reasoning_fields=("reasoning_content",), images=False, seed=False),
        server="deepseek",
    ),
    ProviderKind(
        "groq",
        "chat",
        "https://api.groq.com/openai/v1",
        api_key_env="GROQ_API_KEY",
        quirks=ChatQuirks(reasoning_fields=("reasoning",), max_tokens_field="max_completion_tokens"),
        server="groq",
    ),
    ProviderKind(
        "openrouter",
        "chat",
        "https://openrouter.ai/api/v1",
        api_key_env="OPENROUTER_API_KEY",
        quirks=ChatQuirks(top_k=True, repeat_penalty_field="repetition_penalty", reasoning_fields=("reasoning",)),
        server="openrouter",
    ),
)

#: Configuration ``kind`` → row (the HTTP generator kinds the loader registers).
KINDS: Mapping[str, ProviderKind] = {r.kind: r for r in PROVIDER_KINDS if r.kind is not None}
#: OpenAI-compatible server name (``options.server``) → row.
SERVERS: Mapping[str, ProviderKind] = {r.server: r for r in PROVIDER_KINDS if r.server is not None}


def same_origin(a: str, b: str) -> bool:
    """Same scheme, host and port (default ports filled in); paths do not matter."""
    pa, pb = urlsplit(a), urlsplit(b)
    try:
        return (pa.scheme.lower(), (pa.hostname or "").lower(), _port(pa.scheme, pa.port)) == (
            pb.scheme.lower(),
            (pb.hostname or "").lower(),
            _port(pb.scheme, pb.port),
        )
    except ValueError:  # a malformed port
        return False


def _port(scheme: str, port: int | None) -> int | None:
    if port is not None:
        return port
    return {"http": 80, "https": 443}.get(scheme.lower())


def is_credential_header(name: str) -> bool:
    """Whether a header of this name carries credentials (its value is redacted, and must be a secret reference in config)."""
    low = name.lower()
    return any(h in low for h in CREDENTIAL_HEADER_HINTS)


__all__ = [
    "CREDENTIAL_HEADER_HINTS",
    "KINDS",
    "OPENAI_QUIRKS",
    "PROVIDER_KINDS",
    "SERVERS",
    "AuthStyle",
    "ChatQuirks",
    "DialectName",
    "ProviderKind",
    "is_credential_header",
    "same_origin",
]
