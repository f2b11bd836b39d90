"""cancel_timer without a name ("cancel it", "never mind"), with a kind, a time or a repeat: which item goes, or a question."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from genx.realtime import ManualClock
from genx.toolbox.reminders import Reminders
from genx.tools import FuncTool

PARIS = ZoneInfo("Europe/Paris")
T0 = datetime(2026, 3, 3, 15, 0, tzinfo=PARIS)  # Tuesday 3 March 2026, 3 PM
MIN = 60_000


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0.timestamp() * 1000)


@pytest.fixture
def reminders(tmp_path: Path, clock: ManualClock) -> Reminders:
    return Reminders(tmp_path, clock=clock, zone=PARIS)


@pytest.fixture
def tools(reminders: Reminders) -> dict[str, FuncTool]:
    return {t.name: t for t in reminders.tools()}


async def test_cancel_it_with_one_item_cancels_that_one_and_says_which(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_timer"].call({"duration": "10 minutes", "label": "tea"})
    clock.advance(30 * MIN)  # long after: still the only one
    r = await tools["cancel_timer"].call({"which": "it"})
    assert r.content == "Cancelled timer 1 (tea) for 10 minutes."


async def test_cancel_that_right_after_setting_cancels_the_one_just_set(
    tools: dict[str, FuncTool], reminders: Reminders, clock: ManualClock
) -> None:
    await tools["set_alarm"].call({"time": "7 am"})
    clock.advance(10 * MIN)
    await tools["set_timer"].call({"duration": "5 minutes"})
    clock.advance(20_000)
    r = await tools["cancel_timer"].call({})
    assert r.content == "Cancelled timer 2 for 5 minutes."
    assert [i.id for i in reminders.store.pending()] == [1]


async def test_with_several_older_items_and_none_named_it_asks_which_listing_them(
    tools: dict[str, FuncTool], reminders: Reminders, clock: ManualClock
) -> None:
    await tools["set_timer"].call({"duration": "20 minutes", "label": "pasta"})
    await tools["set_alarm"].call({"time": "7 am"})
    clock.advance(3 * MIN)
    r = await tools["cancel_timer"].call({"which": "that"})
    assert r.is_error
    assert r.content == "Which one? You have: timer 1 (pasta), rings in 17 minutes at 3:20 PM; alarm 2 tomorrow at 7:00 AM."
    assert len(reminders.store.pending()) == 2


async def test_the_timer_with_two_timers_asks_among_the_timers_only(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_timer"].call({"duration": "8 minutes", "label": "eggs"})
    await tools["set_timer"].call({"duration": "20 minutes", "label": "pasta"})
    await tools["set_alarm"].call({"time": "7 am"})
    clock.advance(3 * MIN)
    r = await tools["cancel_timer"].call({"which": "the timer"})
    assert r.is_error and r.content.startswith("Which one? You have: timer 1 (eggs)")
    assert "alarm" not in r.content


async def test_the_last_one_is_the_one_set_last_whenever_it_was(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_timer"].call({"duration": "8 minutes", "label": "eggs"})
    clock.advance(MIN)
    await tools["set_timer"].call({"duration": "20 minutes", "label": "pasta"})
    clock.advance(5 * MIN)
    r = await tools["cancel_timer"].call({"which": "the last timer"})
    assert r.content == "Cancelled timer 2 (pasta) for 20 minutes."


async def test_that_reminder_is_the_one_of_that_kind_just_set_and_the_timer_i_just_set_the_last_one(
    tools: dict[str, FuncTool], clock: ManualClock
) -> None:
    await tools["set_reminder"].call({"text": "call mom", "when": "in 2 hours"})
    await tools["set_timer"].call({"duration": "8 minutes", "label": "eggs"})
    clock.advance(5 * MIN)
    await tools["set_reminder"].call({"text": "buy bread", "when": "in 3 hours"})
    await tools["set_timer"].call({"duration": "20 minutes", "label": "pasta"})
    r = await tools["cancel_timer"].call({"which": "that reminder"})
    assert r.content.startswith("Cancelled reminder 3 to buy bread")
    clock.advance(5 * MIN)  # no longer "just now": "that timer" asks, "the timer I just set" is still the last one
    assert (await tools["cancel_timer"].call({"which": "that timer"})).content.startswith("Which one? You have: timer 2 (eggs)")
    r = await tools["cancel_timer"].call({"which": "the timer I just set"})
    assert r.content == "Cancelled timer 4 (pasta) for 20 minutes."


async def test_an_alarm_is_named_by_its_time_or_day(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_alarm"].call({"time": "7 am"})
    await tools["set_alarm"].call({"time": "6:30 pm"})
    await tools["set_alarm"].call({"time": "Friday at 9 am"})
    clock.advance(3 * MIN)
    assert (await tools["cancel_timer"].call({"which": "my 7 am alarm"})).content == "Cancelled alarm 1 tomorrow at 7:00 AM."
    assert (await tools["cancel_timer"].call({"which": "the alarm for Friday"})).content.startswith("Cancelled alarm 3 on Friday")
    r = await tools["cancel_timer"].call({"which": "the 5 am alarm"})
    assert r.is_error and r.content.startswith("I found nothing matching 'the 5 am alarm' to cancel. You have: alarm 2")


async def test_a_possessive_day_or_name_picks_the_item_due_then_or_so_named(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_alarm"].call({"time": "Friday at 9 am"})
    await tools["set_alarm"].call({"time": "tomorrow at 7 am"})
    await tools["set_reminder"].call({"text": "call mum", "when": "tomorrow at 6 pm"})
    clock.advance(3 * MIN)
    assert (await tools["cancel_timer"].call({"which": "tomorrow's alarm"})).content == "Cancelled alarm 2 tomorrow at 7:00 AM."
    assert (await tools["cancel_timer"].call({"which": "Friday's alarm"})).content.startswith("Cancelled alarm 1 on Friday")
    r = await tools["cancel_timer"].call({"which": "mum's reminder"})
    assert r.content == "Cancelled reminder 3 to call mum tomorrow at 6:00 PM."


async def test_a_repeating_alarm_is_named_by_its_repeat(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_alarm"].call({"time": "7 am"})
    await tools["set_alarm"].call({"time": "6:30 am", "repeat": "weekdays"})
    clock.advance(3 * MIN)
    r = await tools["cancel_timer"].call({"which": "the weekday alarm"})
    assert r.content == "Cancelled alarm 2 every weekday at 6:30 AM."


async def test_the_first_or_second_timer_is_counted_in_the_order_they_were_set(tools: dict[str, FuncTool], clock: ManualClock) -> None:
    await tools["set_timer"].call({"duration": "10 minutes", "label": "eggs"})
    await tools["set_alarm"].call({"time": "7 am"})
    await tools["set_timer"].call({"duration": "20 minutes", "label": "pasta"})
    clock.advance(5 * MIN)
    assert (await tools["cancel_timer"].call({"which": "the second timer"})).content == "Cancelled timer 3 (pasta) for 20 minutes."
    r = await tools["cancel_timer"].call({"which": "the third timer"})
    assert r.is_error and r.content.startswith("There is no 3rd timer to cancel.")
    assert (await tools["cancel_timer"].call({"which": "the first one"})).content == "Cancelled timer 1 (eggs) for 10 minutes."


async def test_nothing_to_cancel_says_so(tools: dict[str, FuncTool]) -> None:
    r = await tools["cancel_timer"].call({"which": "it"})
    assert r.is_error and r.content == "There are no timers, alarms or reminders to cancel."
