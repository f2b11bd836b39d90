"""The pre-match on a clause that gives a value, then a request that points back to it ("there", "that", "it").

New phrasings of the family, not the bench's; expected slots written by hand and
compared by meaning with the bench's scorer (:func:`bench.tool_slots.slots_ok`,
its fixed "now" Tuesday 3 March 2026 10:00 in Paris).
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("my sister just moved to Reykjavik and I never know if she's awake, what time is it there", "current_time",
         {"place": "Reykjavik"}),
        ("I'm flying to Osaka tonight, what time is it there", "current_time", {"place": "Osaka"}),
        ("after lunch I have a call with the team in Nairobi, what's the time over there", "current_time", {"place": "Nairobi"}),
        ("the suitcase weighs twenty three kilos how much is that in pounds", "convert_units",
         {"value": 23, "from_unit": "kilograms", "to_unit": "pounds"}),
        ("the recipe wants two cups of milk, how many millilitres is that", "convert_units",
         {"value": 2, "from_unit": "cups", "to_unit": "milliliters"}),
        ("our flat is eighty square metres how many square feet is that", "convert_units",
         {"value": 80, "from_unit": "square meters", "to_unit": "square feet"}),
        ("my grandmother was born on the fourth of july nineteen forty one, what day of the week was that", "date_info",
         {"date": "4 July 1941"}),
        ("the festival is on boxing day, what day is that", "date_info", {"date": "26 December"}),
        ("the 7 am alarm is no use on holiday, turn it off", "cancel_timer", {"which": "7 am"}),
        ("the pasta timer was a mistake cancel it", "cancel_timer", {"which": "pasta"}),
    ],
)  # fmt: skip
def test_a_request_pointing_back_takes_the_value_the_clause_before_it_gives(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text",
    [
        "I spent a week in Lisbon last spring, what was the weather like there",
        "my brother is six feet tall, is that tall for his age",
        "we paid forty dollars for the tickets, was that a good deal",
        "I went to Rome in May, what should I see there next time",
        "the meeting on friday went badly, what should I say about it",
        "my cat weighs five kilos, is that too heavy",
    ],
)
def test_chat_that_mentions_a_place_or_an_amount_and_asks_something_else_stays_with_the_model(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "date"),
    [("easter nineteen ninety nine", "4 April 1999"), ("the first of may twenty twenty", "1 May 2020")],
)
def test_a_spoken_year_after_a_holiday_or_a_month_is_the_year(text: str, date: str) -> None:
    _check(f"what day of the week was {text}", "date_info", {"date": date})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("set an alarm for six on weekdays", "set_alarm", {"time": "6 am", "repeat": "weekdays"}),
        ("what's the date today again", "date_info", {}),
        ("what is three raised to the fourth", "calculate", {"expression": "81"}),
        ("oh no, we don't need that one, cancel it", "cancel_timer", {}),
        ("put twenty minutes on the timer", "set_timer", {"duration": "20 minutes"}),
        ("the bread is proving now, set a timer for forty minutes", "set_timer", {"duration": "40 minutes"}),
    ],
)  # fmt: skip
def test_loose_everyday_phrasings_of_the_tools_are_claimed(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["my birthday is in june, what day is it", "the pasta timer was a mistake, what a day"])
def test_a_thing_doing_something_before_a_question_is_its_topic_not_a_scene(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("the bathroom scale only does kilograms, what's eleven stone", {"value": 11, "from_unit": "stone", "to_unit": "kilograms"}),
        ("my thermometer reads fahrenheit what's thirty seven celsius",
         {"value": 37, "from_unit": "degrees Celsius", "to_unit": "degrees Fahrenheit"}),
        ("what is three fifty fahrenheit in celsius", {"value": 350, "from_unit": "degrees Fahrenheit",
                                                                 "to_unit": "degrees Celsius"}),
    ],
)  # fmt: skip
def test_a_conversion_without_its_target_takes_the_unit_the_clause_names(text: str, slots: dict[str, Any]) -> None:
    _check(text, "convert_units", slots)


@pytest.mark.parametrize("text", ["I live in London, what's ten miles", "we walked for hours, what's ten miles"])
def test_a_clause_naming_no_unit_of_the_same_kind_gives_no_target(text: str) -> None:
    assert prematch(text) is None


def test_that_and_it_point_back_to_a_date_not_to_a_place_in_the_same_clause() -> None:
    _check("we were in Vienna on new year's eve, what day of the week was that", "date_info", {"date": "31 December"})


@pytest.mark.parametrize(
    "text", ["I set an alarm for 7, did it work", "the meeting is in Chicago, when is it", "I started a timer, is it still going, why"]
)
def test_a_request_inside_the_clause_is_not_the_one_pointing_back(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("the bus ride is forty minutes, set a timer for that", "set_timer", {"duration": "40 minutes"}),
        ("the party is on the 20th of june, how many days until then", "date_info", {"date": "20 June"}),
    ],
)
def test_the_value_pointed_back_to_is_the_amount_or_date_not_the_clause_around_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("we moved house on the fourteenth of february, how many days ago was that", "14 February 2026"),
        ("the lease ended on the second of january, how long ago was that", "2 January 2026"),
    ],
)
def test_that_in_a_question_about_the_past_is_the_last_date_the_clause_gives(text: str, date: str) -> None:
    _check(text, "date_info", {"date": date})


@pytest.mark.parametrize("text", ["my old alarm was far too loud, set an alarm", "the kids love the kitchen timer, timer please"])
def test_a_bare_command_after_a_clause_with_no_value_in_it_is_not_claimed(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize("text", ["what's 5 plus 5, set a timer for 5 minutes", "how's the weather, set an alarm for 7"])
def test_a_question_before_a_command_is_a_request_of_its_own_not_a_scene(text: str) -> None:
    assert prematch(text) is None
