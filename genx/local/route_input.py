"""Reading utterance routes: the input chunks with the audio each carries, one 16 kHz mono converter per route.

The VAD (:mod:`genx.local.vad_call`) and the ASR (:mod:`genx.local.asr_call`)
both read routes of ``audio/L16`` blobs keyed by StreamID; this is the framing
they share. Does not own: what a route's audio is used for, its control chunks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from genx.chunk import Blob, MessageChunk
from genx.errors import Done
from genx.local.pcm import converter_to_16k_mono, is_audio
from genx.stream import Stream
from genx.transformers.audiostream.pcm import PCMConverter


async def route_chunks(src: Stream, stop: Callable[[], bool] = lambda: False) -> AsyncIterator[tuple[MessageChunk, Blob | None]]:
    """Each chunk of ``src`` with the audio blob it carries (None when it carries something else), until ``src``
    ends normally (its other end errors are raised) or ``stop()`` is true before the next chunk is awaited."""
    while not stop():
        try:
            c = await src.next()
        except Done:
            return
        yield c, route_audio(c)


def route_audio(c: MessageChunk) -> Blob | None:
    """The audio blob ``c`` carries, or None when it carries something else (or nothing)."""
    part = c.part
    return part if isinstance(part, Blob) and is_audio(part.mime) else None


class RouteConverter:
    """A route's converter to 16 kHz mono: a new one whenever the route's MIME changes."""

    __slots__ = ("_conv", "_mime")

    def __init__(self) -> None:
        self._conv: PCMConverter | None = None
        self._mime = ""

    def switch(self, mime: str) -> bytes | None:
        """Read ``mime`` from now on; the replaced converter's tail, or None when none was replaced."""
        if mime == self._mime and self._conv is not None:
            return None
        tail = None if self._conv is None else self._conv.flush()
        self._conv = converter_to_16k_mono(mime)
        self._mime = mime
        return tail

    def process(self, data: bytes) -> bytes:
        """``data`` (in the MIME of the last :meth:`switch`) as 16 kHz mono int16."""
        if self._conv is None:
            raise RuntimeError("RouteConverter.process before switch")
        return self._conv.process(data)

    def flush(self) -> bytes | None:
        """The converter's tail at the route's end; None when the route had no audio."""
        return None if self._conv is None else self._conv.flush()


__all__ = ["RouteConverter", "route_audio", "route_chunks"]
