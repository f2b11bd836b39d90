"""``[[realtime]]`` → a configured :class:`RealtimeTransformer` (the model loader's factory for ``openai-realtime`` / ``gemini-live``).

Host, auth header and key variable come from the kinds table's ``openai-chat`` /
``gemini`` rows (the environment key only for the default host); ``provider``
may name a ``[providers.*]`` table for another host or a key reference. Options:
``timeouts`` (``read`` is the realtime read timeout), ``max_retries`` (unused by
websockets, accepted for symmetry), ``extra`` (merged into the session object).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from genx.generators.providers.errors import ProviderConfigError
from genx.transformers.realtime.events import Dialect
from genx.transformers.realtime.gemini_live import GeminiLiveDialect
from genx.transformers.realtime.openai_realtime import OpenAIRealtimeDialect
from genx.transformers.realtime.session import RealtimeTransformer
from genx.transformers.realtime.settings import RealtimeSettings, TurnDetection

#: realtime kind → (HTTP kind whose row gives host / auth / key, dialect, default model)
KINDS: dict[str, tuple[str, Callable[[], Dialect], str]] = {
    "openai-realtime": ("openai-chat", OpenAIRealtimeDialect, "gpt-realtime"),
    "gemini-live": ("gemini", GeminiLiveDialect, "gemini-live-2.5-flash-preview"),
}
OPTION_KEYS = frozenset({"timeouts", "max_retries", "extra"})


def from_config(spec: Any, secrets: Any = None) -> RealtimeTransformer:
    from genx.generators.providers.factory import connection_config

    kind = str(getattr(spec, "kind", "openai-realtime"))
    if kind not in KINDS:
        raise ProviderConfigError(kind, f"unknown realtime kind {kind!r}; known: {', '.join(sorted(KINDS))}", key="kind")
    http_kind, dialect, default_model = KINDS[kind]
    options: Mapping[str, Any] = getattr(spec, "options", {}) or {}
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise ProviderConfigError(
            kind, f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(OPTION_KEYS))}", key=f"options.{unknown[0]}"
        )
    cfg = connection_config(http_kind, getattr(spec, "provider_spec", None), secrets, model=getattr(spec, "model", None), options=options)
    turns = getattr(spec, "turn_detection", "server_vad")
    if turns not in ("server_vad", "semantic_vad", "manual"):
        raise ProviderConfigError(kind, f"turn_detection {turns!r}: use server_vad, semantic_vad or manual", key="turn_detection")
    detection: TurnDetection = None
    if turns == "server_vad":
        detection = "server_vad"
    elif turns == "semantic_vad":
        detection = "semantic_vad"
    settings = RealtimeSettings(
        model=cfg.model or default_model,
        instructions=getattr(spec, "instructions", "") or "",
        voice=getattr(spec, "voice", None),
        output_modalities=(getattr(spec, "output", "audio"),),
        turn_detection=detection,
        input_transcription=getattr(spec, "input_transcription", None),
        extra=dict(options.get("extra") or {}),
    )
    return RealtimeTransformer(dialect, cfg, settings)


__all__ = ["KINDS", "from_config"]
