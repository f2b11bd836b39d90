"""Many streams into one: :func:`merge` (one after another), :func:`merge_interleaved` (round robin),
:func:`composite_seq` (concatenation with a boundary EOS) and :func:`empty_stream` (zero streams).

Part of the combinators (:mod:`genx.combinators`, whose rules on pulling and end errors apply): no task of
their own; the first end error other than ``Done`` repeats on every later ``next()`` (:class:`_EndLatch`).
"""

from __future__ import annotations

from collections.abc import Sequence

from genx.chunk import Blob, MessageChunk, Part, Text, Thinking
from genx.errors import Done
from genx.mime import TEXT_MIME, THINKING_MIME
from genx.stream import Stream, StreamBase

__all__ = ["EmptyStream", "composite_seq", "empty_stream", "merge", "merge_interleaved"]


class _EndLatch(StreamBase):
    """Base for combinators: remembers the first end error so it repeats."""

    __slots__ = ("_end",)

    def __init__(self) -> None:
        self._end: BaseException | None = None


class EmptyStream(_EndLatch):
    """A stream that ends at once with Done."""

    __slots__ = ()

    async def next(self) -> MessageChunk:
        if self._end is None:
            self._end = Done()
        raise self._end

    async def close(self) -> None:
        if self._end is None:
            self._end = Done()

    async def close_with_error(self, exc: BaseException) -> None:
        if self._end is None:
            self._end = exc


def empty_stream() -> Stream:
    return EmptyStream()


async def _close_all(streams: Sequence[Stream], exc: BaseException | None) -> None:
    """Close every stream even if some close() raises; re-raise the first failure."""
    first: BaseException | None = None
    for s in streams:
        try:
            if exc is None:
                await s.close()
            else:
                await s.close_with_error(exc)
        except Exception as e:
            if first is None:
                first = e
    if first is not None:
        raise first


# -- merge -------------------------------------------------------------------
class MergeStream(_EndLatch):
    """Sequential merge: drains each child in turn."""

    __slots__ = ("_idx", "_streams")

    def __init__(self, streams: Sequence[Stream]) -> None:
        super().__init__()
        self._streams = list(streams)
        self._idx = 0

    async def next(self) -> MessageChunk:
        if self._end is not None:
            raise self._end
        streams = self._streams
        while self._idx < len(streams):
            try:
                return await streams[self._idx].next()
            except Done:
                self._idx += 1
            except Exception as e:
                self._end = e
                raise
        self._end = Done()
        raise self._end

    async def close(self) -> None:
        if self._end is None:
            self._end = Done()
        await _close_all(self._streams, None)

    async def close_with_error(self, exc: BaseException) -> None:
        if self._end is None:
            self._end = exc
        await _close_all(self._streams, exc)


def merge(*streams: Stream) -> Stream:
    """Drain ``streams`` one after another. Zero streams → ends at once; one → itself."""
    if not streams:
        return EmptyStream()
    if len(streams) == 1:
        return streams[0]
    return MergeStream(streams)


# -- merge_interleaved ---------------------------------------------------------
class InterleavedStream(_EndLatch):
    """Round-robin merge: one chunk per live child per turn, in argument order."""

    __slots__ = ("_active", "_i", "_streams")

    def __init__(self, streams: Sequence[Stream]) -> None:
        super().__init__()
        self._streams = list(streams)
        self._active = list(streams)
        self._i = 0

    async def next(self) -> MessageChunk:
        if self._end is not None:
            raise self._end
        active = self._active
        while active:
            if self._i >= len(active):
                self._i = 0
            try:
                chunk = await active[self._i].next()
            except Done:
                del active[self._i]  # the next child moves into slot _i: its turn is now
                continue
            except Exception as e:
                self._end = e
                raise
            self._i += 1
            return chunk
        self._end = Done()
        raise self._end

    async def close(self) -> None:
        if self._end is None:
            self._end = Done()
        await _close_all(self._streams, None)

    async def close_with_error(self, exc: BaseException) -> None:
        if self._end is None:
            self._end = exc
        await _close_all(self._streams, exc)


def merge_interleaved(*streams: Stream) -> Stream:
    """Round-robin merge: ``(["1","3"], ["2","4"]) → 1, 2, 3, 4``. Zero → ends at once; one → itself.

    A child that has nothing yet holds up the turn (strict round-robin, no racing).
    """
    if not streams:
        return EmptyStream()
    if len(streams) == 1:
        return streams[0]
    return InterleavedStream(streams)


# -- composite_seq -------------------------------------------------------------
def _empty_part(mime: str) -> Part:
    if mime == TEXT_MIME:
        return Text("")
    if mime == THINKING_MIME:
        return Thinking("")
    return Blob(mime, b"")


class CompositeSeqStream(_EndLatch):
    """Concatenation with one boundary EOS between consecutive children."""

    __slots__ = ("_idx", "_last", "_streams")

    def __init__(self, streams: Sequence[Stream]) -> None:
        super().__init__()
        self._streams = list(streams)
        self._idx = 0
        self._last: MessageChunk | None = None  # last chunk with a MIME of the current child

    def _boundary(self) -> MessageChunk:
        last = self._last
        self._last = None
        if last is None:
            return MessageChunk.eos("", Text(""))
        return MessageChunk.eos(last.stream_id, _empty_part(last.mime()), label=last.label)

    async def next(self) -> MessageChunk:
        if self._end is not None:
            raise self._end
        streams = self._streams
        while self._idx < len(streams):
            try:
                chunk = await streams[self._idx].next()
            except Done:
                self._idx += 1
                if self._idx < len(streams):
                    return self._boundary()
                continue
            except Exception as e:
                self._end = e
                raise
            if chunk.part is not None and chunk.mime():
                self._last = chunk
            return chunk
        self._end = Done()
        raise self._end

    async def close(self) -> None:
        if self._end is None:
            self._end = Done()
        await _close_all(self._streams, None)

    async def close_with_error(self, exc: BaseException) -> None:
        if self._end is None:
            self._end = exc
        await _close_all(self._streams, exc)


def composite_seq(*streams: Stream) -> Stream:
    """Concatenate ``streams``; between two of them insert an EOS, none after the last.

    The EOS carries an empty part of the MIME of the previous stream's last chunk
    that had one (and that chunk's StreamID and label), or an empty text part
    when that stream had none: ``(["a"], ["b"]) → a, EOS(text), b, end``.
    """
    if not streams:
        return EmptyStream()
    if len(streams) == 1:
        return streams[0]
    return CompositeSeqStream(streams)
