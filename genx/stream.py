"""The async Stream protocol and the StreamBuilder that producers fill.

Contract
--------
* ``await stream.next()`` returns the next :class:`~genx.chunk.MessageChunk`
  or raises the end error: :class:`~genx.errors.Done` for a normal end, another
  :class:`~genx.errors.State` (truncated / blocked) or the producer's exception.
  The end error repeats on every later ``next()``.
* ``async for chunk in stream`` ends quietly on ``Done`` and raises anything else.
* ``await stream.close()`` ends the stream from the consumer side and releases the
  producer (its ``push`` starts raising :class:`~genx.errors.StreamClosedError`,
  its ``on_close`` callbacks run); ``close_with_error(exc)`` does the same and makes
  later ``next()`` raise ``exc``. Closing twice is harmless.

A :class:`StreamBuilder` is loop-affine: call it from the event loop thread only
(other threads hand data over with ``loop.call_soon_threadsafe``). ``push`` never
blocks; the queue is unbounded (byte-limited queues live in streamkit).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Protocol, runtime_checkable

from genx.chunk import MessageChunk
from genx.errors import Blocked, Done, State, StreamClosedError, Truncated


@runtime_checkable
class Stream(Protocol):
    async def next(self) -> MessageChunk: ...

    async def close(self) -> None: ...

    async def close_with_error(self, exc: BaseException) -> None: ...

    def __aiter__(self) -> AsyncIterator[MessageChunk]: ...


class StreamBase:
    """Mixin giving ``async for`` (quiet on Done) and ``async with`` (closes) to a stream."""

    __slots__ = ()

    async def next(self) -> MessageChunk:  # pragma: no cover - abstract
        raise NotImplementedError

    async def close(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    async def close_with_error(self, exc: BaseException) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __aiter__(self) -> AsyncIterator[MessageChunk]:
        return self

    async def __anext__(self) -> MessageChunk:
        try:
            return await self.next()
        except Done:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> StreamBase:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


CloseCallback = Callable[[BaseException | None], None]


class StreamBuilder:
    """Producer side of a stream: ``push`` chunks, then end it once.

    End methods: :meth:`done`, :meth:`truncated`, :meth:`blocked`, :meth:`abort`.
    The first end wins; queued chunks are still delivered before the end error.
    """

    __slots__ = ("_close_error", "_closed", "_end", "_on_close", "_q", "_waiter", "stream")

    def __init__(self) -> None:
        self._q: deque[MessageChunk] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._end: BaseException | None = None
        self._closed = False  # closed by the consumer
        self._close_error: BaseException | None = None
        self._on_close: list[CloseCallback] = []
        self.stream = BuiltStream(self)

    # -- producer ------------------------------------------------------
    def push(self, chunk: MessageChunk) -> None:
        if self._end is not None or self._closed:
            raise StreamClosedError("stream builder")
        self._q.append(chunk)
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    def push_many(self, chunks: Iterable[MessageChunk]) -> None:
        for c in chunks:
            self.push(c)

    def done(self) -> None:
        self._finish(Done())

    def truncated(self) -> None:
        self._finish(Truncated())

    def blocked(self, reason: str = "") -> None:
        self._finish(Blocked(reason))

    def abort(self, exc: BaseException) -> None:
        """End with ``exc`` (raised as is by ``next()`` after queued chunks)."""
        self._finish(exc)

    def discard(self, predicate: Callable[[MessageChunk], bool]) -> int:
        """Drop queued, not yet pulled chunks matching ``predicate``; return how many."""
        before = len(self._q)
        if before:
            self._q = deque(c for c in self._q if not predicate(c))
        return before - len(self._q)

    def on_close(self, callback: CloseCallback) -> None:
        """Run ``callback(error_or_None)`` when the consumer closes the stream."""
        if self._closed:
            callback(self._close_error)
        else:
            self._on_close.append(callback)

    @property
    def ended(self) -> bool:
        """True once the producer ended the stream or the consumer closed it."""
        return self._end is not None or self._closed

    @property
    def closed_by_consumer(self) -> bool:
        return self._closed

    def queued(self) -> int:
        return len(self._q)

    def _finish(self, end: BaseException) -> None:
        if self._end is not None:
            return
        self._end = end
        self._wake()

    def _wake(self) -> None:
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    def _consumer_close(self, exc: BaseException | None) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_error = exc
        self._q.clear()
        if self._end is None:
            self._end = exc if exc is not None else Done()
        self._wake()
        callbacks, self._on_close = self._on_close, []
        for cb in callbacks:
            cb(exc)


class BuiltStream(StreamBase):
    """Consumer side of a :class:`StreamBuilder`."""

    __slots__ = ("_b",)

    def __init__(self, builder: StreamBuilder) -> None:
        self._b = builder

    async def next(self) -> MessageChunk:
        b = self._b
        while True:
            q = b._q
            if q:
                return q.popleft()
            end = b._end
            if end is not None:
                raise end
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            b._waiter = fut
            try:
                await fut
            finally:
                if b._waiter is fut:
                    b._waiter = None

    async def close(self) -> None:
        self._b._consumer_close(None)

    async def close_with_error(self, exc: BaseException) -> None:
        self._b._consumer_close(exc)


def stream_of(*chunks: MessageChunk, end: BaseException | None = None) -> BuiltStream:
    """A finished stream holding ``chunks``, ending with ``end`` (default Done)."""
    b = StreamBuilder()
    b.push_many(chunks)
    if end is None:
        b.done()
    else:
        b.abort(end)
    return b.stream


async def collect(stream: Stream) -> list[MessageChunk]:
    """Drain ``stream`` into a list; Done ends quietly, other end errors propagate."""
    out: list[MessageChunk] = []
    while True:
        try:
            out.append(await stream.next())
        except Done:
            return out


def is_state(exc: BaseException) -> bool:
    return isinstance(exc, State)
