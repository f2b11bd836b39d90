"""The pre-match on round 20's families: office and remote workers, commuters, polite older speakers, non-native word
order, UK/Irish/Australian/Indian idioms. The British "half seven" after a word that puts a time there; a question inside
another in the statement's order ("what the time is in …"); "to day"; "said an alarm"; "four" heard for "for"; "pop a
timer on"; "one and a half hour"; "if you would" at the end; "which day falls …", "how many days left for …", "if I
divide …, what I get"; a list to total parted by "and" each time; a reason after a pause about a thing that happened, or
with no pause what a thing is; a bare clock after a clause about the speaker's clock or calendar; "chapter 4" in a
reminder's task; "quarter to one" as 12:45 or 0:45.

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from genx.assistant import prematch
from genx.toolbox.reminders.when import parse_when
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("wake me at half six on friday", "set_alarm", {"time": "friday at 6:30 am"}),
        ("set an alarm for half nine tomorrow", "set_alarm", {"time": "tomorrow at 9:30"}),
        ("remind me to lock up at half eleven tonight", "set_reminder", {"text": "lock up", "when": "11:30 pm"}),
        ("remind me by half 4 to send the report", "set_reminder", {"text": "send the report", "when": "4:30 pm"}),
    ],
)
def test_the_british_half_and_an_hour_after_a_word_of_when_is_half_past_that_hour(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "duration"),
    [
        ("set a timer for half an hour", "30 minutes"),
        ("a timer for half past nothing", None),
    ],
)
def test_half_before_an_hour_or_a_unit_stays_a_duration(text: str, duration: str | None) -> None:
    got = prematch(text)
    if duration is None:
        assert got is None or "duration" not in got.arguments or "30" not in str(got.arguments["duration"]), (text, got)
    else:
        _check(text, "set_timer", {"duration": duration})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("could you tell me what the time is in Lisbon", "current_time", {"place": "Lisbon"}),
        ("I was wondering what the date is today", "date_info", {}),
        ("do you happen to know what the time is now", "current_time", {}),
    ],
)
def test_a_question_inside_another_in_the_statements_order_is_the_question(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the date to day", "date_info", {}),
        ("what day is it to morrow", "date_info", {"date": "tomorrow"}),
        ("said a timer for 6 minutes", "set_timer", {"duration": "6 minutes"}),
        ("said an alarm for 5:45 am", "set_alarm", {"time": "5:45 am"}),
        ("start the timer four 25 minutes", "set_timer", {"duration": "25 minutes"}),
    ],
)
def test_a_recognisers_slip_of_one_word_for_another_is_the_word_meant(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text",
    [
        "I said to day one of the course",
        "she said an alarm went off",
        "how do I get to day care",
    ],
)
def test_said_and_to_day_outside_a_request_are_not_claimed(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("pop an alarm on for 6 am", "set_alarm", {"time": "6 am"}),
        ("stick a timer on for 4 minutes", "set_timer", {"duration": "4 minutes"}),
        ("bung a reminder in for 3 pm to ring the vet", "set_reminder", {"text": "ring the vet", "when": "3 pm"}),
    ],
)
def test_pop_stick_and_bung_before_a_timer_or_an_alarm_are_put(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_pop_before_something_no_tool_sets_is_not_claimed() -> None:
    assert prematch("pop the kettle on") is None


@pytest.mark.parametrize(
    ("text", "duration"),
    [
        ("a timer for two and a half hour", "2 hours 30 minutes"),
        ("set a timer for 3 and a half minute", "3 minutes 30 seconds"),
        ("a 20 second timer if you would be so kind", "20 seconds"),
        ("set a timer for 9 minutes, if you don't mind", "9 minutes"),
    ],
)
def test_a_number_and_a_half_before_its_unit_and_a_polite_if_you_would_read_as_the_length(text: str, duration: str) -> None:
    _check(text, "set_timer", {"duration": duration})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("which day falls Christmas this year", {"date": "Christmas"}),
        ("what date falls Good Friday", {"date": "Good Friday"}),
        ("how many days left for Halloween", {"date": "Halloween"}),
        ("how many weeks is it now until Christmas", {"date": "Christmas"}),
    ],
)
def test_a_date_question_in_a_learners_order_is_the_date_question(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("if I multiply 12 by 11, what do I get", 132),
        ("if i take 50 and divide it by 4 what would i get", 12.5),
        ("add 12 and 30 and 8", 50),
        ("what do i get if i add 5 and 6 and 7 and 8", 26),
        ("quick maths, 9 times 7", 63),
    ],
)
def test_the_condition_before_its_question_and_a_list_parted_by_and_are_sums(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    "text",
    [
        "if i add salt what do i get",
        "if I leave now, what time do I get there",
    ],
)
def test_a_condition_with_no_numbers_or_no_sum_is_not_claimed(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("cancel my alarm, the trip got postponed", "cancel_timer", {"which": "alarm"}),
        ("stop the pasta timer, the water boiled over", "cancel_timer", {"which": "pasta"}),
        ("convert 5 miles to kilometres the map's metric", "convert_units", {"value": 5, "from_unit": "miles", "to_unit": "kilometers"}),
        ("what's the date today, weekends are a blur", "date_info", {}),
    ],
)
def test_a_reason_after_a_whole_request_about_a_thing_leaves_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("the microwave clock is flashing, what's the time", "current_time"),
        ("the calendar fell off the wall, what's the date", "date_info"),
        ("after my shift, what's the time in Dubai", "current_time"),
    ],
)
def test_a_clause_about_the_speakers_clock_or_calendar_then_a_pause_sets_the_scene_for_the_bare_clock(text: str, tool: str) -> None:
    got = prematch(text)
    assert got is not None and got.tool == tool, (text, got)


@pytest.mark.parametrize(
    "text",
    [
        "the clock in the Denver office is dead, what time is it",
        "the meeting is on thursday, what day is it",
        "the flight lands at 9, what's the time",
        "my phone alarm went off, what's the time",
        "the kids are asleep, what time is it",
        "the clock on the wall says noon, what's the date",
    ],
)
def test_a_clause_about_anything_but_a_failing_clock_or_naming_a_day_or_a_time_before_the_bare_clock_is_not_claimed(text: str) -> None:
    got = prematch(text)
    assert got is None or got.arguments, (text, got)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("hiya, what time is it", "current_time", {}),
        ("what time have you got", "current_time", {}),
        ("what time is it for my cousin in Toronto", "current_time", {"place": "Toronto"}),
        ("remind me what reminders I've got", "list_timers", {}),
        ("what's set in my alarms", "list_timers", {}),
    ],
)
def test_informal_and_statement_order_questions_about_the_clock_and_the_list(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("remind me to read chapter 7 tomorrow", {"text": "read chapter 7", "when": "tomorrow"}),
        ("remind me to meet at gate 12 at 6 pm", {"text": "meet at gate 12", "when": "6 pm"}),
        ("remind me to call Sam at 4 tomorrow", {"text": "call Sam", "when": "tomorrow at 4"}),
    ],
)
def test_a_number_after_a_noun_it_numbers_stays_in_the_reminders_task(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize(
    ("text", "hour", "expected"),
    [
        ("quarter to one", 10, (12, 45)),
        ("ten to one", 23, (0, 50)),
        ("quarter to one pm", 23, (12, 45)),
        ("twenty to two", 10, (13, 40)),
    ],
)
def test_minutes_to_one_with_no_am_or_pm_is_whichever_of_the_two_comes_first(text: str, hour: int, expected: tuple[int, int]) -> None:
    when = parse_when(text, datetime(2026, 3, 3, hour, 0, tzinfo=ZoneInfo("Europe/Paris"))).when
    assert (when.hour, when.minute) == expected, (text, when)
