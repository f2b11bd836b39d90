"""The pre-match on round 11's value families: 24-hour times, amounts with their part after the unit, timer names,
a value said before "set a timer", "how many days is …", cancelling by "take off", arithmetic "for me" and "for the tip".

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from genx.assistant.prematch_hours import twelve_hour
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("wake me at oh seven fifteen", "wake me at 7:15 am"),
        ("an alarm for zero five hundred", "an alarm for 5 am"),
        ("remind me at sixteen hundred hours to ring Kai", "remind me at 4 pm to ring Kai"),
        ("alarm at twenty one forty-five hours", "alarm at 9:45 pm"),
        ("set it for nineteen oh five hours", "set it for 7:05 pm"),
    ],
)
def test_a_24_hour_time_after_a_time_word_reads_as_a_12_hour_time(said: str, meant: str) -> None:
    assert twelve_hour(said) == meant


@pytest.mark.parametrize(
    "said", ["convert sixteen hundred hours to days", "sixteen hundred people came", "I slept fourteen hours", "add one two three"]
)
def test_an_amount_of_hours_or_numbers_with_no_time_word_before_them_stay_as_said(said: str) -> None:
    assert twelve_hour(said) == said


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("set an alarm for zero seven forty", {"time": "7:40 am"}),
        ("alarm oh six hundred hours tomorrow", {"time": "6 am tomorrow"}),
        ("wake me up at oh five thirty", {"time": "5:30 am"}),
        ("set an alarm for thirteen fifteen hours", {"time": "1:15 pm"}),
    ],
)
def test_alarms_at_24_hour_times_are_set_at_that_time(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_alarm", slots)


def test_a_convert_of_hundreds_of_hours_is_a_conversion_not_a_time() -> None:
    _check("convert sixteen hundred hours to days", "convert_units", {"value": 1600, "from_unit": "hour", "to_unit": "day"})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("a gallon and a quarter in litres", {"value": 1.25, "from_unit": "gallon", "to_unit": "liter"}),
        ("convert 3 pounds and a half to kilos", {"value": 3.5, "from_unit": "pound", "to_unit": "kilogram"}),
        ("how many grams is an ounce and three quarters", {"value": 1.75, "from_unit": "ounce", "to_unit": "gram"}),
    ],
)
def test_an_amount_with_its_part_after_the_unit_is_the_whole_and_the_part(text: str, slots: dict[str, Any]) -> None:
    _check(text, "convert_units", slots)


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("work out for me 96 divided by 4", 24),
        ("calculate for us 12 times 12", 144),
        ("what's twenty percent of sixty pounds, for the waiter", 12),
    ],
)
def test_arithmetic_asked_for_me_or_with_what_it_is_for_is_evaluated(text: str, expression: float) -> None:
    _check(text, "calculate", {"expression": expression})


def test_what_something_is_for_with_no_arithmetic_is_not_claimed() -> None:
    assert prematch("I'd like a drink, for the road") is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("set a face mask timer for 15 minutes", {"duration": "15 minutes", "label": "face mask"}),
        ("the bread needs 35 minutes, can you set a bread timer", {"duration": "35 minutes", "label": "bread"}),
        ("Dad said I can watch TV for 20 minutes, could you set a timer", {"duration": "20 minutes"}),
        ("tea, four minutes, timer", {"duration": "4 minutes", "label": "tea"}),
    ],
)
def test_timers_named_in_two_words_or_with_the_value_said_first_are_set(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_timer", slots)


@pytest.mark.parametrize("text", ["the film lasted two hours, can you believe it", "my timer broke, can you set a new one"])
def test_a_clause_with_a_length_before_no_timer_request_or_with_no_length_is_not_claimed(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("how many days is Halloween", {"date": "31 October 2026"}),
        ("we fly out on the 20th of March, how many days is that", {"date": "20 March 2026"}),
    ],
)
def test_how_many_days_is_a_date_counts_the_days_until_it(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


def test_how_many_days_is_a_length_of_time_is_a_conversion() -> None:
    _check("how many days is 6 weeks", "convert_units", {"value": 6, "from_unit": "week", "to_unit": "day"})


@pytest.mark.parametrize(("text", "which"), [("take off the gym alarm", "gym"), ("oh wait, take off my tea timer", "tea")])
def test_taking_off_an_item_cancels_it(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})


def test_taking_off_a_thing_that_is_no_item_is_not_a_cancel() -> None:
    assert prematch("take off your shoes") is None
