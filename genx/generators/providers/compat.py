"""OpenAI-compatible servers as configuration rows over the Chat Completions adapter.

Each :class:`CompatRow` says where a server lives, how it authenticates and
which :class:`~genx.generators.providers.openai_chat.ChatQuirks` it needs. Adding
a server is adding a row, not code. Quirks verified against the servers' docs:

* ``reasoning_content`` (DeepSeek, DashScope/Qwen, vLLM, llama.cpp, LM Studio) vs
  ``reasoning`` (Groq, OpenRouter) for thinking deltas;
* ``stream_options.include_usage`` support;
* which sampling params exist (``top_k``, ``repeat_penalty`` / ``repetition_penalty``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from genx.generators.providers.config import AuthStyle, ProviderConfig, timeouts_from
from genx.generators.providers.errors import ProviderConfigError
from genx.generators.providers.generator import HttpGenerator
from genx.generators.providers.openai_chat import OPENAI_QUIRKS, ChatQuirks, OpenAIChatGenerator, quirks_with
from genx.generators.providers.transport import Sleep


@dataclass(slots=True, frozen=True)
class CompatRow:
    name: str
    base_url: str | None  # None: the user must configure it
    auth: AuthStyle = "bearer"
    api_key_required: bool = True
    api_key_env: str | None = None
    quirks: ChatQuirks = field(default_factory=ChatQuirks)
    headers: Mapping[str, str] = field(default_factory=dict)


_LOCAL = ChatQuirks(top_k=True, repeat_penalty_field="repeat_penalty", reasoning_fields=("reasoning_content",), null_content=False)

COMPAT_ROWS: dict[str, CompatRow] = {
    row.name: row
    for row in (
        CompatRow("openai", "https://api.openai.com/v1", api_key_env="OPENAI_API_KEY", quirks=OPENAI_QUIRKS),
        # llama-cpp-python's server and llama.cpp's own llama-server: no key unless started with --api-key.
        CompatRow("llamacpp", "http://127.0.0.1:8080/v1", api_key_required=False, quirks=_LOCAL),
        CompatRow(
            "vllm",
            "http://127.0.0.1:8000/v1",
            api_key_required=False,
            quirks=ChatQuirks(top_k=True, repeat_penalty_field="repetition_penalty", reasoning_fields=("reasoning_content", "reasoning")),
        ),
        CompatRow("lmstudio", "http://127.0.0.1:1234/v1", auth="none", api_key_required=False, quirks=_LOCAL),
        CompatRow(
            "dashscope",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            api_key_env="DASHSCOPE_API_KEY",
            quirks=ChatQuirks(top_k=True, repeat_penalty_field="repetition_penalty", reasoning_fields=("reasoning_content",), audio=True),
        ),
        CompatRow(
            "deepseek",
            "https://api.deepseek.com/v1",
            api_key_env="DEEPSEEK_API_KEY",
            quirks=ChatQuirks(reasoning_fields=("reasoning_content",), images=False, seed=False),
        ),
        CompatRow(
            "groq",
            "https://api.groq.com/openai/v1",
            api_key_env="GROQ_API_KEY",
            quirks=ChatQuirks(reasoning_fields=("reasoning",), max_tokens_field="max_completion_tokens"),
        ),
        CompatRow(
            "openrouter",
            "https://openrouter.ai/api/v1",
            api_key_env="OPENROUTER_API_KEY",
            quirks=ChatQuirks(top_k=True, repeat_penalty_field="repetition_penalty", reasoning_fields=("reasoning",)),
        ),
    )
}


def row(name: str) -> CompatRow:
    try:
        return COMPAT_ROWS[name]
    except KeyError:
        raise ProviderConfigError(name, f"unknown OpenAI-compatible server {name!r}; known: {', '.join(sorted(COMPAT_ROWS))}") from None


def openai_compatible(
    server: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeouts: Any = None,
    quirks: Mapping[str, Any] | None = None,
    provider: str | None = None,
    client: httpx.AsyncClient | None = None,
    sleep: Sleep | None = None,
) -> OpenAIChatGenerator:
    """A Chat Completions generator for the row ``server`` (``"llamacpp"``, ``"groq"`` …).

    ``base_url`` overrides the row's default; ``quirks`` overrides single quirk fields.
    """
    r = row(server)
    label = provider or r.name
    url = base_url or r.base_url
    if not url:
        raise ProviderConfigError(label, "no base_url configured for this server; add base_url to its settings")
    cfg = ProviderConfig(
        provider=label,
        base_url=url,
        api_key=api_key,
        model=model,
        headers={**r.headers, **(headers or {})},
        timeouts=timeouts if hasattr(timeouts, "read") else timeouts_from(timeouts),
        auth=r.auth,
        api_key_required=r.api_key_required,
        api_key_env=r.api_key_env,
    )
    return OpenAIChatGenerator(config=cfg, quirks=quirks_with(label, r.quirks, quirks or {}), client=client, sleep=sleep)


def from_config(spec: Any, provider: Any = None, secrets: Any = None, **kw: Any) -> HttpGenerator:
    """Model-loader factory for kind ``openai-compatible`` (see :mod:`genx.generators.providers.factory`)."""
    from genx.generators.providers.factory import build

    return build(spec, provider, secrets, kind="openai-compatible", **kw)


__all__ = ["COMPAT_ROWS", "CompatRow", "from_config", "openai_compatible", "row"]
