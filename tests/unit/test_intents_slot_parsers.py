"""The tools' slot parsers on the spoken forms the router hands them: units, durations, moments, dates, numbers."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from genx.assistant.slot_reads import reads
from genx.errors import ToolFailure
from genx.toolbox.dates import parse_date
from genx.toolbox.numwords import words_to_numbers
from genx.toolbox.reminders.when import parse_when
from genx.toolbox.spans import parse_span
from genx.toolbox.units import convert

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 3, 3, 10, 0, tzinfo=PARIS)  # a Tuesday


@pytest.mark.parametrize(
    ("src", "dst", "factor"),
    [
        ("kilos", "pounds", 2.20462),  # not kilo-seconds
        ("kilo", "grams", 1000.0),
        ("kgs", "kg", 1.0),
        ("kms", "miles", 0.621371),
        ("cms", "inches", 0.393701),
        ("kilometers an hour", "miles per hour", 0.621371),
        ("miles an hour", "km/h", 1.609344),
    ],
)
def test_units_people_say_convert_by_the_right_factor(src: str, dst: str, factor: float) -> None:
    assert convert(1.0, src, dst)[0] == pytest.approx(factor, rel=1e-4)


def test_o_clock_with_an_apostrophe_is_a_time_of_day() -> None:
    assert parse_when("8 o'clock", NOW).when.hour in (8, 20)
    assert parse_when("8 o’clock tomorrow", NOW).when == datetime(2026, 3, 4, 8, 0, tzinfo=PARIS)


def test_a_m_with_one_dot_after_the_final_punctuation_is_stripped_reads_as_morning() -> None:
    assert parse_when("7:30 a.m", NOW).when == datetime(2026, 3, 4, 7, 30, tzinfo=PARIS)


def test_a_couple_of_minutes_is_two_minutes() -> None:
    assert parse_span("a couple of minutes").seconds == 120
    assert parse_span("couple hours").seconds == 7200


def test_the_weekend_is_the_coming_saturday() -> None:
    assert parse_date("the weekend", NOW.date()) == date(2026, 3, 7)
    assert parse_date("next weekend", NOW.date()) == date(2026, 3, 14)


def test_digits_before_hundred_make_one_number() -> None:
    assert words_to_numbers("2 hundred") == "200"
    assert words_to_numbers("3 hundred and twenty") == "320"


def test_the_end_of_the_month_or_year_and_a_date_next_year_read_as_dates() -> None:
    assert parse_date("the end of the month", NOW.date()) == date(2026, 3, 31)
    assert parse_date("end of the year", NOW.date()) == date(2026, 12, 31)
    assert parse_date("the first of January next year", NOW.date()) == date(2027, 1, 1)
    assert parse_date("christmas next year", NOW.date()) == date(2027, 12, 25)


def test_half_six_is_half_past_six() -> None:
    assert parse_when("half six", NOW).when == datetime(2026, 3, 3, 18, 30, tzinfo=PARIS)
    assert parse_span("half an hour").seconds == 1800  # "half" before a unit stays a length of time


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("three quarters of an hour", 2700),
        ("a half hour", 1800),
        ("half hour", 1800),
        ("1 hour 20", 4800),  # a last bare number counts in the next smaller unit
        ("an hour and 15", 4500),
        ("2 minutes 30", 150),
        ("1h30", 5400),
    ],
)
def test_lengths_of_time_said_with_quarters_halves_or_a_bare_last_number_read_whole(text: str, seconds: float) -> None:
    assert parse_span(text).seconds == seconds


def test_a_bare_number_not_after_hours_or_minutes_is_still_not_a_length_of_time() -> None:
    with pytest.raises(ToolFailure):
        parse_span("2 days 3")
    with pytest.raises(ToolFailure):
        parse_span("20 30")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("half past seven am", datetime(2026, 3, 4, 7, 30)),
        ("quarter to eight pm", datetime(2026, 3, 3, 19, 45)),
        ("twenty past six a.m.", datetime(2026, 3, 4, 6, 20)),
        ("quarter to twelve pm", datetime(2026, 3, 3, 11, 45)),  # the hour said is noon: a quarter before it
        ("tomorrow at half past 6 am", datetime(2026, 3, 4, 6, 30)),
    ],
)
def test_a_spoken_clock_time_with_am_or_pm_after_it_reads_in_that_half_of_the_day(text: str, expected: datetime) -> None:
    assert parse_when(text, NOW).when == expected.replace(tzinfo=PARIS)


def test_this_coming_weekday_is_the_next_one_after_today() -> None:
    assert parse_date("this coming Saturday", NOW.date()) == date(2026, 3, 7)
    assert parse_date("coming Tuesday", NOW.date()) == date(2026, 3, 10)  # today is a Tuesday: next week's


def test_a_length_of_time_in_the_past_is_not_a_timer_length() -> None:
    assert reads("duration", "10 minutes")
    assert not reads("duration", "10 minutes ago")


def test_in_a_bare_number_is_that_many_minutes_from_now() -> None:
    assert parse_when("in 20", NOW).when == datetime(2026, 3, 3, 10, 20, tzinfo=PARIS)  # not 8 pm
    assert parse_span("3 hours' time").seconds == 3 * 3600


def test_digits_then_point_then_digits_make_one_decimal() -> None:
    assert words_to_numbers("3 point 5 plus 2") == "3.5 plus 2"
    assert words_to_numbers("2 point five") == "2.5"
    assert words_to_numbers("the 3 point shot") == "the 3 point shot"  # no digits after: not a decimal


def test_oh_between_the_hour_and_a_single_minute_digit_reads_as_a_clock_time() -> None:
    assert parse_when("six oh five am", NOW).when == datetime(2026, 3, 4, 6, 5, tzinfo=PARIS)
    assert parse_when("tomorrow at 7 o 5", NOW).when == datetime(2026, 3, 4, 7, 5, tzinfo=PARIS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("last 14 February", date(2026, 2, 14)),
        ("last the 20th of december", date(2025, 12, 20)),
        ("last March 3rd", date(2025, 3, 3)),  # today's date: the one a year ago, as "last Friday" on a Friday
        ("last 29 february", date(2024, 2, 29)),
    ],
)
def test_last_before_a_day_and_month_is_the_latest_one_before_today(text: str, expected: date) -> None:
    assert parse_date(text, NOW.date()) == expected


@pytest.mark.parametrize("text", ["the second of june", "june the second", "2nd june"])
def test_second_next_to_a_month_is_the_day_of_the_month(text: str) -> None:
    assert parse_date(text, NOW.date()) == date(2026, 6, 2)


def test_words_to_numbers_gives_the_same_digits_when_asked_twice() -> None:
    assert words_to_numbers("twenty five past seven") == words_to_numbers("twenty five past seven") == "25 past 7"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Friday the 13th", date(2026, 3, 13)),
        ("Thursday the 12th", date(2026, 3, 12)),
        ("monday the fifth", date(2026, 10, 5)),  # the next 5th that is a Monday
        ("Wednesday 11 March", date(2026, 3, 11)),
    ],
)
def test_a_weekday_with_a_day_of_the_month_is_the_next_such_date_on_that_weekday(text: str, expected: date) -> None:
    assert parse_date(text, NOW.date()) == expected


def test_a_weekday_that_its_dated_day_cannot_fall_on_is_no_date() -> None:
    with pytest.raises(ToolFailure):
        parse_date("Thursday 11 March 2026", NOW.date())  # a Wednesday


def test_a_weekday_with_a_day_of_the_month_reads_as_a_reminder_s_day() -> None:
    assert parse_when("Wednesday the 11th at 9 am", NOW).when == datetime(2026, 3, 11, 9, 0, tzinfo=PARIS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the last day of this month", date(2026, 3, 31)),
        ("last day of the month", date(2026, 3, 31)),
        ("the last day of the year", date(2026, 12, 31)),
        ("Canadian Thanksgiving", date(2026, 10, 12)),  # the 2nd Monday of October
        ("thanksgiving in canada", date(2026, 10, 12)),
        ("Labour Day", date(2026, 9, 7)),  # the 1st Monday of September, as Labor Day
    ],
)
def test_the_last_day_of_the_month_and_holidays_by_their_country_s_name_are_dates(text: str, expected: date) -> None:
    assert parse_date(text, NOW.date()) == expected
