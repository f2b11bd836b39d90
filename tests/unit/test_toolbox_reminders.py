"""genx.toolbox.reminders: the store, spoken moments, the tools and the scheduler (injected clock)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from genx.errors import ToolFailure
from genx.realtime import ManualClock
from genx.toolbox.reminders import Fired, Kind, Reminders, ReminderStore, parse_when

PARIS = ZoneInfo("Europe/Paris")
T0 = datetime(2026, 3, 3, 15, 0, tzinfo=PARIS)  # Tuesday 3 March 2026, 3 PM
MIN = 60_000


def ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(ms(T0))


@pytest.fixture
def reminders(tmp_path: Path, clock: ManualClock) -> Reminders:
    return Reminders(tmp_path, clock=clock, zone=PARIS)


async def wait_until(store: ReminderStore, condition: Callable[[], bool], limit_s: float = 5.0) -> None:
    """Wait for a store change after which ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    unsubscribe = store.subscribe(lambda: loop.call_soon_threadsafe(changed.set))
    try:
        async with asyncio.timeout(limit_s):
            while not condition():
                await changed.wait()
                changed.clear()
    finally:
        unsubscribe()


# -- spoken moments ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7:30 am", datetime(2026, 3, 4, 7, 30)),  # already past today: tomorrow
        ("7 pm", datetime(2026, 3, 3, 19, 0)),
        ("at 7", datetime(2026, 3, 3, 19, 0)),  # no am/pm: whichever comes first
        ("19:00", datetime(2026, 3, 3, 19, 0)),
        ("07:00", datetime(2026, 3, 4, 7, 0)),
        ("seven thirty pm", datetime(2026, 3, 3, 19, 30)),
        ("half past seven", datetime(2026, 3, 3, 19, 30)),
        ("quarter to eight", datetime(2026, 3, 3, 19, 45)),
        ("noon", datetime(2026, 3, 4, 12, 0)),
        ("midnight", datetime(2026, 3, 4, 0, 0)),
        ("tonight", datetime(2026, 3, 3, 20, 0)),
        ("tomorrow morning", datetime(2026, 3, 4, 9, 0)),
        ("tomorrow at 8", datetime(2026, 3, 4, 8, 0)),
        ("tomorrow evening at 7", datetime(2026, 3, 4, 19, 0)),
        ("Friday at 6 pm", datetime(2026, 3, 6, 18, 0)),
        ("december 25 2026 at 9", datetime(2026, 12, 25, 9, 0)),
        ("in 2 hours", datetime(2026, 3, 3, 17, 0)),
        ("in twenty minutes", datetime(2026, 3, 3, 15, 20)),
    ],
)
def test_spoken_moments(text: str, expected: datetime) -> None:
    assert parse_when(text, T0).when == expected.replace(tzinfo=PARIS)


def test_a_moment_on_a_named_day_is_not_moved_to_tomorrow() -> None:
    m = parse_when("yesterday at 5", T0)
    assert m.named_day and m.when < T0


# -- the tools -------------------------------------------------------------------------


def test_the_tools_that_change_the_store_are_side_effect_tools(reminders: Reminders) -> None:
    flags = {t.name: t.side_effects for t in reminders.tools()}
    assert flags == {"set_timer": True, "set_alarm": True, "set_reminder": True, "list_timers": False, "cancel_timer": True}


async def test_set_timer_answers_with_its_length_and_ring_time(reminders: Reminders) -> None:
    t = {x.name: x for x in reminders.tools()}
    r = await t["set_timer"].call({"duration": "ten minutes", "label": "pasta"})
    assert r.content == "Timer 1 set for 10 minutes (pasta); it rings at 3:10 PM."
    (item,) = reminders.store.pending()
    assert (item.kind, item.label, item.due_ms) == (Kind.TIMER, "pasta", ms(T0) + 10 * MIN)


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("set_timer", {"duration": "banana minutes"}, "I can't read 'banana minutes' as a timer length"),
        ("set_timer", {"duration": "-5 minutes"}, "needs a length of time after now"),
        ("set_timer", {"duration": "2 years"}, "more than a year ahead"),
        ("set_alarm", {"time": "yesterday at 5"}, "has already passed"),
        ("set_alarm", {"time": "25:99"}, "not a time of day"),
        ("set_reminder", {"text": "call mum", "when": "banana"}, "I can't read 'banana' as a time"),
        ("set_reminder", {"text": "  ", "when": "in 5 minutes"}, "What should I remind you of"),
        ("cancel_timer", {}, "no timers, alarms or reminders"),
    ],
)
async def test_bad_requests_are_error_results_and_store_nothing(
    reminders: Reminders, tool: str, args: dict[str, str], message: str
) -> None:
    t = {x.name: x for x in reminders.tools()}
    r = await t[tool].call(args)
    assert r.is_error
    assert message in r.content
    assert reminders.store.pending() == []


async def test_alarm_and_reminder_answers_say_when(reminders: Reminders) -> None:
    t = {x.name: x for x in reminders.tools()}
    assert (await t["set_alarm"].call({"time": "7:30 am"})).content == "Alarm 1 set for tomorrow at 7:30 AM."
    r = await t["set_reminder"].call({"text": "to call my sister", "when": "tomorrow morning"})
    assert r.content == "OK, I'll remind you to call my sister tomorrow at 9:00 AM."


async def test_list_and_cancel_by_number_name_kind_or_all(reminders: Reminders, clock: ManualClock) -> None:
    t = {x.name: x for x in reminders.tools()}
    await t["set_timer"].call({"duration": "10 minutes", "label": "pasta"})
    await t["set_timer"].call({"duration": "1 hour", "label": "laundry"})
    await t["set_alarm"].call({"time": "7:30 am"})
    await t["set_reminder"].call({"text": "buy milk", "when": "in 2 hours"})
    listed = (await t["list_timers"].call({})).content
    assert listed.startswith("You have 4: timer 1 (pasta), rings in 10 minutes at 3:10 PM; timer 2 (laundry)")
    assert "reminder 4 to buy milk today at 5:00 PM" in listed
    clock.advance(3 * MIN)  # none of them was set just now
    r = await t["cancel_timer"].call({})
    assert r.is_error and r.content.startswith("Which one? You have: timer 1")
    assert (await t["cancel_timer"].call({"which": "the pasta timer"})).content == "Cancelled timer 1 (pasta) for 10 minutes."
    assert (await t["cancel_timer"].call({"which": "number two"})).content == "Cancelled timer 2 (laundry) for 1 hour."
    assert (await t["cancel_timer"].call({"which": "the alarm"})).content.startswith("Cancelled alarm 3")
    r = await t["cancel_timer"].call({"which": "banana"})
    assert r.is_error and "nothing matching 'banana'" in r.content
    assert (await t["cancel_timer"].call({"which": "all"})).content.startswith("Cancelled reminder 4")
    assert (await t["list_timers"].call({})).content == "You have no timers, alarms or reminders."


# -- the store ---------------------------------------------------------------------------


def test_items_survive_a_restart_and_ids_keep_counting(tmp_path: Path, clock: ManualClock) -> None:
    first = Reminders(tmp_path, clock=clock, zone=PARIS)
    first.set_timer("5 minutes", "tea")
    first.set_reminder("stretch", "in 1 hour")
    again = Reminders(tmp_path, clock=clock, zone=PARIS)
    assert [(i.id, i.kind, i.label) for i in again.store.pending()] == [(1, Kind.TIMER, "tea"), (2, Kind.REMINDER, "stretch")]
    assert again.set_alarm("7 am").id == 3


def test_the_file_is_rewritten_whole_and_no_temporary_file_is_left(tmp_path: Path, clock: ManualClock) -> None:
    r = Reminders(tmp_path, clock=clock, zone=PARIS)
    r.set_timer("5 minutes")
    r.cancel("1")
    assert [p.name for p in tmp_path.iterdir()] == ["reminders.json"]
    data = json.loads((tmp_path / "reminders.json").read_text())
    assert data["items"] == [] and data["next_id"] == 2


def test_an_unreadable_file_is_kept_aside_and_the_store_starts_empty(tmp_path: Path) -> None:
    (tmp_path / "reminders.json").write_text('{"version": 1, "items": [ {"id": "tor')
    store = ReminderStore(tmp_path)
    assert store.pending() == []
    assert "could not be read" in store.problem
    (aside,) = tmp_path.glob("reminders.json.unreadable-*")
    assert aside.read_text().endswith('"tor')  # the user's data is still there


# -- the scheduler ------------------------------------------------------------------------


async def test_a_timer_fires_when_the_clock_reaches_it_and_not_before(reminders: Reminders, clock: ManualClock) -> None:
    fired: asyncio.Queue[Fired] = asyncio.Queue()
    scheduler = reminders.scheduler(fired.put_nowait)
    reminders.set_timer("10 minutes", "pasta")
    clock.advance(10 * MIN - 1)
    assert await scheduler.fire_due() == []
    task = scheduler.start()
    try:
        clock.advance(1)
        event = await asyncio.wait_for(fired.get(), 5)
        assert (event.item.label, event.late, event.late_by_ms) == ("pasta", False, 0)
        await wait_until(reminders.store, lambda: not reminders.store.pending())
        assert fired.empty()
    finally:
        await scheduler.stop()
    assert task.done()


async def test_a_sooner_timer_added_while_waiting_fires_first(reminders: Reminders, clock: ManualClock) -> None:
    fired: asyncio.Queue[Fired] = asyncio.Queue()
    scheduler = reminders.scheduler(fired.put_nowait)
    scheduler.start()
    try:
        reminders.set_timer("1 hour", "later")
        await asyncio.to_thread(reminders.set_timer, "1 minute", "sooner")  # from a worker thread, as the tools do
        clock.advance(MIN)
        assert (await asyncio.wait_for(fired.get(), 5)).item.label == "sooner"
        clock.advance(59 * MIN)
        assert (await asyncio.wait_for(fired.get(), 5)).item.label == "later"
    finally:
        await scheduler.stop()


async def test_items_that_came_due_while_closed_fire_once_on_start_marked_late(tmp_path: Path, clock: ManualClock) -> None:
    before = Reminders(tmp_path, clock=clock, zone=PARIS)
    before.set_timer("5 minutes", "tea")
    before.set_reminder("stretch", "in 10 minutes")
    before.set_alarm("7 pm")
    clock.advance(2 * 60 * MIN)  # the app was closed for two hours
    after = Reminders(tmp_path, clock=clock, zone=PARIS)
    fired: list[Fired] = []
    scheduler = after.scheduler(fired.append)
    scheduler.start()
    try:
        await wait_until(after.store, lambda: len(after.store.pending()) == 1)
    finally:
        await scheduler.stop()
    assert [(f.item.label, f.late) for f in fired] == [("tea", True), ("stretch", True)]
    assert fired[0].late_by_ms == 2 * 60 * MIN - 5 * MIN
    third = Reminders(tmp_path, clock=clock, zone=PARIS)  # restart again: nothing fires twice
    assert await third.scheduler(fired.append).fire_due() == []
    assert [i.kind for i in third.store.pending()] == [Kind.ALARM]


async def test_a_failing_hook_still_counts_the_item_as_fired(reminders: Reminders, clock: ManualClock) -> None:
    calls: list[str] = []

    async def hook(event: Fired) -> None:
        calls.append(event.item.label)
        raise RuntimeError("speaker unplugged")

    reminders.set_timer("1 minute", "a")
    reminders.set_timer("2 minutes", "b")
    clock.advance(2 * MIN)
    fired = await reminders.scheduler(hook).fire_due()
    assert [f.item.label for f in fired] == calls == ["a", "b"]
    assert reminders.store.pending() == []


async def test_the_scheduler_sleeps_instead_of_polling(tmp_path: Path) -> None:
    reads = 0

    def counting_clock() -> float:
        nonlocal reads
        reads += 1
        return float(ms(T0))

    reminders = Reminders(tmp_path, clock=counting_clock, zone=PARIS)
    reminders.set_timer("1 hour")
    scheduler = reminders.scheduler(lambda _e: None)
    scheduler.start()
    try:
        for _ in range(10):
            await asyncio.sleep(0)
        settled = reads
        for _ in range(200):  # a polling loop would read the clock on every turn of the event loop
            await asyncio.sleep(0)
        assert reads == settled
    finally:
        await scheduler.stop()


def test_a_moment_parse_failure_is_a_tool_failure() -> None:
    with pytest.raises(ToolFailure):
        parse_when("", T0)
