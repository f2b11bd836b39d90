"""The pre-match on round 10's families for the clock, the calendar and numbers (new phrasings, not the bench's).

Yes/no questions about a place's hour, "time's it", a reason or an aside after
the request, holidays by country, a personal day dated after its question, and
arithmetic said as a story or a sequence of steps. Slots are compared by meaning
with the bench's scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris),
expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("is it past ten in Sydney yet", "Sydney"),
        ("is it already midnight in Tokyo", "Tokyo"),
        ("is it nearly lunchtime in Berlin", "Berlin"),
        ("is it before 9 am in Chicago", "Chicago"),
        ("is it still the middle of the day in Honolulu", "Honolulu"),
    ],
)
def test_a_yes_no_question_comparing_a_place_s_clock_with_an_hour_goes_to_the_clock(text: str, place: str) -> None:
    _check(text, "current_time", {"place": place})


@pytest.mark.parametrize(
    "text", ["is it after five", "is it still the middle of the night", "is it after five in the office", "is it past my bedtime"]
)
def test_a_yes_no_question_about_the_hour_with_no_known_place_stays_with_the_model(text: str) -> None:
    # like "is it morning" alone: the place is what makes it a question for the clock
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("what time's it in Lagos", {"place": "Lagos"}),
        ("what time's it", {}),
        ("have you the time please", {}),
        ("excuse me, have you got the time", {}),
        ("have you any idea what time it is", {}),
    ],
)
def test_time_s_it_and_have_you_the_time_ask_the_clock(text: str, slots: dict[str, Any]) -> None:
    _check(text, "current_time", slots)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("what's the time in Oslo please, I've got a meeting with them", "Oslo"),
        ("tell me the time in Perth Australia please, we're calling grandad", "Perth, Australia"),
    ],
)
def test_a_place_then_please_and_a_reason_is_the_place_alone(text: str, place: str) -> None:
    _check(text, "current_time", {"place": place})


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("when is Canadian Thanksgiving", "12 October 2026"),
        ("how many days until Thanksgiving in Canada", "12 October 2026"),
        ("when's Labour Day this year", "7 September 2026"),
        ("what's the date on the last day of the month", "31 March 2026"),
        ("what day is the last day of this year", "31 December 2026"),
    ],
)
def test_holidays_by_country_and_the_last_day_of_the_month_are_dates(text: str, date: str) -> None:
    _check(text, "date_info", {"date": date})


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("what day of the week is our anniversary this year, it's the 3rd of June", "3 June 2026"),
        ("what day will my mum's birthday fall on next year, it's on the 2nd of August", "2 August 2027"),
    ],
)
def test_a_personal_day_dated_after_its_question_is_that_date(text: str, date: str) -> None:
    _check(text, "date_info", {"date": date})


@pytest.mark.parametrize("text", ["what day is my dentist appointment, it's in the morning", "what day is it, it's my birthday"])
def test_a_clause_after_a_day_question_that_says_no_date_gives_it_none(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we're three and the taxi was 45 pounds, how much each", 15),
        ("we were five at the table and the bill came to 120, what's that per person", 24),
        ("I've got 4 crates with 12 bottles in each, how many bottles is that", 48),
        ("there are 7 shelves with 30 books on each, how many books is that", 210),
        ("we have 5 teams of 11 players, how many players is that in total", 55),
        ("times 12 by 7", 84),
        ("take 500 and divide it by 4", 125),
        ("take 60 and multiply it by 3", 180),
        ("start with 100 and take away 35", 65),
        ("what do you get if you take 81 and divide it by 9", 9),
        ("what's, er, 15 plus 27", 42),
        ("so, um, what's 9 times 7 again", 63),
    ],
)
def test_arithmetic_told_as_a_story_or_in_steps_or_with_a_hesitation_is_calculated(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    "text",
    ["we're three and the taxi was late, how much each", "take the bus and divide it by two", "I've got 4 crates with bottles in each"],
)
def test_a_story_without_its_numbers_is_not_arithmetic(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("what's 180 celsius in fahrenheit, the oven's in celsius", (180.0, "celsius", "fahrenheit")),
        ("convert 5 miles to km, the race is in kilometres", (5.0, "miles", "km")),
    ],
)
def test_a_clause_about_a_thing_after_a_conversion_is_its_reason(text: str, want: tuple[float, str, str]) -> None:
    value, src, dst = want
    _check(text, "convert_units", {"value": value, "from_unit": src, "to_unit": dst})


def test_a_statement_about_a_thing_before_nothing_is_not_claimed() -> None:
    assert prematch("the recipe's American, it uses cups") is None
