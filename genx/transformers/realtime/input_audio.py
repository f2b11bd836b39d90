"""Input audio of a realtime session: any ``audio/L16`` converted to the provider's rate, mono."""

from __future__ import annotations

from genx.chunk import Blob
from genx.transformers.audiostream.pcm import AudioFormatError, PCMConverter, is_l16


class InputAudio:
    """One streaming converter per input MIME; the provider's own format passes through untouched."""

    __slots__ = ("_converters", "_mime", "_provider")

    def __init__(self, provider: str, mime: str) -> None:
        self._provider = provider
        self._mime = mime
        self._converters: dict[str, PCMConverter] = {}

    def convert(self, part: Blob) -> bytes:
        mime = part.mime
        if mime == self._mime:
            return part.data
        conv = self._converters.get(mime)
        if conv is None:
            if not is_l16(mime):
                raise AudioFormatError(f"{self._provider} realtime takes audio/L16 (PCM) input, got {mime!r}; decode it to PCM first")
            conv = self._converters[mime] = PCMConverter(mime, self._mime)
        return conv.process(part.data)

    def flush(self) -> list[bytes]:
        """The converters' tails (end of a user turn); the next turn starts fresh converters."""
        tails = [tail for tail in (c.flush() for c in self._converters.values()) if tail]
        self._converters.clear()
        return tails


__all__ = ["InputAudio"]
