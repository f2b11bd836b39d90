"""genx.toolbox.numwords and spans: spoken numbers and lengths of time."""

from __future__ import annotations

import pytest

from genx.errors import ToolFailure
from genx.toolbox.numwords import parse_number, words_to_numbers
from genx.toolbox.spans import parse_span


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("seventeen times twenty three", "17 times 23"),
        ("seventeen times twenty-three", "17 times 23"),
        ("a hundred and five", "105"),
        ("two thousand and twenty six", "2026"),
        ("twelve thousand three hundred forty five", "12345"),
        ("nineteen hundred", "1900"),
        ("three point five", "3.5"),
        ("zero point zero five", "0.05"),
        ("1.5 thousand people", "1500 people"),
        ("two million", "2000000"),
        ("one two three", "1 2 3"),
        ("one and two", "1 and 2"),
        ("twenty-fifth of December", "25th of December"),
        ("the first of May", "the 1st of May"),
        ("twenty-second", "22nd"),
        ("an apple", "an apple"),
        ("wait a second", "wait a second"),
        ("one second", "1 second"),
    ],
)
def test_number_words_become_digits_and_other_words_stay(text: str, expected: str) -> None:
    assert words_to_numbers(text) == expected


def test_parse_number_reads_one_whole_number_or_nothing() -> None:
    assert parse_number("twenty-five") == 25
    assert parse_number("a hundred") == 100
    assert parse_number("1,500") == 1500
    assert parse_number("banana") is None


@pytest.mark.parametrize(
    ("text", "months", "days", "seconds"),
    [
        ("ten minutes", 0, 0, 600),
        ("10 min", 0, 0, 600),
        ("1h30m", 0, 0, 5400),
        ("1 hour 30 minutes", 0, 0, 5400),
        ("an hour and a half", 0, 0, 5400),
        ("two and a half hours", 0, 0, 9000),
        ("half an hour", 0, 0, 1800),
        ("a quarter of an hour", 0, 0, 900),
        ("90 seconds", 0, 0, 90),
        ("for 25 minutes", 0, 0, 1500),
        ("twenty-five minutes from now", 0, 0, 1500),
        ("3 weeks", 0, 21, 0),
        ("a week and 2 days", 0, 9, 0),
        ("2 days ago", 0, -2, 0),
        ("-2 days", 0, -2, 0),
        ("a month", 1, 0, 0),
        ("1 year 2 months", 14, 0, 0),
    ],
)
def test_spoken_lengths_of_time(text: str, months: int, days: float, seconds: float) -> None:
    span = parse_span(text)
    assert (span.months, span.days, span.seconds) == (months, days, seconds)


def test_a_timer_length_is_elapsed_time_and_a_day_is_a_wall_clock_day_across_summer_time() -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    paris = ZoneInfo("Europe/Paris")
    before = datetime(2026, 3, 29, 1, 30, tzinfo=paris)  # clocks go from 2:00 to 3:00 this night
    assert parse_span("1 hour").add_to(before) == datetime(2026, 3, 29, 3, 30, tzinfo=paris)
    assert parse_span("1 day").add_to(before) == datetime(2026, 3, 30, 1, 30, tzinfo=paris)


@pytest.mark.parametrize("text", ["banana minutes", "10 bananas", "5", "", "minutes"])
def test_text_that_is_not_a_length_of_time_is_a_failure_quoting_it(text: str) -> None:
    with pytest.raises(ToolFailure, match="I can't read") as e:
        parse_span(text)
    assert repr(text.strip()) in str(e.value)
