"""Transformers: stream-to-stream conversions (VAD, ASR, TTS, realtime).

Owns the :class:`Transformer` protocol, the transformer mux
(``genx.transformers.mux``), the internal runtime ``streamkit`` (per-call output
queue, interrupt, TTS segmentation), ``audiostream`` (MP3 normaliser, PCM helpers)
and the local offline transformers.

Does not own: audio devices (``app.audio``), model selection policy (config /
``genx.modelloader``), the voice loop (``genx.agentkit``).

Contract: a configured transformer serves concurrent ``transform()`` calls; each
call owns its context, input reader, output queue, StreamIDs and provider
session; cancelling one call never affects another; no transformer-wide lock.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from genx.stream import Stream


@runtime_checkable
class Transformer(Protocol):
    async def transform(self, stream: Stream) -> Stream:
        """Consume ``stream`` and return the transformed stream.

        Closing the returned stream cancels this call and closes ``stream``.
        """
        ...


__all__ = ["Transformer"]
