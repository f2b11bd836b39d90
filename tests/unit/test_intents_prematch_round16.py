"""The pre-match on round 16's families: a statement about a timer or an alarm that is already there, a yes/no question
about the speaker before the time or the date, a clause about someone or how a thing stands after the request, "get rid
of", "switch off" before a reason, an item named by when it was set ("the first one"), a weekday's shortening after "the",
"remind me" said anew after the task, a weekly repeat's day after a reminder's task.

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    "text",
    [
        "the timer is set for 5 minutes",
        "my alarm is set for 7",
        "the oven timer's already going",
        "the timer is set for 10 minutes",
        "my alarm's set for 6:30",
        "the pasta timer is already running",
        "my alarm was for 7 but it didn't ring",
        "the kitchen timer has gone off",
        "our alarm is for half past six",
    ],
)
def test_a_statement_about_a_timer_or_alarm_that_is_there_sets_nothing(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    "text",
    ["is the alarm set for 6 am", "is my timer on for 20 minutes", "are the alarms set for tomorrow"],
)
def test_a_yes_no_question_about_how_one_stands_lists_them(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("set the timer for 10 minutes", "set_timer", {"duration": "10 minutes"}),
        ("set my alarm for 7 am", "set_alarm", {"time": "7 am"}),
        ("the pasta timer for 9 minutes", "set_timer", {"duration": "9 minutes", "label": "pasta"}),
    ],
)
def test_a_command_naming_the_timer_still_sets_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("am I running late what's the time", "current_time"),
        ("do we have to leave yet, what time is it", "current_time"),
        ("can I still catch the bus what time is it now", "current_time"),
        ("have we missed the deadline what's the date today", "date_info"),
    ],
)
def test_a_yes_no_question_about_the_speaker_then_the_time_asks_the_time(text: str, tool: str) -> None:
    _check(text, tool, {})


def test_a_yes_no_question_about_the_speaker_alone_or_naming_a_place_claims_nothing() -> None:
    assert prematch("am I running late") is None
    assert prematch("can I still phone Tokyo what's the time") is None  # whose clock: here or Tokyo's?
    assert prematch("do I look tired what's the answer") is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("how many weeks until christmas my mum keeps asking", "date_info", {"date": "christmas"}),
        ("what's 15 times 4 my son needs it", "calculate", {"expression": 60}),
        (
            "convert 10 miles to kilometres my coach wants to know",
            "convert_units",
            {"value": 10, "from_unit": "mile", "to_unit": "kilometre"},
        ),
    ],
)
def test_a_clause_about_someone_after_a_question_with_its_value_is_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_clause_about_someone_after_a_question_with_no_value_claims_nothing() -> None:
    assert prematch("what's the date my wife and I met") is None  # the day they met, not today's


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("stop the kitchen timer it's finished", "kitchen"),
        ("turn off the alarm i'm up", "alarm"),
        ("cancel the tea timer it's already done", "tea"),
    ],
)
def test_how_the_thing_stands_said_after_a_cancel_is_no_part_of_it(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("get rid of the gym reminder i've cancelled my membership", "gym reminder"),
        ("switch off my alarm i'm on holiday tomorrow", "alarm"),
        ("shut off the laundry timer we've taken it out", "laundry"),
    ],
)
def test_getting_rid_of_or_switching_off_an_item_then_a_reason_cancels_it(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("cancel the third one", "the third one"),
        ("no wait, delete the first alarm", "the first alarm"),
        ("get rid of the second reminder", "the second reminder"),
    ],
)
def test_an_item_named_by_when_it_was_set_is_cancelled(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})


def test_the_first_one_said_about_something_else_cancels_nothing() -> None:
    assert prematch("the first one was better") is None


@pytest.mark.parametrize("text", ["how far is the sun", "is the sat far away", "how far off is the mon"])
def test_a_weekdays_shortening_after_the_is_a_thing_not_a_day(text: str) -> None:
    assert prematch(text) is None


def test_a_weekday_said_whole_is_still_a_day() -> None:
    _check("how far away is friday", "date_info", {"date": "friday"})


@pytest.mark.parametrize(
    ("text", "task", "when"),
    [
        ("don't let me forget to post the letter remind me tomorrow at 9", "post the letter", "tomorrow at 9"),
        ("make sure I remember to feed the cat, remind me at 5 pm", "feed the cat", "5 pm"),
        ("help me remember to pay the rent so remind me on friday", "pay the rent", "friday"),
    ],
)
def test_remind_me_said_again_after_the_task_is_no_part_of_the_task(text: str, task: str, when: str) -> None:
    _check(text, "set_reminder", {"text": task, "when": when})


@pytest.mark.parametrize(
    ("text", "task", "when"),
    [
        ("remind me at 6 pm to take the bins out every thursday", "take the bins out", "Thursday at 6 pm"),
        ("remind me at 9 am to water the plants every saturday", "water the plants", "Saturday at 9 am"),
    ],
)
def test_a_weekly_repeats_day_after_the_task_is_when_the_reminder_is(text: str, task: str, when: str) -> None:
    _check(text, "set_reminder", {"text": task, "when": when, "repeat": "weekly"})


def test_a_day_in_the_task_of_a_daily_reminder_stays_in_the_task() -> None:
    _check(
        "remind me every day at 7 pm to practise for the concert on sunday",
        "set_reminder",
        {"text": "practise for the concert on sunday", "when": "7 pm", "repeat": "daily"},
    )
