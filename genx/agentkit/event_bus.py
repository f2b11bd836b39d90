"""The voice loop's event bus: fan-out of :class:`~genx.agentkit.events.Event` s to sync callbacks and async iterators.

Sync subscribers run inside :meth:`EventBus.publish` on the event-loop thread, in
subscription order; an exception in one is logged and never reaches the loop or
the other subscribers. Async consumers iterate :meth:`EventBus.events` (one
private queue each, bounded: a consumer that stops reading loses its oldest
events). Does not own the events themselves (:mod:`.events`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from genx.agentkit.events import Event

log = logging.getLogger("genx.agentkit")

Subscriber: TypeAlias = Callable[["Event"], None]


class _Closed:
    pass


_CLOSED = _Closed()


class EventBus:
    """Fan-out of loop events to sync callbacks and async iterators (event-loop thread only)."""

    __slots__ = ("_closed", "_queues", "_subs", "max_queued")

    def __init__(self, max_queued: int = 10_000) -> None:
        self._subs: list[Subscriber] = []
        self._queues: list[_Queue] = []
        self._closed = False
        # an async consumer that stops reading loses its oldest events beyond this many
        self.max_queued = max_queued

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` for every later event; returns the unsubscribe function."""
        self._subs.append(callback)

        def unsubscribe() -> None:
            if callback in self._subs:
                self._subs.remove(callback)

        return unsubscribe

    def publish(self, event: Event) -> None:
        if self._closed:
            return
        for cb in tuple(self._subs):
            try:
                cb(event)
            except Exception:
                log.exception("event subscriber %r failed on %s", cb, type(event).__name__)
        for q in self._queues:
            q.put(event, self.max_queued)

    def events(self) -> AsyncIterator[Event]:
        """An async iterator of every event published from now on; ends when the bus closes."""
        q = _Queue()
        self._queues.append(q)
        if self._closed:
            q.put(_CLOSED, 0)
        return self._iterate(q)

    async def _iterate(self, q: _Queue) -> AsyncIterator[Event]:
        try:
            while True:
                item = await q.get()
                if isinstance(item, _Closed):
                    return
                yield item
        finally:
            if q in self._queues:
                self._queues.remove(q)

    def close(self) -> None:
        """End every async iteration (after the events already queued); later publishes are dropped."""
        if self._closed:
            return
        self._closed = True
        for q in self._queues:
            q.put(_CLOSED, 0)

    @property
    def closed(self) -> bool:
        return self._closed


class _Queue:
    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Event | _Closed] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Event | _Closed, limit: int) -> None:
        self._items.append(item)
        if limit and len(self._items) > limit:
            self._items.popleft()
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    async def get(self) -> Event | _Closed:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


__all__ = ["EventBus", "Subscriber"]
