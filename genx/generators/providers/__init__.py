"""Provider adapters over HTTP: each wire API as a genx :class:`~genx.generators.Generator`.

Owns: the wire dialects (OpenAI Chat Completions :mod:`.openai_chat`, OpenAI
Responses :mod:`.openai_responses`, Anthropic Messages :mod:`.anthropic`, Gemini
:mod:`.gemini` (request in :mod:`.gemini_request`, conversion in :mod:`.gemini_convert`), Ollama native
:mod:`.ollama`), the OpenAI-compatible server rows
(:mod:`.compat`: llama.cpp server, vLLM, LM Studio, DashScope, DeepSeek, Groq,
OpenRouter), SSE / NDJSON framing (:mod:`.framing`), the httpx transport with
retries before the first byte (:mod:`.transport`), typed provider errors
(:mod:`.errors`) and the fold of a stream into a history message
(:mod:`.accumulate`).

Layers: request building and event conversion are pure functions / per-stream
converter objects (no I/O, tested on recorded streams); :class:`HttpGenerator`
drives one dialect over :class:`HttpTransport`.

Every kind's defaults (dialect, base URL, auth header, key variable, quirks)
are one row of :mod:`genx.generators.provider_kinds`. Each adapter module
exposes a constructor over its row (``OpenAIChatGenerator(base_url, api_key,
model, headers=, timeouts=, quirks=, client=)`` and friends, see
:class:`KindGenerator`); :func:`.factory.build` is the model loader's factory
for every HTTP kind (secrets are resolved per request, never in the factory).
Keys from environment variables go only to a kind's own default host.

Usage is exposed twice: ``ProviderStream.usage`` after the end, and the last
chunk of every stream (no part, ``meta={"usage": …, "finish_reason": …}``).

Does not own: running tools (the caller does), conversation history, the model
config file (``genx.modelloader``), the in-process llama.cpp generator.
"""

from __future__ import annotations

from genx.generators.provider_kinds import PROVIDER_KINDS, ChatQuirks, ProviderKind
from genx.generators.providers.accumulate import MessageAccumulator, accumulate
from genx.generators.providers.anthropic import AnthropicGenerator
from genx.generators.providers.compat import COMPAT_ROWS, openai_compatible
from genx.generators.providers.config import ProviderConfig, RetryPolicy, Timeouts
from genx.generators.providers.errors import (
    AuthenticationError,
    BadRequestError,
    ContentFilterError,
    ContextLengthError,
    ModelNotFoundError,
    PermissionDeniedError,
    ProtocolError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    StreamEndedError,
    ToolPairingError,
    UnsupportedSettingError,
)
from genx.generators.providers.gemini import GeminiGenerator
from genx.generators.providers.generator import HttpGenerator, KindGenerator, NoToolCallError, ProviderStream
from genx.generators.providers.ollama import OllamaGenerator
from genx.generators.providers.openai_chat import OpenAIChatGenerator
from genx.generators.providers.openai_responses import OpenAIResponsesGenerator

__all__ = [
    "COMPAT_ROWS",
    "PROVIDER_KINDS",
    "AnthropicGenerator",
    "AuthenticationError",
    "BadRequestError",
    "ChatQuirks",
    "ContentFilterError",
    "ContextLengthError",
    "GeminiGenerator",
    "HttpGenerator",
    "KindGenerator",
    "MessageAccumulator",
    "ModelNotFoundError",
    "NoToolCallError",
    "OllamaGenerator",
    "OpenAIChatGenerator",
    "OpenAIResponsesGenerator",
    "PermissionDeniedError",
    "ProtocolError",
    "ProviderConfig",
    "ProviderConfigError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderKind",
    "ProviderStream",
    "ProviderTimeoutError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "StreamEndedError",
    "Timeouts",
    "ToolPairingError",
    "UnsupportedSettingError",
    "accumulate",
    "openai_compatible",
]
