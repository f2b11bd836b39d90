"""Repeating alarms and reminders: the next occurrence, the spoken repeat, re-arming after firing, restart, cancel."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from genx.errors import ToolFailure
from genx.realtime import ManualClock
from genx.toolbox.reminders import Fired, Reminders
from genx.toolbox.reminders.repeat import Repeat, next_after, parse_repeat, split_repeat
from tests.unit.test_toolbox_reminders import wait_until

PARIS = ZoneInfo("Europe/Paris")
FRIDAY = datetime(2026, 3, 6, 15, 0, tzinfo=PARIS)  # Friday 6 March 2026, 3 PM
MIN = 60_000
DAY = 24 * 60 * MIN


def ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def at(day: int, hour: int, minute: int = 0, month: int = 3) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=PARIS)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(ms(FRIDAY))


@pytest.fixture
def reminders(tmp_path: Path, clock: ManualClock) -> Reminders:
    return Reminders(tmp_path, clock=clock, zone=PARIS)


@pytest.mark.parametrize(
    ("due", "repeat", "expected"),
    [
        (at(6, 6, 30), Repeat.WEEKDAYS, at(9, 6, 30)),  # Friday → Monday
        (at(9, 6, 30), Repeat.WEEKDAYS, at(10, 6, 30)),  # Monday → Tuesday
        (at(8, 9), Repeat.WEEKENDS, at(14, 9)),  # Sunday → next Saturday
        (at(7, 9), Repeat.WEEKENDS, at(8, 9)),  # Saturday → Sunday
        (at(9, 8), Repeat.WEEKLY, at(16, 8)),
        (at(6, 21), Repeat.DAILY, at(7, 21)),
        (at(28, 6, 30), Repeat.DAILY, at(29, 6, 30)),  # summer time starts on 29 March: still 6:30 on the wall
    ],
)
def test_the_next_occurrence_keeps_the_wall_time_on_the_next_matching_day(due: datetime, repeat: Repeat, expected: datetime) -> None:
    assert next_after(due, repeat, due) == expected


def test_after_days_away_the_next_occurrence_is_the_first_one_after_now() -> None:
    assert next_after(at(2, 7), Repeat.DAILY, at(6, 15)) == at(7, 7)
    assert next_after(at(2, 7), Repeat.WEEKDAYS, at(6, 15)) == at(9, 7)
    assert next_after(at(2, 7), Repeat.WEEKLY, at(6, 15)) == at(9, 7)  # Mondays


@pytest.mark.parametrize(
    ("text", "rest", "repeat"),
    [
        ("every weekday at 6:30", "at 6:30", Repeat.WEEKDAYS),
        ("6:30 on weekdays", "6:30", Repeat.WEEKDAYS),
        ("every morning at 7", "in the morning at 7", Repeat.DAILY),
        ("every day at noon", "at noon", Repeat.DAILY),
        ("on weekends at 9", "at 9", Repeat.WEEKENDS),
        ("every Monday at 8", "on monday at 8", Repeat.WEEKLY),
        ("tuesdays at 5 pm", "on tuesday at 5 pm", Repeat.WEEKLY),
        ("tomorrow at 8", "tomorrow at 8", None),
    ],
)
def test_a_repeat_said_in_the_moment_is_split_from_it(text: str, rest: str, repeat: Repeat | None) -> None:
    assert split_repeat(text) == (rest, repeat)


def test_an_anchored_split_leaves_words_inside_a_reminders_text() -> None:
    assert split_repeat("take my daily vitamins", anchored=True) == ("take my daily vitamins", None)
    assert split_repeat("take my daily vitamins at 9") == ("take my daily vitamins at 9", None)
    assert split_repeat("water the plants every day", anchored=True) == ("water the plants", Repeat.DAILY)


def test_repeat_values_read_and_bad_ones_say_what_is_possible() -> None:
    assert parse_repeat("Weekdays") is Repeat.WEEKDAYS
    assert parse_repeat("every day") is Repeat.DAILY
    assert parse_repeat("") is None
    with pytest.raises(ToolFailure, match="daily, on weekdays, on weekends or weekly"):
        parse_repeat("fortnightly")


async def test_a_repeating_alarm_says_it_repeats_and_the_list_shows_it(reminders: Reminders) -> None:
    t = {x.name: x for x in reminders.tools()}
    r = await t["set_alarm"].call({"time": "6:30 am", "repeat": "weekdays"})
    assert r.content == "Alarm 1 set for every weekday at 6:30 AM; the first rings on Monday at 6:30 AM."
    r = await t["set_reminder"].call({"text": "take my pills", "when": "every day at 9 pm"})
    assert r.content == "OK, I'll remind you to take my pills every day at 9:00 PM, starting today at 9:00 PM."
    r = await t["set_alarm"].call({"time": "every Sunday at 10 am", "label": "church"})
    assert r.content == "Alarm 3 (church) set for every Sunday at 10:00 AM; the first rings on Sunday at 10:00 AM."
    listed = (await t["list_timers"].call({})).content
    assert "reminder 2 to take my pills every day at 9:00 PM, next today at 9:00 PM" in listed
    assert "alarm 1 every weekday at 6:30 AM, next on Monday at 6:30 AM" in listed


async def test_a_bad_repeat_is_an_error_result_and_stores_nothing(reminders: Reminders) -> None:
    t = {x.name: x for x in reminders.tools()}
    r = await t["set_alarm"].call({"time": "7 am", "repeat": "every other blue moon"})
    assert r.is_error and "I can't repeat 'every other blue moon'" in r.content
    assert reminders.store.pending() == []


async def test_a_repeating_alarm_is_re_armed_after_it_fires_and_survives_a_restart(
    tmp_path: Path, reminders: Reminders, clock: ManualClock
) -> None:
    reminders.set_alarm("6:30 am", repeat="weekdays")
    fired: asyncio.Queue[Fired] = asyncio.Queue()
    scheduler = reminders.scheduler(fired.put_nowait)
    scheduler.start()
    try:
        clock.advance(ms(at(9, 6, 30)) - ms(FRIDAY))  # Monday 6:30
        assert (await asyncio.wait_for(fired.get(), 5)).item.due_ms == ms(at(9, 6, 30))
        await wait_until(reminders.store, lambda: reminders.store.pending()[0].due_ms != ms(at(9, 6, 30)))  # re-armed
    finally:
        await scheduler.stop()
    again = Reminders(tmp_path, clock=clock, zone=PARIS)  # a restart: the series is still there, on Tuesday
    [item] = again.store.pending()
    assert (item.due_ms, item.repeat) == (ms(at(10, 6, 30)), "weekdays")


async def test_a_repeating_item_missed_while_closed_fires_once_late_then_waits_for_its_next_time(
    tmp_path: Path, reminders: Reminders, clock: ManualClock
) -> None:
    reminders.set_alarm("7 am", repeat="daily")  # first: Saturday 7:00
    clock.advance(ms(at(10, 12)) - ms(FRIDAY))  # closed until Tuesday noon: three were missed
    after = Reminders(tmp_path, clock=clock, zone=PARIS)
    fired: list[Fired] = []
    assert [f.late for f in await after.scheduler(fired.append).fire_due()] == [True]
    assert [i.due_ms for i in after.store.pending()] == [ms(at(11, 7))]  # Wednesday 7:00, not Sunday's
    assert await after.scheduler(fired.append).fire_due() == []


async def test_cancelling_a_repeating_alarm_ends_the_series(reminders: Reminders, clock: ManualClock) -> None:
    t = {x.name: x for x in reminders.tools()}
    await t["set_alarm"].call({"time": "6:30 am", "repeat": "weekdays"})
    r = await t["cancel_timer"].call({"which": "the alarm"})
    assert r.content == "Cancelled alarm 1 every weekday at 6:30 AM."
    clock.advance(7 * DAY)
    assert reminders.store.pending() == []
    assert await reminders.scheduler(lambda f: None).fire_due() == []


def test_a_file_written_before_repeats_existed_loads_as_one_off_items(tmp_path: Path, clock: ManualClock) -> None:
    (tmp_path / "reminders.json").write_text(
        f'{{"version": 1, "next_id": 2, "items": [{{"id": 1, "kind": "alarm", "due_ms": {ms(at(7, 7))}, "created_ms": 0}}]}}',
        encoding="utf-8",
    )
    [item] = Reminders(tmp_path, clock=clock, zone=PARIS).store.pending()
    assert item.repeat == ""
