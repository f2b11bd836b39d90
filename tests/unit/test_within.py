"""genx.deadline.within: the bounded await that never loses a cancellation."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from genx.deadline import within

ROOT = Path(__file__).resolve().parents[2]


async def _waiter_on_a_busy_event(ev: asyncio.Event, rounds: list[int]) -> None:
    # the player's shape: wait for room, bounded, again and again while a callback keeps setting the event
    while True:
        await within(ev.wait(), 5.0)
        ev.clear()
        rounds[0] += 1


async def test_a_cancel_that_lands_as_the_event_is_set_still_cancels_the_waiter() -> None:
    for _ in range(50):
        ev = asyncio.Event()
        rounds = [0]
        task = asyncio.create_task(_waiter_on_a_busy_event(ev, rounds))
        await asyncio.sleep(0)  # the waiter is parked on ev.wait()
        ev.set()
        task.cancel()  # same loop iteration as the set: asyncio.wait_for on 3.11 returns normally here
        for _ in range(4):
            await asyncio.sleep(0)
            ev.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert rounds[0] == 0


async def test_a_wait_longer_than_its_bound_raises_timeout_and_cancels_what_it_waited_for() -> None:
    fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    with pytest.raises(TimeoutError):
        await within(fut, 0.01)
    assert fut.cancelled()


async def test_a_result_in_time_is_returned_and_none_means_no_bound() -> None:
    async def three() -> int:
        return 3

    assert await within(three(), 1.0) == 3
    assert await within(three(), None) == 3


def test_no_code_awaits_with_asyncio_wait_for_which_loses_cancellations_on_python_3_11() -> None:
    offenders = [
        f"{p.relative_to(ROOT)}:{i}"
        for d in ("app", "genx")
        for p in sorted((ROOT / d).rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\basyncio\.wait_for\(|\bfrom asyncio import .*\bwait_for\b", line)
    ]
    assert not offenders, "use genx.deadline.within instead of asyncio.wait_for: " + ", ".join(offenders)
