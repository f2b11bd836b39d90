"""The pre-match on round 14's families: requests said twice or echoed, asides to someone else, two requests in one
breath, pet names with no pause, bare places and days as corrections, numbers heard as words, afternoon hours said
"hundred", and clauses and reasons with no pause.

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from genx.assistant.prematch_correction import corrected
from genx.assistant.prematch_hours import twelve_hour
from genx.assistant.prematch_speech import said_twice, unaddressed
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("how many days until easter how many days until easter", "date_info", {"date": "easter"}),
        ("start a timer for 9 minutes start a timer for 9 minutes", "set_timer", {"duration": "9 minutes"}),
        ("what's the time in Lima, what's the time in Lima", "current_time", {"place": "Lima"}),
        ("cancel that cancel that", "cancel_timer", {}),
    ],
)
def test_a_whole_request_said_twice_is_the_request_once(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_only_a_run_of_two_words_or_more_said_twice_is_collapsed() -> None:
    assert said_twice("wake me at 7 wake me at 7") == "wake me at 7"
    assert said_twice("bye bye") == "bye bye"
    assert said_twice("set a timer for 2 minutes") == "set a timer for 2 minutes"


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("how long is left on the timer how long is left", "list_timers", {}),
        ("what's 9 times 6 nine times six", "calculate", {"expression": 54}),
        ("cancel the alarm the alarm cancel it", "cancel_timer", {"which": "the alarm"}),
        ("what's the time in Oslo the time in Oslo", "current_time", {"place": "Oslo"}),
    ],
)
def test_a_request_then_its_own_words_said_again_is_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_more_of_a_sum_is_no_echo() -> None:
    _check("what's 4 times 4 times 4", "calculate", {"expression": 64})
    _check("what is two plus two plus two", "calculate", {"expression": 6})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's 12 times 12 and then play some music", "calculate", {"expression": 144}),
        ("set an alarm for 7 pm and also a timer for 5 minutes", "set_alarm", {"time": "7 pm"}),
        ("start a timer for 15 minutes then remind me to call the plumber", "set_timer", {"duration": "15 minutes"}),
        ("remind me to post the letter tomorrow and then what's the date", "set_reminder", {"text": "post the letter", "when": "tomorrow"}),
    ],
)
def test_the_first_of_two_requests_in_one_breath_is_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what is a hundred and fifty divided by 3", "calculate", {"expression": 50}),
        ("remind me to buy bread and then make toast at 8 am", "set_reminder", {"text": "buy bread and then make toast", "when": "8 am"}),
    ],
)
def test_and_inside_an_amount_or_a_reminders_task_joins_no_requests(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("hold on Max get down what's the date today", "date_info", {}),
        ("one sec the phone's ringing what time is it in Denver", "current_time", {"place": "Denver"}),
        ("start a timer for hang on Lily put that back fifteen minutes", "set_timer", {"duration": "15 minutes"}),
        ("set an alarm for just a minute sweetheart I'm talking 7 pm", "set_alarm", {"time": "7 pm"}),
    ],
)
def test_an_aside_to_someone_else_is_no_part_of_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_an_aside_marker_with_no_request_after_it_claims_nothing() -> None:
    assert prematch("hold on to your hats") is None
    assert prematch("hang on a minute") is None


def test_hang_on_in_a_reminders_task_is_the_task() -> None:
    _check("remind me to hang on to the receipt at 5 pm", "set_reminder", {"text": "hang on to the receipt", "when": "5 pm"})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("hello darling can you set a timer for 6 minutes", "set_timer", {"duration": "6 minutes"}),
        ("excuse me dear what's the date", "date_info", {}),
        ("set an alarm for 6 am sweetheart", "set_alarm", {"time": "6 am"}),
        ("what's the time darling I've lost my watch", "current_time", {}),
        ("set a timer for 25 minutes for the cake dear", "set_timer", {"duration": "25 minutes", "label": "cake"}),
    ],
)
def test_a_pet_name_with_no_pause_is_no_part_of_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_pet_name_said_of_someone_stays() -> None:
    assert unaddressed("remind me to ring my darling") == "remind me to ring my darling"
    assert unaddressed("what time is it oh dear") == "what time is it oh dear"


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("set a timer for me for 4 minutes", "set_timer", {"duration": "4 minutes"}),
        ("could you put an alarm for us at 6:45 am", "set_alarm", {"time": "6:45 am"}),
    ],
)
def test_for_me_after_the_thing_asked_for_is_no_name(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what time is it in Berlin no sorry Vienna", "current_time", {"place": "Vienna"}),
        (
            "remind me to water the plants tonight actually tomorrow evening",
            "set_reminder",
            {"text": "water the plants", "when": "tomorrow evening"},
        ),
        ("remind me to call the vet on Monday, no wait, Tuesday", "set_reminder", {"text": "call the vet", "when": "Tuesday"}),
    ],
)
def test_a_bare_place_or_day_after_a_marker_replaces_the_requests_own(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_bare_word_that_is_no_place_replaces_no_place() -> None:
    assert corrected("what time is it in rome, sorry, thanks") is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's sixty minus for", "calculate", {"expression": 56}),
        ("what is 9 times to", "calculate", {"expression": 18}),
        ("convert to pints into litres", "convert_units", {"value": 2, "from_unit": "pint", "to_unit": "liter"}),
        ("stop timer to", "cancel_timer", {"which": "2"}),
        ("wake me up for for fifteen", "set_alarm", {"time": "4:15 am"}),
        ("convert 2000 megs to gigabytes", "convert_units", {"value": 2000, "from_unit": "MB", "to_unit": "GB"}),
        ("the same timer again ten minutes", "set_timer", {"duration": "10 minutes"}),
    ],
)
def test_a_word_heard_where_only_a_number_or_a_unit_stands_is_that(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_to_and_for_that_are_no_number_stay() -> None:
    _check("convert 5 miles to km", "convert_units", {"value": 5, "from_unit": "mile", "to_unit": "km"})
    _check("remind me to go to the gig at 8 pm", "set_reminder", {"text": "go to the gig", "when": "8 pm"})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("set an alarm for nineteen hundred", "set_alarm", {"time": "7 pm"}),
        ("remind me at fourteen hundred to phone the garage", "set_reminder", {"text": "phone the garage", "when": "2 pm"}),
        ("wake me at twenty-two hundred tonight", "set_alarm", {"time": "10 pm"}),
    ],
)
def test_an_afternoon_hour_said_hundred_is_a_time_for_an_alarm_or_a_reminder(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_hundred_that_is_an_amount_stays_an_amount() -> None:
    assert twelve_hour("convert sixteen hundred metres to miles") == "convert sixteen hundred metres to miles"
    assert twelve_hour("set a timer for fifteen hundred seconds") == "set a timer for fifteen hundred seconds"


def test_a_day_of_the_week_asked_in_statement_order_is_the_date() -> None:
    _check("I'd like to know what day of the week the 9th of May falls on", "date_info", {"date": "9 May"})
    _check("tell me which day of the week new year's day falls on", "date_info", {"date": "new year's day"})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("I'm cooking just tell me the time", "current_time", {}),
        ("we're in a hurry tell me the date", "date_info", {}),
        ("what's 200 grams in ounces I'm baking", "convert_units", {"value": 200, "from_unit": "gram", "to_unit": "ounce"}),
        ("any timers going I can't hear the oven", "list_timers", {}),
    ],
)
def test_a_scene_or_a_reason_with_no_pause_is_no_part_of_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("I've finished with the pizza timer you can delete it", "the pizza timer"),
        ("we won't need the 7 am alarm so get rid of it", "the 7 am alarm"),
    ],
)
def test_cancel_it_with_no_pause_after_a_clause_naming_the_item_cancels_that_item(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})
