"""One deadline for a multi-step operation (shutdown): each step waits only for the time that is left.

Owns :class:`Deadline`: a point in time on an injectable clock, the time left,
an earlier deadline that keeps a reserve for the steps after it, and a bounded
wait; and :func:`within`, the project's one bounded await (use it, never
``asyncio.wait_for``). Does not own what the steps do, nor retries.

A shutdown is given one budget (the window's grace), and every step (cutting the
answer, joining tasks, writing the history, closing devices) draws from it, so
the whole never exceeds it and the last steps still get their share.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

Clock = Callable[[], float]

# how often a wait reads the clock again
SLICE_S = 0.05


async def within(aw: Awaitable[T], seconds: float | None) -> T:
    """Await ``aw`` for at most ``seconds`` (None: unbounded); TimeoutError after that, ``aw`` cancelled.

    The invariant this exists for: a cancellation of the caller is never lost. On Python 3.11
    ``asyncio.wait_for`` returns the result instead of raising when the awaited thing completes in
    the same loop iteration as the cancel (a waiter on an event the audio callback keeps setting
    ran on for seconds after a barge-in cancelled it). ``asyncio.timeout`` does not lose it.
    """
    if seconds is None:
        return await aw
    async with asyncio.timeout(max(0.0, seconds)):
        return await aw


class Deadline:
    """``at`` seconds on ``clock`` (monotonic seconds by default)."""

    __slots__ = ("at", "clock")

    def __init__(self, at: float, clock: Clock = time.monotonic) -> None:
        self.at = at
        self.clock = clock

    @classmethod
    def after(cls, seconds: float, clock: Clock = time.monotonic) -> Deadline:
        return cls(clock() + max(0.0, seconds), clock)

    @classmethod
    def of(cls, value: Deadline | float | None, default_s: float, clock: Clock = time.monotonic) -> Deadline:
        """``value`` as a deadline: itself, ``value`` seconds from now, or ``default_s`` seconds from now."""
        if isinstance(value, Deadline):
            return value
        return cls.after(default_s if value is None else float(value), clock)

    def remaining(self) -> float:
        return max(0.0, self.at - self.clock())

    @property
    def expired(self) -> bool:
        return self.clock() >= self.at

    def keeping(self, reserve_s: float, *, at_most: float = 0.25) -> Deadline:
        """An earlier deadline that leaves ``reserve_s`` (at most ``at_most`` of the time left) for later steps."""
        keep = min(max(0.0, reserve_s), at_most * self.remaining())
        return Deadline(self.at - keep, self.clock)

    async def wait_tasks(self, tasks: Iterable[asyncio.Future[Any]], *, floor_s: float = 0.0) -> set[asyncio.Future[Any]]:
        """Wait until every task is done or the deadline passed (but at least ``floor_s`` real seconds); returns
        those still pending (not cancelled). The clock is read again every ``SLICE_S``, so an injected clock that
        jumps is seen at once."""
        pending = {t for t in tasks if not t.done()}
        floor_until = time.monotonic() + floor_s
        while pending:
            left = max(self.at - self.clock(), floor_until - time.monotonic())
            if left <= 0:
                break
            _, pending = await asyncio.wait(pending, timeout=min(left, SLICE_S))
        return pending

    async def wait(self, aw: Awaitable[T], *, floor_s: float = 0.0) -> tuple[bool, T | None]:
        """Await ``aw`` for the time left (at least ``floor_s``): ``(True, result)``, or ``(False, None)`` when the
        time ran out; ``aw`` is then cancelled, as it is when the caller is (shield what must go on)."""
        fut = asyncio.ensure_future(aw)
        try:
            late = await self.wait_tasks([fut], floor_s=floor_s)
        except asyncio.CancelledError:
            fut.cancel()
            raise
        if late:
            fut.cancel()
            await asyncio.wait([fut], timeout=SLICE_S)
            return False, None
        return True, fut.result()

    def __repr__(self) -> str:
        return f"Deadline(remaining={self.remaining():.3f}s)"


__all__ = ["Clock", "Deadline", "within"]
