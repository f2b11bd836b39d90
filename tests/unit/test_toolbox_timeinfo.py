"""genx.toolbox.timeinfo and dates: current_time and date_info against an injected clock and zone."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from genx.errors import ToolFailure
from genx.realtime import ManualClock
from genx.toolbox.dates import easter, holiday_name, parse_date
from genx.toolbox.holidays import nth_weekday
from genx.toolbox.timeinfo import date_tool, time_tool
from genx.tools import FuncTool

PARIS = ZoneInfo("Europe/Paris")
UTC = ZoneInfo("UTC")


def clock_at(y: int, mo: int, d: int, h: int, mi: int, tz: ZoneInfo = UTC) -> ManualClock:
    return ManualClock(datetime(y, mo, d, h, mi, tzinfo=tz).timestamp() * 1000)


async def test_the_time_in_tokyo_is_utc_plus_nine() -> None:
    tool = time_tool(clock_at(2026, 3, 3, 8, 35), PARIS)
    r = await tool.call({"place": "Tokyo"})
    assert not r.is_error
    assert r.content == "In Tokyo it's 5:35 PM on Tuesday, 3 March 2026 (Asia/Tokyo, UTC+09:00)."


async def test_an_empty_place_is_the_home_zone_with_summer_time() -> None:
    tool = time_tool(clock_at(2026, 7, 1, 12, 0), PARIS, hours24=True)
    r = await tool.call({})
    assert r.content == "It's 14:00 on Wednesday, 1 July 2026 (Europe/Paris, UTC+02:00)."


async def test_new_york_is_still_on_the_previous_day_when_utc_has_moved_on() -> None:
    tool = time_tool(clock_at(2026, 1, 1, 3, 0), PARIS)
    r = await tool.call({"place": "New York"})
    assert "10:00 PM on Wednesday, 31 December 2025 (America/New_York, UTC-05:00)" in r.content


async def test_an_unknown_place_is_an_error_result_naming_it() -> None:
    r = await time_tool(clock_at(2026, 1, 1, 0, 0), PARIS).call({"place": "Narnia"})
    assert r.is_error
    assert r.content.startswith("I don't know the time zone of Narnia.")


def test_the_time_tool_schema_has_one_optional_place() -> None:
    schema = time_tool().schema
    assert schema["properties"]["place"]["type"] == "string"
    assert schema["required"] == []


@pytest.fixture
def dates() -> FuncTool:
    return date_tool(clock_at(2026, 3, 3, 10, 0, PARIS), PARIS)  # a Tuesday


async def test_what_day_is_christmas_2026(dates: FuncTool) -> None:
    r = await dates.call({"date": "25 December 2026"})
    assert r.content.startswith("Friday, 25 December 2026 is in 297 days")


async def test_how_many_days_until_new_year(dates: FuncTool) -> None:
    r = await dates.call({"date": "New Year"})
    assert r.content.startswith("New Year's Day is on Friday, 1 January 2027, in 304 days")


async def test_the_date_in_three_weeks(dates: FuncTool) -> None:
    for args in ({"offset": "3 weeks"}, {"date": "in three weeks"}):
        r = await dates.call(args)
        assert r.content.startswith("Tuesday, 24 March 2026 is in 21 days (3 weeks)"), args


async def test_days_between_two_dates(dates: FuncTool) -> None:
    r = await dates.call({"date": "christmas", "from_date": "1 December 2026"})
    assert r.content == "Christmas Day is on Friday, 25 December 2026, 24 days (3 weeks and 3 days) after Tuesday, 1 December 2026."


async def test_a_past_date_says_was_and_ago(dates: FuncTool) -> None:
    r = await dates.call({"date": "1 January 2026"})
    assert r.content.startswith("Thursday, 1 January 2026 was 61 days ago")


async def test_an_unreadable_or_impossible_date_is_an_error_result(dates: FuncTool) -> None:
    r = await dates.call({"date": "banana"})
    assert r.is_error and "I can't read 'banana' as a date" in r.content
    r = await dates.call({"date": "30 February 2026"})
    assert r.is_error and "not a date on the calendar" in r.content
    r = await dates.call({"offset": "9999 years"})
    assert r.is_error and "outside the calendar" in r.content


TODAY = date(2026, 3, 3)  # Tuesday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("today", date(2026, 3, 3)),
        ("tomorrow", date(2026, 3, 4)),
        ("the day after tomorrow", date(2026, 3, 5)),
        ("2026-12-25", date(2026, 12, 25)),
        ("25/12/2026", date(2026, 12, 25)),
        ("12/25/2026", date(2026, 12, 25)),  # month first only when the day cannot be a month
        ("December 25th, 2026", date(2026, 12, 25)),
        ("the 25th of December", date(2026, 12, 25)),
        ("twenty-fifth of december twenty twenty six", date(2026, 12, 25)),
        ("dec 25", date(2026, 12, 25)),
        ("1 March", date(2027, 3, 1)),  # already past this year: next year's
        ("Friday", date(2026, 3, 6)),
        ("tuesday", date(2026, 3, 3)),
        ("next Tuesday", date(2026, 3, 10)),
        ("last Tuesday", date(2026, 2, 24)),
        ("the 5th", date(2026, 3, 5)),
        ("next month", date(2026, 4, 3)),
        ("New Year's Eve", date(2026, 12, 31)),
        ("Valentine's Day", date(2027, 2, 14)),
        ("Halloween", date(2026, 10, 31)),
        ("3 days ago", date(2026, 2, 28)),
        ("29 February", date(2028, 2, 29)),
    ],
)
def test_spoken_dates(text: str, expected: date) -> None:
    assert parse_date(text, TODAY) == expected


def test_easter_dates_match_the_published_tables() -> None:
    assert [easter(y) for y in (2024, 2025, 2026, 2027, 2038)] == [
        date(2024, 3, 31),
        date(2025, 4, 20),
        date(2026, 4, 5),
        date(2027, 3, 28),
        date(2038, 4, 25),
    ]


def test_a_month_later_clamps_to_the_end_of_a_short_month() -> None:
    assert parse_date("in 1 month", date(2026, 1, 31)) == date(2026, 2, 28)


def test_nonsense_is_a_tool_failure() -> None:
    with pytest.raises(ToolFailure):
        parse_date("the colour blue", TODAY)


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # from published calendars; "today" is Tuesday 3 March 2026
        ("Thanksgiving", date(2026, 11, 26)),
        ("thanksgiving 2025", date(2025, 11, 27)),
        ("Thanksgiving 2024", date(2024, 11, 28)),
        ("Mother's Day", date(2026, 5, 10)),
        ("mothers day 2025", date(2025, 5, 11)),
        ("Father's Day", date(2026, 6, 21)),
        ("Labor Day", date(2026, 9, 7)),
        ("Memorial Day", date(2026, 5, 25)),
        ("Independence Day", date(2026, 7, 4)),
        ("the fourth of July", date(2026, 7, 4)),
        ("Christmas Eve", date(2026, 12, 24)),
        ("Boxing Day", date(2026, 12, 26)),
        ("New Year's Day", date(2027, 1, 1)),
        ("new year's eve", date(2026, 12, 31)),
        ("Easter", date(2026, 4, 5)),
        ("Good Friday", date(2026, 4, 3)),
        ("easter next year", date(2027, 3, 28)),
        ("christmas next year", date(2027, 12, 25)),
        ("next thanksgiving", date(2026, 11, 26)),
        ("last Christmas", date(2025, 12, 25)),
        ("last Easter", date(2025, 4, 20)),
    ],
)
def test_holidays_fall_on_their_day(text: str, expected: date) -> None:
    assert parse_date(text, TODAY) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # from published calendars; "today" is Tuesday 3 March 2026 (Easter 2026: 5 April; 2027: 28 March)
        ("Pentecost", date(2026, 5, 24)),
        ("Ascension Day", date(2026, 5, 14)),
        ("Mothering Sunday", date(2026, 3, 15)),
        ("Palm Sunday", date(2026, 3, 29)),
        ("pancake day", date(2027, 2, 9)),  # 17 February 2026 is past
        ("Ash Wednesday", date(2027, 2, 10)),
        ("MLK Day", date(2027, 1, 18)),
        ("Presidents' Day", date(2027, 2, 15)),
        ("Columbus Day", date(2026, 10, 12)),
        ("Black Friday", date(2026, 11, 27)),
        ("Juneteenth", date(2026, 6, 19)),
        ("Bonfire Night", date(2026, 11, 5)),
        ("Remembrance Day", date(2026, 11, 11)),
        ("St George's Day", date(2026, 4, 23)),
    ],
)
def test_more_holidays_fixed_from_easter_or_the_nth_weekday_fall_on_their_day(text: str, expected: date) -> None:
    assert parse_date(text, TODAY) == expected


def test_a_holiday_already_past_this_year_is_next_years() -> None:
    after = date(2026, 12, 1)
    assert parse_date("Thanksgiving", after) == date(2027, 11, 25)
    assert parse_date("Easter", after) == date(2027, 3, 28)
    assert parse_date("Halloween", after) == date(2027, 10, 31)
    assert parse_date("Halloween this year", after) == date(2026, 10, 31)


def test_the_nth_and_last_weekday_of_a_month() -> None:
    assert nth_weekday(2026, 11, 3, 4) == date(2026, 11, 26)  # 4th Thursday
    assert nth_weekday(2026, 5, 0, -1) == date(2026, 5, 25)  # last Monday
    assert nth_weekday(2026, 3, 6, 1) == date(2026, 3, 1)  # the 1st is itself a Sunday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the second Sunday of May", date(2026, 5, 10)),
        ("last Friday of the month", date(2026, 3, 27)),
        ("the first Monday of March", date(2027, 3, 1)),  # this year's is past: the next one
        ("the 3rd Thursday of next month", date(2026, 4, 16)),
        ("the last Monday of May 2027", date(2027, 5, 31)),
        ("Christmas last year", date(2025, 12, 25)),
    ],
)
def test_the_nth_weekday_of_a_named_month_and_a_date_last_year_read_as_dates(text: str, expected: date) -> None:
    assert parse_date(text, date(2026, 3, 3)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the day after Christmas", date(2026, 12, 26)),
        ("the day before New Year's Day", date(2026, 12, 31)),
        ("the Monday after Easter", date(2026, 4, 6)),
        ("the Friday before Christmas", date(2026, 12, 18)),
        ("a week on Friday", date(2026, 3, 13)),
        ("Thursday week", date(2026, 3, 12)),
        ("a week tomorrow", date(2026, 3, 11)),
        ("the 15th of next month", date(2026, 4, 15)),
        ("next month on the 2nd", date(2026, 4, 2)),
        ("the end of next month", date(2026, 4, 30)),
        ("the start of next month", date(2026, 4, 1)),
    ],
)
def test_a_date_said_from_another_date_reads_as_that_day(text: str, expected: date) -> None:
    assert parse_date(text, date(2026, 3, 3)) == expected


def test_a_fifth_weekday_a_month_does_not_have_is_a_tool_failure() -> None:
    with pytest.raises(ToolFailure):
        parse_date("the fifth Monday of February", date(2026, 3, 3))


def test_holiday_names_are_read_as_people_say_them() -> None:
    assert holiday_name("mother's day") == "Mother's Day"
    assert holiday_name("Thanksgiving this year") == "Thanksgiving"
    assert holiday_name("xmas 2027") == "Christmas Day"
    assert holiday_name("25 December") is None
    assert holiday_name("my birthday") is None


async def test_a_holiday_answer_names_it(dates: FuncTool) -> None:
    r = await dates.call({"date": "Thanksgiving"})
    assert r.content.startswith("Thanksgiving is on Thursday, 26 November 2026, in 268 days")
    r = await dates.call({"date": "Mother's Day"})
    assert r.content.startswith("Mother's Day is on Sunday, 10 May 2026, in 68 days")
