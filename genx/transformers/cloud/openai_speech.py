"""OpenAI speech (``POST {base_url}/audio/speech``) as a streamkit :class:`~genx.transformers.tts.Synthesizer`.

One request per sentence segment (the TTS pipeline cuts the text while it
streams in); the body is streamed back as it is synthesized. ``pcm`` is raw
24 kHz mono 16-bit PCM (``audio/L16; rate=24000``); ``mp3`` is ``audio/mpeg``,
whose ID3 tags the pipeline's normaliser strips. A failed request raises the
typed provider error (401 → ``AuthenticationError`` …); the pipeline ends the
route with its text and the stream raises it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from genx.generators.providers.config import ProviderConfig
from genx.generators.providers.errors import ProviderConfigError
from genx.generators.providers.transport import HttpTransport, WireRequest
from genx.transformers.audiostream.pcm import l16_mime
from genx.transformers.tts import TTSTransformer

PCM_RATE = 24000
FORMATS = {"pcm": l16_mime(PCM_RATE), "mp3": "audio/mpeg"}
DEFAULT_MODEL = "gpt-4o-mini-tts"
DEFAULT_VOICE = "alloy"
OPTION_KEYS = frozenset({"voice", "format", "instructions", "speed", "timeouts", "max_retries", "max_chunk_ms"})


class OpenAISpeechSynthesizer:
    __slots__ = ("_transport", "config", "instructions", "model", "response_format", "speed", "voice")

    def __init__(
        self,
        config: ProviderConfig,
        *,
        model: str = DEFAULT_MODEL,
        voice: str = DEFAULT_VOICE,
        response_format: str = "pcm",
        instructions: str | None = None,
        speed: float | None = None,
        transport: HttpTransport | None = None,
    ) -> None:
        if response_format not in FORMATS:
            raise ProviderConfigError(
                config.provider, f"format {response_format!r} is not supported; use 'pcm' or 'mp3'", key="options.format"
            )
        self.config = config
        self.model = model
        self.voice = voice
        self.response_format = response_format
        self.instructions = instructions
        self.speed = speed
        self._transport = transport or HttpTransport(config)

    @property
    def mime(self) -> str:
        return FORMATS[self.response_format]

    def request(self, text: str) -> WireRequest:
        body: dict[str, Any] = {"model": self.model, "input": text, "voice": self.voice, "response_format": self.response_format}
        if self.instructions:
            body["instructions"] = self.instructions
        if self.speed is not None:
            body["speed"] = self.speed
        return WireRequest(self.config.url("audio/speech"), body, self.config.request_headers())

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        stream = await self._transport.open(self.request(text))
        try:
            async for data in stream.chunks():
                yield data
        finally:
            await stream.aclose()

    async def aclose(self) -> None:
        await self._transport.aclose()


def from_config(spec: Any, secrets: Any = None, **kw: Any) -> TTSTransformer:
    """``[[voices]] kind = "openai-speech"``: ``model``, ``provider`` and options ``voice``, ``format``, ``instructions``, ``speed``."""
    from genx.generators.providers.factory import connection_config

    options: Mapping[str, Any] = getattr(spec, "options", {}) or {}
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise ProviderConfigError(
            "openai", f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(OPTION_KEYS))}", key=f"options.{unknown[0]}"
        )
    provider = getattr(spec, "provider_spec", None)
    cfg = connection_config("openai-chat", provider, secrets, model=getattr(spec, "model", None), options=options)
    synth = OpenAISpeechSynthesizer(
        cfg,
        model=cfg.model or DEFAULT_MODEL,
        voice=str(options.get("voice", DEFAULT_VOICE)),
        response_format=str(options.get("format", "pcm")),
        instructions=options.get("instructions"),
        speed=options.get("speed"),
        **kw,
    )
    chunk_ms = options.get("max_chunk_ms", 40)
    return TTSTransformer(synth, max_chunk_ms=float(chunk_ms) if chunk_ms else None)


__all__ = ["FORMATS", "OpenAISpeechSynthesizer", "from_config"]
