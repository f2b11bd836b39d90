"""RealtimeStream: a push-writable stream that releases chunks in timestamp order.

Behaviour (``genx-behaviours.md``, "RealtimeStream"):

* Chunks are ordered by ``(timestamp, push sequence)``: equal timestamps keep
  push order. A chunk is released when ``ts + delay <= now``, or at once after
  the stream is closed.
* A chunk without timestamp (``ctrl`` missing or ``timestamp <= 0``) gets
  ``now`` in ms, raised to at least ``last_emitted + 1``; an EOS is also raised
  above the highest timestamp seen. The timestamp is written into the chunk.
* A chunk older than ``last_emitted`` is dropped, except on the active BOS's
  StreamID, where it is clamped to ``last_emitted + 1``.
* A BOS with StreamID X and label L removes queued *audio* (``audio/*``,
  ``application/ogg`` or a control-only EOS) of other non-empty StreamIDs whose
  label matches L (an empty label on either side matches any), and rejects
  their later audio. The BOS's route becomes the active one.
* Each push evicts queued items older than ``max_seen - window``.
* ``close``/``done`` drains then ends with Done; ``close_with_error``/``abort``
  drains then raises the error; ``push`` after either raises
  :class:`~genx.errors.StreamClosedError`.

Time: the clock is ``Callable[[], float]`` returning milliseconds (default: Unix
time in ms, the unit chunk timestamps use). A waiting ``next()`` is woken by
pushes, by close, and by a ``loop.call_later`` timer at the head item's due
time. A clock that also has ``subscribe(callback) -> unsubscribe`` (see
:class:`ManualClock`) wakes waiting readers itself when it moves, which makes
tests deterministic without sleeping; :meth:`RealtimeStream.wake` does the same
by hand for any other fake clock.

Loop-affine: push and next from the event-loop thread only.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from genx.chunk import MessageChunk
from genx.errors import Done, StreamClosedError
from genx.mime import mime_essence
from genx.stream import StreamBase

__all__ = ["DEFAULT_DELAY_MS", "DEFAULT_WINDOW_MS", "Clock", "ManualClock", "RealtimeStream", "SubscribableClock", "is_audio_chunk"]

DEFAULT_DELAY_MS = 80
DEFAULT_WINDOW_MS = 2 * 60 * 1000

Clock = Callable[[], float]  # now, in milliseconds


@runtime_checkable
class SubscribableClock(Protocol):
    """A clock that tells listeners when it moves (fake clocks in tests)."""

    def __call__(self) -> float: ...

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]: ...


def wall_clock_ms() -> float:
    return time.time() * 1000.0


class ManualClock:
    """A fake clock in ms that only moves when told to; wakes subscribed streams when it does."""

    __slots__ = ("_listeners", "_now")

    def __init__(self, start_ms: float = 0.0) -> None:
        self._now = float(start_ms)
        self._listeners: list[Callable[[], None]] = []

    def __call__(self) -> float:
        return self._now

    def advance(self, ms: float) -> None:
        self.set(self._now + ms)

    def set(self, now_ms: float) -> None:
        self._now = float(now_ms)
        for cb in list(self._listeners):
            cb()

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe


def is_audio_chunk(chunk: MessageChunk) -> bool:
    """Audio for supersession: ``audio/*`` or ``application/ogg`` parts, or a control-only EOS (it ends the audio too)."""
    if chunk.part is None:
        return chunk.is_end_of_stream()
    essence = mime_essence(chunk.mime())
    return essence.startswith("audio/") or essence == "application/ogg"


def _labels_match(a: str, b: str) -> bool:
    return not a or not b or a == b


def _superseded(chunk: MessageChunk, active_id: str, active_label: str) -> bool:
    """Audio of another non-empty StreamID whose label matches the active route's."""
    sid = chunk.stream_id
    return bool(active_id) and bool(sid) and sid != active_id and _labels_match(active_label, chunk.label) and is_audio_chunk(chunk)


@dataclass(slots=True, order=True)
class _Item:
    timestamp: int
    seq: int
    chunk: MessageChunk = field(compare=False)


class RealtimeStream(StreamBase):
    """Timestamp-ordered, delay-buffered stream; see the module docstring for the rules."""

    __slots__ = (
        "_active_id",
        "_active_label",
        "_clock",
        "_closed",
        "_delay",
        "_end",
        "_heap",
        "_last_emitted",
        "_max_seen",
        "_seq",
        "_timer",
        "_unsubscribe",
        "_waiter",
        "_window",
    )

    def __init__(self, *, delay_ms: float = DEFAULT_DELAY_MS, window_ms: float = DEFAULT_WINDOW_MS, clock: Clock | None = None) -> None:
        self._delay = max(0, int(delay_ms))
        self._window = int(window_ms) if window_ms > 0 else DEFAULT_WINDOW_MS
        self._clock: Clock = clock if clock is not None else wall_clock_ms
        self._unsubscribe: Callable[[], None] | None = None
        if isinstance(clock, SubscribableClock):
            self._unsubscribe = clock.subscribe(self.wake)
        self._heap: list[_Item] = []
        self._seq = 0
        self._last_emitted = -1
        self._max_seen = -1
        self._active_id = ""
        self._active_label = ""
        self._closed = False
        self._end: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None

    # -- producer ----------------------------------------------------------
    def push(self, chunk: MessageChunk) -> bool:
        """Queue ``chunk``; return False when it was dropped (too late, or superseded audio)."""
        if self._closed:
            raise StreamClosedError("realtime stream")
        sid = chunk.stream_id
        if chunk.is_begin_of_stream():
            if sid:
                self._drop_superseded(sid, chunk.label)
            self._active_id = sid
            self._active_label = chunk.label
        elif _superseded(chunk, self._active_id, self._active_label):
            return False
        ts = self._timestamp_of(chunk)
        if self._last_emitted >= 0 and ts < self._last_emitted:
            if not (self._active_id and sid == self._active_id):
                return False
            ts = self._last_emitted + 1
            chunk.ensure_ctrl().timestamp = ts
        self._seq += 1
        heapq.heappush(self._heap, _Item(ts, self._seq, chunk))
        if ts > self._max_seen:
            self._max_seen = ts
        self._evict()
        self.wake()
        return True

    def done(self) -> None:
        """End after the queued chunks drain (the producer-side ``close``)."""
        self._finish(Done())

    def abort(self, exc: BaseException) -> None:
        """Raise ``exc`` after the queued chunks drain."""
        self._finish(exc)

    @property
    def closed(self) -> bool:
        return self._closed

    def queued(self) -> int:
        return len(self._heap)

    @property
    def last_emitted(self) -> int:
        """Timestamp of the last released chunk, -1 before the first."""
        return self._last_emitted

    def wake(self) -> None:
        """Make a waiting ``next()`` look at the clock and the queue again."""
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    # -- consumer ----------------------------------------------------------
    async def next(self) -> MessageChunk:
        heap = self._heap
        while True:
            while heap and self._last_emitted >= 0 and heap[0].timestamp < self._last_emitted:
                heapq.heappop(heap)
            wait_ms: float | None = None
            if heap:
                head = heap[0]
                due = head.timestamp + self._delay
                now = self._clock()
                if self._closed or due <= now:
                    heapq.heappop(heap)
                    self._last_emitted = head.timestamp
                    return head.chunk
                wait_ms = due - now
            elif self._closed:
                assert self._end is not None
                raise self._end
            await self._wait(wait_ms)

    async def close(self) -> None:
        self._finish(Done())

    async def close_with_error(self, exc: BaseException) -> None:
        self._finish(exc)

    # -- internals ---------------------------------------------------------
    async def _wait(self, wait_ms: float | None) -> None:
        loop = asyncio.get_running_loop()
        fut = self._waiter
        if fut is None or fut.done():
            fut = self._waiter = loop.create_future()
        timer = loop.call_later(wait_ms / 1000.0, self.wake) if wait_ms is not None else None
        try:
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            if self._waiter is fut:
                self._waiter = None

    def _finish(self, end: BaseException) -> None:
        if self._closed:
            return
        self._closed = True
        self._end = end
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.wake()

    def _timestamp_of(self, chunk: MessageChunk) -> int:
        ctrl = chunk.ctrl
        if ctrl is not None and ctrl.timestamp > 0:
            return ctrl.timestamp
        ts = int(self._clock())
        if self._last_emitted >= 0 and ts <= self._last_emitted:
            ts = self._last_emitted + 1
        if chunk.is_end_of_stream() and self._max_seen >= 0 and ts <= self._max_seen:
            ts = self._max_seen + 1
        chunk.ensure_ctrl().timestamp = ts
        return ts

    def _evict(self) -> None:
        threshold = self._max_seen - self._window
        heap = self._heap
        while heap and heap[0].timestamp < threshold:
            heapq.heappop(heap)

    def _drop_superseded(self, stream_id: str, label: str) -> None:
        heap = self._heap
        if not heap:
            return
        kept = [it for it in heap if not _superseded(it.chunk, stream_id, label)]
        if len(kept) == len(heap):
            return
        heap[:] = kept  # in place: a waiting next() holds a reference to this list
        heapq.heapify(heap)
        self._max_seen = max([self._last_emitted, *(it.timestamp for it in kept)])
