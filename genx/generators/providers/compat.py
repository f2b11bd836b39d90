"""OpenAI-compatible servers: rows of the provider kinds table over the Chat Completions adapter.

Each server (llama.cpp server, vLLM, LM Studio, DashScope, DeepSeek, Groq,
OpenRouter, OpenAI itself) is a :class:`~genx.generators.provider_kinds.ProviderKind`
row with a ``server`` name in :data:`genx.generators.provider_kinds.SERVERS`:
where it lives, how it authenticates and which
:class:`~genx.generators.provider_kinds.ChatQuirks` it needs. Adding a server
is adding a row, not code. Quirks verified against the servers' docs:

* ``reasoning_content`` (DeepSeek, DashScope/Qwen, vLLM, llama.cpp, LM Studio) vs
  ``reasoning`` (Groq, OpenRouter) for thinking deltas;
* ``stream_options.include_usage`` support;
* which sampling params exist (``top_k``, ``repeat_penalty`` / ``repetition_penalty``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from genx.generators.provider_kinds import SERVERS, ProviderKind
from genx.generators.providers.config import Timeouts, kind_config
from genx.generators.providers.errors import ProviderConfigError
from genx.generators.providers.openai_chat import ChatDialect, OpenAIChatGenerator, quirks_with
from genx.generators.providers.transport import Sleep

#: OpenAI-compatible server name → its row (the same objects as :data:`genx.generators.provider_kinds.SERVERS`).
COMPAT_ROWS: Mapping[str, ProviderKind] = SERVERS


def row(name: str) -> ProviderKind:
    try:
        return SERVERS[name]
    except KeyError:
        known = ", ".join(sorted(SERVERS))
        raise ProviderConfigError(name, f"unknown OpenAI-compatible server {name!r}; known: {known}", key="options.server") from None


def openai_compatible(
    server: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeouts: Timeouts | Mapping[str, Any] | float | None = None,
    quirks: Mapping[str, Any] | None = None,
    provider: str | None = None,
    client: httpx.AsyncClient | None = None,
    sleep: Sleep | None = None,
) -> OpenAIChatGenerator:
    """A Chat Completions generator for the row ``server`` (``"llamacpp"``, ``"groq"`` …).

    ``base_url`` overrides the row's default (the row's key variable is then not read);
    ``quirks`` overrides single quirk fields.
    """
    r = row(server)
    cfg = kind_config(r, base_url=base_url, api_key=api_key, model=model, headers=headers, timeouts=timeouts, provider=provider)
    dialect = ChatDialect(quirks_with(cfg.provider, r.quirks, quirks or {}))
    return OpenAIChatGenerator(config=cfg, dialect=dialect, client=client, sleep=sleep)


__all__ = ["COMPAT_ROWS", "openai_compatible", "row"]
