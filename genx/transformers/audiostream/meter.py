"""How much audio of each route was pulled (≈ heard, since the speaker pulls just in time).

:class:`PulledAudioMeter` is a pull observer: add it to an output stream
(``stream.add_observer(meter)``) and it counts, per StreamID, the audio bytes
handed to the consumer and, for ``audio/L16``, their duration. The voice loop
turns "ms heard" into "text heard" when an answer is interrupted.
"""

from __future__ import annotations

from dataclasses import dataclass

from genx.chunk import Blob, MessageChunk
from genx.transformers.audiostream.pcm import AudioFormatError, bytes_to_ms, is_l16, pcm_format_from_mime


@dataclass(slots=True)
class RouteAudio:
    mime: str
    bytes: int = 0
    ms: float | None = 0.0  # None when the MIME has no fixed byte rate (encoded audio)


class PulledAudioMeter:
    __slots__ = ("_routes",)

    def __init__(self) -> None:
        self._routes: dict[str, RouteAudio] = {}

    def __call__(self, chunk: MessageChunk) -> None:
        part = chunk.part
        if not isinstance(part, Blob) or not part.data or not part.mime.startswith("audio/"):
            return
        r = self._routes.get(chunk.stream_id)
        if r is None or r.mime != part.mime:
            r = self._routes[chunk.stream_id] = RouteAudio(part.mime, 0, 0.0 if is_l16(part.mime) else None)
        r.bytes += len(part.data)
        if r.ms is not None:
            try:
                rate, channels = pcm_format_from_mime(part.mime)
            except AudioFormatError:
                r.ms = None
            else:
                r.ms = bytes_to_ms(r.bytes, rate, channels)

    def pulled_bytes(self, stream_id: str) -> int:
        r = self._routes.get(stream_id)
        return 0 if r is None else r.bytes

    def pulled_ms(self, stream_id: str) -> float | None:
        """Milliseconds of ``audio/L16`` pulled on ``stream_id`` (0 if none; None for encoded audio)."""
        r = self._routes.get(stream_id)
        return 0.0 if r is None else r.ms

    def routes(self) -> dict[str, RouteAudio]:
        return dict(self._routes)

    def reset(self, stream_id: str | None = None) -> None:
        if stream_id is None:
            self._routes.clear()
        else:
            self._routes.pop(stream_id, None)


__all__ = ["PulledAudioMeter", "RouteAudio"]
