"""Stream combinators: merge, merge_interleaved, composite_seq, split, tee, map_stream, iter_chunks.

Pull-based where the behaviour allows it: :func:`merge`,
:func:`merge_interleaved`, :func:`composite_seq`, :func:`tee` and
:func:`map_stream` run no task of their own; each ``next()`` awaits the
upstream's ``next()`` directly, so a chain of such stages costs one coroutine
call per stage and no event-loop hop. Only :func:`split` needs a background
reader (two consumers pull independently).

End errors: ``Done`` of a child is the normal end; any other end error of a
child (``Truncated``, ``Blocked``, a producer exception) is raised at once and
then repeats on every later ``next()``. ``CancelledError`` of the awaiting task
propagates without ending the combinator.

The merges (:func:`merge`, :func:`merge_interleaved`, :func:`composite_seq`, :func:`empty_stream`) live in
:mod:`genx.stream_merge` and are re-exported here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from genx.chunk import MessageChunk
from genx.errors import Done
from genx.stream import Stream, StreamBase, StreamBuilder
from genx.stream_merge import EmptyStream, composite_seq, empty_stream, merge, merge_interleaved

__all__ = [
    "ChunkFn",
    "EmptyStream",
    "composite_seq",
    "empty_stream",
    "iter_chunks",
    "map_stream",
    "merge",
    "merge_interleaved",
    "passthrough",
    "split",
    "tee",
]

ChunkFn = Callable[[MessageChunk], MessageChunk | None]


# -- map / pass-through --------------------------------------------------------
class PassThroughStream(StreamBase):
    """A stage that forwards upstream chunks unchanged, with no task and no queue."""

    __slots__ = ("_src",)

    def __init__(self, src: Stream) -> None:
        self._src = src

    async def next(self) -> MessageChunk:
        return await self._src.next()

    async def close(self) -> None:
        await self._src.close()

    async def close_with_error(self, exc: BaseException) -> None:
        await self._src.close_with_error(exc)


class MapStream(StreamBase):
    """Lazy map: each ``next()`` pulls upstream and applies ``fn``; ``None`` drops the chunk."""

    __slots__ = ("_fn", "_src")

    def __init__(self, src: Stream, fn: ChunkFn) -> None:
        self._src = src
        self._fn = fn

    async def next(self) -> MessageChunk:
        src = self._src
        fn = self._fn
        while True:
            out = fn(await src.next())
            if out is not None:
                return out

    async def close(self) -> None:
        await self._src.close()

    async def close_with_error(self, exc: BaseException) -> None:
        await self._src.close_with_error(exc)


def passthrough(stream: Stream) -> Stream:
    """A pull stage that forwards ``stream`` as is (the cheapest possible stage)."""
    return PassThroughStream(stream)


def map_stream(stream: Stream, fn: ChunkFn | None = None) -> Stream:
    """Lazily apply ``fn`` to each chunk of ``stream``; ``fn`` returning ``None`` drops it.

    No task hop: ``next()`` awaits the upstream's ``next()`` directly, and the
    upstream's end error passes through as is. An exception raised by ``fn``
    propagates from that ``next()`` (the upstream stays open; close it).
    """
    if fn is None:
        return PassThroughStream(stream)
    return MapStream(stream, fn)


# -- tee -----------------------------------------------------------------------
class TeeStream(StreamBase):
    """Forwards the source and mirrors every chunk it returns into a builder."""

    __slots__ = ("_b", "_src")

    def __init__(self, src: Stream, builder: StreamBuilder) -> None:
        self._src = src
        self._b = builder

    async def next(self) -> MessageChunk:
        b = self._b
        try:
            chunk = await self._src.next()
        except Done:
            b.done()
            raise
        except Exception as e:
            b.abort(e)
            raise
        if not b.ended:  # a mirror closed by its consumer no longer receives
            b.push(chunk)
        return chunk

    async def close(self) -> None:
        self._b.truncated()
        await self._src.close()

    async def close_with_error(self, exc: BaseException) -> None:
        self._b.abort(exc)
        await self._src.close_with_error(exc)


def tee(stream: Stream, builder: StreamBuilder) -> Stream:
    """Return ``stream`` with every chunk also pushed into ``builder`` (the same object, not a copy).

    The mirror advances as the returned stream is consumed. Source Done →
    ``builder.done()``; any other end error ``e`` → ``builder.abort(e)``.
    Closing the returned stream closes the source and ends the mirror with
    ``Truncated`` (``close_with_error(e)``: with ``e``).
    """
    return TeeStream(stream, builder)


# -- split ---------------------------------------------------------------------
_READERS: set[asyncio.Task[None]] = set()  # keeps reader tasks alive until they finish


def split(stream: Stream, predicate: Callable[[MessageChunk], bool]) -> tuple[Stream, Stream]:
    """Route each chunk of ``stream`` to ``matched`` (predicate true) or ``rest``.

    A background reader task (started here: call from the event loop) feeds
    both. Both end when the source ends (same end error for both; an exception
    raised by ``predicate`` ends both with it). Split never closes the source;
    when both outputs are closed by their consumers the reader stops pulling.
    A cancelled reader ends both outputs with ``Truncated``.
    """
    matched = StreamBuilder()
    rest = StreamBuilder()

    async def reader() -> None:
        try:
            while not (matched.closed_by_consumer and rest.closed_by_consumer):
                try:
                    chunk = await stream.next()
                    target = matched if predicate(chunk) else rest
                except Done:
                    matched.done()
                    rest.done()
                    return
                except Exception as e:
                    matched.abort(e)
                    rest.abort(e)
                    return
                if not target.ended:
                    target.push(chunk)
        except asyncio.CancelledError:
            matched.truncated()
            rest.truncated()
            raise

    task = asyncio.get_running_loop().create_task(reader())
    _READERS.add(task)
    task.add_done_callback(_READERS.discard)

    def on_output_closed(_: BaseException | None) -> None:
        if matched.closed_by_consumer and rest.closed_by_consumer and not task.done():
            task.cancel()

    matched.on_close(on_output_closed)
    rest.on_close(on_output_closed)
    return matched.stream, rest.stream


# -- iteration -----------------------------------------------------------------
async def iter_chunks(stream: Stream) -> AsyncIterator[MessageChunk]:
    """Async-iterate ``stream``; ends quietly on Done, raises any other end error."""
    while True:
        try:
            chunk = await stream.next()
        except Done:
            return
        yield chunk
