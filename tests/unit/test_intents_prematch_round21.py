"""The pre-match on round 21's families: Singapore/Malaysian and Canadian particles at the end ("… lah", "… eh"),
Singapore English "can <verb> … or not" / "… can", NZ/Australian "sweet as, …" and "chuck on a timer", "how many days have I
got until …", a clause after a pause saying what a question's value is to the speaker ("…, that's when my lease ends"), and
"…, not needed anymore" after a cancel.

New phrasings, not the bench's. Slots are compared by meaning with the bench's scorer, expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the time in Penang lah", "current_time", {"place": "Penang"}),
        ("set a timer for 4 minutes leh", "set_timer", {"duration": "4 minutes"}),
        ("how many days until Victoria Day, eh", "date_info", {"date": "Victoria Day"}),
        ("what's 9 times 7 lor", "calculate", {"expression": 63}),
        ("what time is it in Ipoh la", "current_time", {"place": "Ipoh"}),
    ],
)
def test_a_discourse_particle_as_the_last_word_is_no_part_of_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_place_that_begins_with_a_particle_keeps_it() -> None:
    _check("what time is it in La Paz", "current_time", {"place": "La Paz"})


@pytest.mark.parametrize("text", ["tell me a joke lah", "how far is Ottawa eh", "is it raining leh"])
def test_a_particle_after_something_no_tool_does_leaves_it_to_the_model(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("can set a timer five minutes or not", "set_timer", {"duration": "5 minutes"}),
        ("can wake me up at 7:15 am can", "set_alarm", {"time": "7:15 am"}),
        ("can convert 3 kilometres to miles or not", "convert_units", {"value": 3, "from_unit": "km", "to_unit": "mile"}),
        ("can remind me to buy bread at 6 pm or not", "set_reminder", {"text": "buy bread", "when": "6 pm"}),
    ],
)
def test_singapore_can_before_a_verb_with_or_not_or_can_after_is_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["can you set alarms or not", "can set alarm or not", "can or not"])
def test_asking_whether_the_feature_exists_or_naming_no_value_stays_none(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("sweet as, whack on a timer for 20 minutes", "set_timer", {"duration": "20 minutes"}),
        ("righto, chuck a timer on for 7 minutes", "set_timer", {"duration": "7 minutes"}),
        ("no worries, what's 15 plus 27", "calculate", {"expression": 42}),
        ("slap on an alarm for 6 am", "set_alarm", {"time": "6 am"}),
    ],
)
def test_nz_and_australian_leads_and_verbs_of_putting_on_are_the_plain_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("how many days have I got until the third of June", "3 June"),
        ("how long have we got till Boxing Day", "Boxing Day"),
    ],
)
def test_how_many_days_have_i_got_until_is_the_days_until(text: str, date: str) -> None:
    _check(text, "date_info", {"date": date})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("How many days until the ninth of May? That's my driving test.", "date_info", {"date": "9 May"}),
        ("What's the date in 30 days? That's when my lease ends.", "date_info", {"date": "in 30 days"}),
        (
            "What's 23 kilograms in pounds? That's the luggage allowance.",
            "convert_units",
            {"value": 23, "from_unit": "kg", "to_unit": "pound"},
        ),
        ("What time is it in Perth? That's where my brother lives.", "current_time", {"place": "Perth"}),
    ],
)
def test_a_sentence_saying_what_a_questions_value_is_to_the_speaker_is_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["That's my final exam.", "That's when my visa runs out.", "what's the time, that's my bus"])
def test_a_value_clause_alone_or_after_a_question_with_no_value_stays_none(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("Stop the alarm please, not needed any more", "alarm"),
        ("delete my reminder, no longer needed", "reminder"),
        ("cancel the pasta timer, don't need it now", "pasta"),
    ],
)
def test_a_cancel_then_saying_it_is_not_needed_is_the_cancel(text: str, which: str) -> None:
    got = prematch(text)
    assert got is not None and got.tool == "cancel_timer", (text, got)
    assert which in str(got.arguments.get("which", "")).lower(), (text, got)


def test_not_needed_after_a_request_that_sets_something_is_not_a_cancel() -> None:
    got = prematch("set an alarm for 8 am, not needed anymore")
    assert got is None or got.tool != "cancel_timer", got
