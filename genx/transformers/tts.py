"""Text-to-speech as a genx Transformer, over a pluggable :class:`Synthesizer`.

``TTSTransformer(synthesizer).transform(text_stream)`` returns a
:class:`~genx.transformers.streamkit.tts_pipeline.TTSStream`: per input text
route (StreamID) one audio route with the same StreamID — a BOS blob (the
synthesizer's MIME, no data) carrying the input's role/name/label, the audio
chunks, and one audio EOS. Sentences are synthesized while the text still
streams in (see :mod:`genx.transformers.streamkit.segmenter`). The full rules
are in :mod:`genx.transformers.streamkit.tts_pipeline`.

Backpressure: a segment is synthesized only while at most ``lookahead_s``
(3 s) of audio waits unpulled, so synthesis stays a few seconds ahead of the
player instead of finishing the whole answer before it is heard.

Barge-in: ``stream.interrupt(stream_id=None, text="interrupted")`` drops the
audio not yet pulled on that route (all routes when None), stops synthesis of
the rest and ends the route with EOS(error=text). Closing the stream cancels
the call and closes the input; ``stream.cancel()`` ends open routes with
EOS(error="context canceled") first.

Implementing a synthesizer (piper locally, cloud voices later)::

    class MySynth:
        mime = "audio/L16; rate=22050; channels=1"

        async def synthesize(self, text: str) -> AsyncIterator[bytes]:
            # run the model in a worker thread; yield audio as it comes
            for block in await asyncio.to_thread(model.speak, text):
                yield block

``synthesize`` is called once per segment, one segment at a time per call, but
concurrently across calls: keep per-call state inside the generator. When a
route is interrupted the running generator is cancelled and ``aclose()``-d; a
thread it started should stop at its next checkpoint (its result is dropped).
An exception from the generator ends the route with EOS(error=str(exc)) and the
stream then raises it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from genx.stream import Stream
from genx.transformers.streamkit.tts_pipeline import DEFAULT_LOOKAHEAD_S, TTSPipeline, TTSStream


@runtime_checkable
class Synthesizer(Protocol):
    @property
    def mime(self) -> str: ...  # output MIME, e.g. "audio/l16; channels=1; rate=22050"

    # async generator of audio bytes for one segment; closed (aclose) on interrupt
    def synthesize(self, text: str) -> AsyncIterator[bytes]: ...


class TTSTransformer:
    """A configured TTS transformer; every ``transform()`` call owns its own pipeline.

    ``language``: ``"auto"`` / ``"en"`` (English sentence rules on top of the
    original ones) or ``"zh"`` (the original rules only). ``max_chunk_ms``: for
    ``audio/L16`` output, cut audio chunks to at most this duration (frame
    aligned) so a player's pulls map finely to what was heard; ignored for
    encoded audio. ``output_max_bytes``: byte limit of unpulled output per call
    (0 = unlimited); overflow ends the call with ``OutputLimitError``.
    ``lookahead_s``: a segment is synthesized only while at most this much audio
    waits unpulled (backpressure from the player; ``None`` = synthesize ahead
    without limit).
    """

    __slots__ = ("language", "lookahead_s", "max_chunk_ms", "output_max_bytes", "synthesizer")

    def __init__(
        self,
        synthesizer: Synthesizer,
        *,
        language: str = "auto",
        max_chunk_ms: float | None = None,
        output_max_bytes: int = 0,
        lookahead_s: float | None = DEFAULT_LOOKAHEAD_S,
    ) -> None:
        if language not in ("auto", "en", "zh"):
            raise ValueError(f"unknown TTS language {language!r}; use 'auto', 'en' or 'zh'")
        if max_chunk_ms is not None and max_chunk_ms <= 0:
            raise ValueError(f"max_chunk_ms must be positive, got {max_chunk_ms}")
        if output_max_bytes < 0:
            raise ValueError(f"output_max_bytes must be >= 0 (0 = unlimited), got {output_max_bytes}")
        if lookahead_s is not None and not lookahead_s > 0:
            raise ValueError(f"lookahead_s must be positive (or None for unbounded), got {lookahead_s}")
        self.synthesizer = synthesizer
        self.language = language
        self.max_chunk_ms = max_chunk_ms
        self.output_max_bytes = output_max_bytes
        self.lookahead_s = lookahead_s

    async def transform(self, stream: Stream) -> TTSStream:
        pipeline = TTSPipeline(
            stream,
            self.synthesizer,
            language=self.language,
            max_chunk_ms=self.max_chunk_ms,
            output_max_bytes=self.output_max_bytes,
            lookahead_s=self.lookahead_s,
        )
        return pipeline.start()


__all__ = ["Synthesizer", "TTSStream", "TTSTransformer"]
