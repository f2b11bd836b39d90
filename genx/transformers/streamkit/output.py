"""The per-call output queue: a byte-limited, observable genx Stream.

Producer side (loop-affine, never blocks):

* :meth:`OutputQueue.push` appends a chunk. With ``max_bytes > 0`` the queued,
  not yet pulled content bytes (text as UTF-8, blob data, control chunks 0) may
  not exceed ``max_bytes``: the push that would overflow raises
  :class:`OutputLimitError`, the queue is discarded and every later ``next()``
  raises that error.
* :meth:`done` ("close" in the original): the queued chunks drain, then Done.
* :meth:`fail`: drain, then raise ``cause`` on every later ``next()`` (no cause = done).
* :meth:`abort` (the original's producer-side CloseWithError): discard the
  queue and raise ``exc`` at once.
* :meth:`discard` / :meth:`discard_entries` remove queued chunks by predicate.

Consumer side: the genx :class:`~genx.stream.Stream` protocol. ``close()`` by the
consumer discards the queue, ends the stream (Done) and runs the ``on_close``
callbacks (an invocation cancels itself there); ``close_with_error(exc)`` does
the same and makes later ``next()`` raise ``exc``.

Pull observers run inside ``next()`` right after the chunk is dequeued and
before it is returned; they receive the exact object that ``next()`` returns,
so "observed" means "handed to the consumer". A raising observer is logged and
never costs the consumer its chunk.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from genx.chunk import MessageChunk
from genx.errors import Done, StreamClosedError
from genx.stream import StreamBase
from genx.transformers.streamkit.errors import OutputLimitError

log = logging.getLogger(__name__)

PullObserver = Callable[[MessageChunk], None]
CloseCallback = Callable[[BaseException | None], None]


@dataclass(slots=True)
class Entry:
    """A queued chunk, its content size and the producer-side owner tag (e.g. a Response)."""

    chunk: MessageChunk
    size: int
    owner: object | None = None


class OutputQueue(StreamBase):
    __slots__ = ("_closed_by_consumer", "_end", "_max", "_observers", "_on_close", "_q", "_queued", "_waiter")

    def __init__(self, max_bytes: int = 0, observers: list[PullObserver] | None = None) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0 (0 = unlimited), got {max_bytes}")
        self._q: deque[Entry] = deque()
        self._queued = 0
        self._max = max_bytes
        self._end: BaseException | None = None  # set once; raised after the queue drains
        self._closed_by_consumer = False
        self._waiter: asyncio.Future[None] | None = None
        self._observers: list[PullObserver] = list(observers or [])
        self._on_close: list[CloseCallback] = []

    # -- producer --------------------------------------------------------
    def push(self, chunk: MessageChunk, owner: object | None = None) -> None:
        """Queue ``chunk``; never blocks. Raises OutputLimitError on overflow, StreamClosedError once ended."""
        end = self._end
        if end is not None:
            if isinstance(end, OutputLimitError):
                raise end
            raise StreamClosedError("output queue")
        size = chunk.content_size()
        if self._max > 0 and self._queued + size > self._max:
            err = OutputLimitError(self._queued, size, self._max)
            self._discard_all()
            self._finish(err)
            raise err
        self._q.append(Entry(chunk, size, owner))
        self._queued += size
        self._wake()

    def done(self) -> None:
        """End normally once the queued chunks are pulled (first end wins)."""
        self._finish(Done())

    def fail(self, cause: BaseException | None = None) -> None:
        """Drain, then raise ``cause`` on every later ``next()``; ``None`` is :meth:`done`."""
        self._finish(cause if cause is not None else Done())

    def discard(self, predicate: Callable[[MessageChunk], bool]) -> list[MessageChunk]:
        """Remove queued chunks matching ``predicate`` (order kept); return the removed ones."""
        return [e.chunk for e in self.discard_entries(lambda e: predicate(e.chunk))]

    def discard_entries(self, predicate: Callable[[Entry], bool]) -> list[Entry]:
        if not self._q:
            return []
        kept: deque[Entry] = deque()
        removed: list[Entry] = []
        for e in self._q:
            if predicate(e):
                removed.append(e)
                self._queued -= e.size
            else:
                kept.append(e)
        self._q = kept
        return removed

    def add_observer(self, observer: PullObserver) -> None:
        self._observers.append(observer)

    def remove_observer(self, observer: PullObserver) -> None:
        self._observers.remove(observer)

    def on_close(self, callback: CloseCallback) -> None:
        """Run ``callback(error_or_None)`` when the consumer closes the stream (at once if it already did)."""
        if self._closed_by_consumer:
            callback(self._end if not isinstance(self._end, Done) else None)
        else:
            self._on_close.append(callback)

    # -- queries ----------------------------------------------------------
    @property
    def ended(self) -> bool:
        """True once an end (done / fail / error / consumer close) is set; queued chunks may still drain."""
        return self._end is not None

    @property
    def closed_by_consumer(self) -> bool:
        return self._closed_by_consumer

    @property
    def queued_bytes(self) -> int:
        return self._queued

    def __len__(self) -> int:
        return len(self._q)

    def snapshot(self) -> list[MessageChunk]:
        """The queued, not yet pulled chunks (for tests and diagnostics)."""
        return [e.chunk for e in self._q]

    # -- consumer ---------------------------------------------------------
    async def next(self) -> MessageChunk:
        while True:
            if self._q:
                e = self._q.popleft()
                self._queued -= e.size
                chunk = e.chunk
                for observe in tuple(self._observers):
                    try:
                        observe(chunk)
                    except Exception:
                        log.exception("pull observer failed; the chunk is still delivered")
                return chunk
            end = self._end
            if end is not None:
                raise end
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiter = fut
            try:
                await fut
            finally:
                if self._waiter is fut:
                    self._waiter = None

    async def close(self) -> None:
        self._consumer_close(None)

    async def close_with_error(self, exc: BaseException) -> None:
        """Consumer close with an error: discard the queue, raise ``exc`` at once, run on_close callbacks."""
        self._consumer_close(exc)

    def abort(self, exc: BaseException) -> None:
        """Producer-side close_with_error: discard the queue and raise ``exc`` at once (no on_close callbacks)."""
        self._discard_all()
        self._end = exc
        self._wake()

    # -- internals --------------------------------------------------------
    def _consumer_close(self, exc: BaseException | None) -> None:
        if self._closed_by_consumer:
            return
        self._closed_by_consumer = True
        self._discard_all()
        self._end = exc if exc is not None else Done()
        self._wake()
        callbacks, self._on_close = self._on_close, []
        for cb in callbacks:
            try:
                cb(exc)
            except Exception:
                log.exception("output on_close callback failed")

    def _discard_all(self) -> None:
        self._q.clear()
        self._queued = 0

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


__all__ = ["CloseCallback", "Entry", "OutputQueue", "PullObserver"]
