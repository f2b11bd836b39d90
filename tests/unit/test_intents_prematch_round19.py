"""The pre-match on round 19's families: evenings and weekends at home. A yes/no question about the hour or the day
before the time or the date; a clause with its own subject before the time or the date, no pause, when it names no
place; "there are 6 of us" as a scene; an exclamation ("oops") or an urging ("hurry up and") before a request and one
after it ("and be quick"); how the thing stands with a word of when ("it's done now"); what a value is to the speaker
("… that's our anniversary"); a clause after "before", "because" … once the request is whole; "did I already set an
alarm" as the list.

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("is it lunchtime yet what time is it", "current_time"),
        ("is it too early what's the time", "current_time"),
        ("is it the 30th today what's the date", "date_info"),
        ("is it saturday already what day is it", "date_info"),
    ],
)
def test_a_yes_no_question_about_the_hour_or_the_day_before_the_clock_asks_the_clock(text: str, tool: str) -> None:
    _check(text, tool, {})


@pytest.mark.parametrize(
    "text",
    [
        "is it raining what time is it",
        "is it late in sydney what time is it",
        "is it lunchtime yet",
    ],
)
def test_a_yes_no_question_about_no_hour_or_about_a_place_is_not_the_local_clock(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("i've been gardening all afternoon what time is it", "current_time"),
        ("i fell asleep on the sofa what's the time", "current_time"),
        ("we just woke up what's the date today", "date_info"),
    ],
)
def test_a_clause_with_its_own_subject_before_the_clock_with_no_pause_sets_the_scene(text: str, tool: str) -> None:
    _check(text, tool, {})


@pytest.mark.parametrize(
    "text",
    [
        "we're flying to paris what time is it",
        "i called my friend in denver what's the time",
        "my sister lives in oslo what time is it",
    ],
)
def test_a_clause_naming_a_place_before_the_bare_clock_leaves_whose_clock_open(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("there are 6 of us so what's 90 divided by 6", 15),
        ("there were 4 of us, how much is 52 divided by 4", 13),
    ],
)
def test_there_are_some_of_us_sets_the_scene_for_a_sum(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize("text", ["there are 3 timers in the kitchen", "there is an alarm going off next door"])
def test_a_statement_that_there_is_a_thing_asks_nothing(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("oops what's 7 times 8", "calculate", {"expression": 56}),
        ("phew what time is it", "current_time", {}),
        ("come on set a timer for 9 minutes", "set_timer", {"duration": "9 minutes"}),
        ("hurry up and tell me the date", "date_info", {}),
        ("go on and wake me up at 6 am", "set_alarm", {"time": "6 am"}),
    ],
)
def test_an_exclamation_or_an_urging_before_a_request_is_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("set a timer for 6 minutes and be quick", "set_timer", {"duration": "6 minutes"}),
        ("what's 12 times 12 as fast as you can", "calculate", {"expression": 144}),
        ("convert 3 miles to km and hurry up", "convert_units", {"value": 3, "from_unit": "mile", "to_unit": "km"}),
    ],
)
def test_an_urging_after_a_request_is_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["hurry up and finish your homework", "come on then", "ugh i hate alarms"])
def test_an_urging_or_an_exclamation_with_no_request_is_not_claimed(text: str) -> None:
    assert prematch(text) is None, text


def test_hurry_up_inside_a_reminders_task_stays_in_the_task() -> None:
    _check("remind me at 7 pm to tell the kids to hurry up", "set_reminder", {"text": "tell the kids to hurry up", "when": "7 pm"})


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("cancel the pasta timer it's ready now", "pasta"),
        ("stop the bread timer it's done already", "bread"),
    ],
)
def test_how_the_thing_stands_with_a_word_of_when_after_a_cancel_is_the_reason(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what day of the week is 2 october 2027 that's our anniversary", "date_info", {"date": "2 October 2027"}),
        ("how many days until 14 july it's my dad's birthday", "date_info", {"date": "14 July"}),
        ("how much is 45 times 4 that's my weekly budget", "calculate", {"expression": 180}),
    ],
)
def test_what_the_value_is_to_the_speaker_after_a_question_that_says_it_is_the_reason(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["that's my birthday", "is it my birthday", "it's my turn to cook tonight"])
def test_saying_what_a_day_is_with_no_question_is_not_claimed(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        (
            "remind me to defrost the chicken tomorrow morning before we go out",
            "set_reminder",
            {"text": "defrost the chicken", "when": "tomorrow morning"},
        ),
        ("set an alarm for 5:30 am before we drive to the airport", "set_alarm", {"time": "5:30 am"}),
        ("what time is it in lima before i ring my aunt", "current_time", {"place": "Lima"}),
    ],
)
def test_a_clause_after_before_or_because_once_the_request_is_whole_is_the_reason(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_clause_after_a_reminders_task_with_its_when_first_is_the_task() -> None:
    _check("remind me at 9 pm to lock up before we leave", "set_reminder", {"text": "lock up before we leave", "when": "9 pm"})


def test_a_reminder_with_no_when_but_a_before_clause_is_not_cut_short() -> None:
    got = prematch("remind me to lock up before we leave")
    assert got is None or got.arguments.get("text") == "lock up before we leave", got


@pytest.mark.parametrize(
    "text",
    ["did we already set a timer for the rice", "have i set an alarm for tomorrow yet", "did i start the oven timer"],
)
def test_whether_the_speaker_set_an_item_lists_them(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    "text",
    ["did i set the alarm too loud", "have we set a date for the wedding", "i already set an alarm", "did i ever set a timer wrong"],
)
def test_talk_about_having_set_something_that_asks_no_list_is_not_claimed(text: str) -> None:
    assert prematch(text) is None, text
