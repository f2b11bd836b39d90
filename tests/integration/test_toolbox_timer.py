"""A real short timer on the wall clock: set through the tool, fired by the scheduler on time, across a restart."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from genx.toolbox.reminders import Fired, Reminders

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


async def test_a_one_second_timer_rings_after_one_second_on_the_wall_clock(tmp_path: Path) -> None:
    reminders = Reminders(tmp_path)
    fired: asyncio.Queue[Fired] = asyncio.Queue()
    scheduler = reminders.scheduler(fired.put_nowait)
    scheduler.start()
    try:
        tool = next(t for t in reminders.tools() if t.name == "set_timer")
        started = time.time()
        r = await tool.call({"duration": "one second", "label": "egg"})
        assert not r.is_error, r.content
        event = await asyncio.wait_for(fired.get(), 10)
        elapsed = time.time() - started
    finally:
        await scheduler.stop()
    assert event.item.label == "egg" and not event.late
    assert 0.9 <= elapsed < 1.6, elapsed
    assert event.late_by_ms < 300


async def test_a_timer_that_rang_while_the_app_was_closed_rings_late_on_the_next_start(tmp_path: Path) -> None:
    first = Reminders(tmp_path)
    first.set_timer("1 second", "tea")
    # the app is closed: no scheduler runs until after the timer was due
    reopened = Reminders(tmp_path)
    fired: list[Fired] = []
    due_ms = reopened.store.pending()[0].due_ms
    scheduler = reopened.scheduler(fired.append, late_after_ms=0)
    await asyncio.sleep(max(0.0, due_ms / 1000 - time.time()) + 0.05)  # the app stays closed past the timer's time
    assert time.time() * 1000 > due_ms
    assert [f.item.label for f in await scheduler.fire_due()] == ["tea"]
    assert fired[0].late
    assert Reminders(tmp_path).store.pending() == []
