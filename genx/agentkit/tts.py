"""The loop's :class:`~genx.agentkit.ports.Speech` over the streamkit TTS transformer.

Each answer gets its own ``TTSTransformer`` call whose synthesizer is wrapped by
:class:`RecordingSynthesizer`: as the wrapped synthesizer yields audio for a
segment, the wrapper records the segment's text and byte span in the answer's
:class:`~genx.agentkit.spoken.SegmentRecorder` (segments are synthesized one at
a time per call, in route order, so byte offsets add up). A segment cut by an
interrupt stays marked incomplete (its length is then estimated from the
speaking rate). Interrupt is ``TTSStream.interrupt(stream_id)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from genx.agentkit.spoken import SegmentRecorder
from genx.stream import Stream
from genx.transformers.streamkit.tts_pipeline import DEFAULT_LOOKAHEAD_S
from genx.transformers.tts import Synthesizer, TTSTransformer


class RecordingSynthesizer:
    """A :class:`~genx.transformers.tts.Synthesizer` that records what it synthesized."""

    __slots__ = ("inner", "recorder")

    def __init__(self, inner: Synthesizer, recorder: SegmentRecorder) -> None:
        self.inner = inner
        self.recorder = recorder

    @property
    def mime(self) -> str:
        return self.inner.mime

    async def synthesize(self, text: str) -> AsyncIterator[bytes]:
        rec = self.recorder
        rec.begin(text)
        gen = self.inner.synthesize(text)
        try:
            async for block in gen:
                if block:
                    rec.audio(block)
                yield block
        finally:
            aclose = getattr(gen, "aclose", None)
            if aclose is not None:
                await aclose()
        # reached only when the segment was synthesized to its end
        rec.end()


class StreamkitSpeech:
    """Per-answer TTS calls over ``synthesizer`` (e.g. ``genx.local.piper_tts.PiperSynthesizer``)."""

    __slots__ = ("language", "lookahead_s", "max_chunk_ms", "synthesizer")

    def __init__(
        self,
        synthesizer: Synthesizer,
        *,
        language: str = "auto",
        max_chunk_ms: float | None = 20.0,
        lookahead_s: float | None = DEFAULT_LOOKAHEAD_S,
    ) -> None:
        self.synthesizer = synthesizer
        self.language = language
        self.max_chunk_ms = max_chunk_ms
        self.lookahead_s = lookahead_s  # audio synthesized ahead of what the player pulled (see TTSTransformer)

    async def speak(self, text: Stream, recorder: SegmentRecorder) -> Stream:
        tts = TTSTransformer(
            RecordingSynthesizer(self.synthesizer, recorder),
            language=self.language,
            max_chunk_ms=self.max_chunk_ms,
            lookahead_s=self.lookahead_s,
        )
        return await tts.transform(text)

    def interrupt(self, audio: Stream, stream_id: str) -> bool:
        fn: Any = getattr(audio, "interrupt", None)
        if fn is None:
            return False
        return bool(fn(stream_id))

    async def warm(self) -> None:
        w = getattr(self.synthesizer, "warm", None)
        if w is not None:
            await w()


__all__ = ["RecordingSynthesizer", "StreamkitSpeech"]
