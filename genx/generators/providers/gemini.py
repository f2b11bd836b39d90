"""Google Gemini (``POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse``).

The real wire frames events with CRLF; every chunk is a whole
``GenerateContentResponse`` with cumulative ``usageMetadata``.

Conversion rules: text parts → Text, ``thought: true`` parts → Thinking; a
``thoughtSignature`` on a text or thought part → ``Thinking("", signature)``
right after that part's text (an empty text part only carries its signature:
no empty Text chunk); ``functionCall`` parts → tool calls at once (Gemini sends
whole calls; ids are generated when missing), with the signature in
``meta["thought_signature"]``; Vertex's streamed ``partialArgs`` calls
(``willContinue``) are assembled by JSON path and closed by the empty
``functionCall`` part. ``finishReason`` STOP → Done, MAX_TOKENS → Truncated,
SAFETY / RECITATION / BLOCKLIST / PROHIBITED_CONTENT / SPII → Blocked,
MALFORMED_FUNCTION_CALL and other failures → a typed error;
``promptFeedback.blockReason`` → Blocked. The chunk with a finish reason is terminal.

Round trip: a signature is replayed on the part it followed (text or
functionCall, the latter via ``Message.meta["thought_signatures"][call_id]``);
generated call ids are not sent.

Split: request building in :mod:`.gemini_request`, event conversion in :mod:`.gemini_convert`; their public
names are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from genx.chunk import MessageChunk
from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.gemini_convert import GeminiConverter, gemini_convert_response, gemini_usage
from genx.generators.providers.gemini_request import build_gemini_body, gemini_contents
from genx.generators.providers.generator import KindGenerator
from genx.generators.providers.toolcalls import FunctionToolLike
from genx.generators.providers.transport import WireRequest
from genx.model import ModelContext


@dataclass(slots=True, frozen=True)
class GeminiDialect:
    framing: Literal["sse", "ndjson"] = "sse"
    api_version: str = "v1beta"

    def _url(self, config: ProviderConfig, model: str, method: str) -> str:
        name = model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"
        return config.url(f"{self.api_version}/{quote(name, safe='/')}:{method}")

    def stream_request(self, config: ProviderConfig, model: str, ctx: ModelContext) -> WireRequest:
        body = build_gemini_body(config.provider, ctx)
        url = self._url(config, model, "streamGenerateContent") + "?alt=sse"
        return WireRequest(url, body, {**config.request_headers(), "accept": "text/event-stream"})

    def invoke_request(self, config: ProviderConfig, model: str, ctx: ModelContext, tool: FunctionToolLike) -> WireRequest:
        return WireRequest(
            self._url(config, model, "generateContent"), build_gemini_body(config.provider, ctx, forced=tool), config.request_headers()
        )

    def new_converter(self, provider: str) -> GeminiConverter:
        return GeminiConverter(provider)

    def convert_response(self, provider: str, body: Any) -> tuple[list[MessageChunk], BaseException, GeminiConverter]:
        return gemini_convert_response(provider, body)


class GeminiGenerator(KindGenerator):
    """``GeminiGenerator(api_key=…, model="gemini-2.5-flash")``.

    Defaults from the kinds table: https://generativelanguage.googleapis.com, key ``GEMINI_API_KEY``.
    """

    KIND = "gemini"

    def new_dialect(self) -> GeminiDialect:
        return GeminiDialect()


__all__ = [
    "GeminiConverter",
    "GeminiDialect",
    "GeminiGenerator",
    "build_gemini_body",
    "gemini_contents",
    "gemini_convert_response",
    "gemini_usage",
]
