"""The pre-match on round 11's speech families: words said twice, talk to someone else first, pet names, learners' orders.

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from genx.assistant.prematch_speech import addressed, collapse_repeats
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("start a start a timer for 4 minutes", "start a timer for 4 minutes"),
        ("how much how much is 9 times 7", "how much is 9 times 7"),
        ("remind remind me to feed the cat", "remind me to feed the cat"),
        ("delete the delete the pasta timer", "delete the pasta timer"),
        ("I'm off, set a set a timer for 9 minutes", "I'm off, set a timer for 9 minutes"),
    ],
)
def test_a_run_of_words_said_twice_in_a_row_is_said_once(said: str, meant: str) -> None:
    assert collapse_repeats(said) == meant


@pytest.mark.parametrize("said", ["what is 2 times 2 times 2", "what is two times two times two", "add five and five and five"])
def test_a_repeated_run_with_a_number_or_an_operator_is_kept_as_the_amount(said: str) -> None:
    assert collapse_repeats(said) == said


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("start a start a timer for 4 minutes", "set_timer", {"duration": "4 minutes"}),
        ("what's the what's the date tomorrow", "date_info", {"date": "4 March 2026"}),
        ("what time what time is it in Lisbon", "current_time", {"place": "Lisbon"}),
        ("delete delete the pasta timer", "cancel_timer", {"which": "pasta"}),
        ("show me show me my alarms", "list_timers", {}),
    ],
)
def test_a_request_restarted_by_the_speaker_or_whisper_is_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_word_doubled_inside_a_clause_is_kept_as_said() -> None:
    _check("remind me at 6 to say bye bye to Nan", "set_reminder", {"text": "say bye bye to Nan", "when": "6 pm"})


def test_words_said_twice_in_a_question_for_no_tool_claim_nothing() -> None:
    assert prematch("why why is the sky blue") is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("Right everyone, sit down. Parley, set a timer for ten minutes.", "set_timer", {"duration": "10 minutes"}),
        ("Just a sec, Tom. Parley, what's the date today?", "date_info", {}),
        ("No, the blue one! Hey Parley, remind me at 4 pm to pick up the kids", "set_reminder",
         {"text": "pick up the kids", "when": "4 pm"}),
        ("Nana here. Set an alarm for seven tomorrow, please.", "set_alarm", {"time": "7 am tomorrow"}),
        ("This is Sam speaking. What time is it in Oslo?", "current_time", {"place": "Oslo"}),
    ],
)  # fmt: skip
def test_a_request_said_to_parley_after_talk_to_others_or_an_introduction_is_the_request(
    text: str, tool: str, slots: dict[str, Any]
) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text",
    [
        "Okay kids, quiet please. Parley, how are you today?",
        "Grandpa here. I love gardening.",
        "Children, listen. Parley is a computer.",
    ],
)
def test_talk_to_parley_that_asks_for_no_tool_after_other_talk_is_not_claimed(text: str) -> None:
    assert prematch(text) is None


def test_an_utterance_with_no_address_and_no_introduction_has_no_addressed_part() -> None:
    assert addressed("set a timer for Parley's lunch") is None
    assert addressed("Parley, set a timer for 5 minutes") is None  # at the start the name is politeness, dropped anyway


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the date, love", "date_info", {}),
        ("set a timer for 20 minutes, sweetheart", "set_timer", {"duration": "20 minutes"}),
        ("could you tell me the time please, honey? My phone is dead.", "current_time", {}),
        ("the time please, I'm meeting someone at noon", "current_time", {}),
    ],
)
def test_a_pet_name_after_the_request_and_a_reason_after_it_are_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_statement_about_the_time_with_a_reason_is_not_a_request_for_it() -> None:
    assert prematch("the time was wrong, I missed my train") is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("I'm in a meeting, uh, just remind me at 3 pm to call Leo back", "set_reminder", {"text": "call Leo back", "when": "3 pm"}),
        ("you set alarm for 6 tomorrow", "set_alarm", {"time": "6 am tomorrow"}),
        ("please, you make a timer of 2 minutes", "set_timer", {"duration": "2 minutes"}),
        ("please, a timer for 12 minutes", "set_timer", {"duration": "12 minutes"}),
        ("tomorrow morning remind me take my tablets", "set_reminder", {"text": "take my tablets", "when": "tomorrow morning"}),
        ("remind me buy bread at 6 pm", "set_reminder", {"text": "buy bread", "when": "6 pm"}),
    ],
)
def test_a_pause_before_a_command_and_a_learners_word_orders_keep_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["you make me laugh", "remind me what we were talking about", "you set the table"])
def test_a_learners_order_with_no_tool_value_is_not_claimed(text: str) -> None:
    assert prematch(text) is None
