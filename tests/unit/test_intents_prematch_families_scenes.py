"""The pre-match on round 10's families for timers, alarms, reminders, lists and cancels (new phrasings, not the bench's).

A scene ended by "so", thinking aloud settled by "oh yes"/"yeah", very polite
wrappers, British and Scottish words, "give me a shout in …", a weekday said
with its day of the month, and an item named in a clause before "cancel it".
Slots are compared by meaning with the bench's scorer (its fixed "now": Tuesday
3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("give us a timer for five minutes", {"duration": "5 minutes"}),
        ("give us a wee timer for 3 minutes for the tea", {"duration": "3 minutes", "label": "tea"}),
        ("please be so kind as to set a timer for 4 minutes", {"duration": "4 minutes"}),
        ("give me a shout in half an hour", {"duration": "30 minutes"}),
        ("I'm having a nap, give me a call in 45 minutes", {"duration": "45 minutes"}),
        ("an hour and a half timer", {"duration": "90 minutes"}),
        ("a minute timer", {"duration": "1 minute"}),
        ("the rice is on so set a timer for 15 minutes", {"duration": "15 minutes"}),
        ("where was I, oh yes, set a timer for 8 minutes", {"duration": "8 minutes"}),
    ],
)
def test_timers_in_regional_words_polite_wrappers_and_after_a_scene_are_set(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_timer", slots)


@pytest.mark.parametrize("text", ["give me a shout when you're free", "an egg timer", "oh yes, I forgot"])
def test_a_shout_with_no_length_or_a_timer_named_by_its_kind_is_not_set(text: str) -> None:
    assert prematch(text) is None


def test_a_question_after_thinking_aloud_is_not_claimed_as_a_command() -> None:
    assert prematch("what was it, oh yes, what's the capital of France") is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("could you be so kind as to set an alarm for 7 am, thanks very much", {"time": "7 am"}),
        ("I'm off to bed so wake me at 6", {"time": "6 am"}),
        ("I have to get up at 5 tomorrow so set an alarm for then", {"time": "tomorrow at 5 am"}),
    ],
)
def test_alarms_after_a_scene_or_a_wake_up_time_then_for_then_are_set(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_alarm", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("the kids are asleep so set a reminder for 9 pm to check on them", {"text": "check on them", "when": "9 pm"}),
        ("let me think, yeah, remind me at 5 to call mum", {"text": "call mum", "when": "at 5"}),
        ("remind me on Friday the 13th to buy a horseshoe", {"text": "buy a horseshoe", "when": "13 March"}),
        ("set a reminder for Thursday the 12th at 3 pm to call the bank", {"text": "call the bank", "when": "12 March at 3 pm"}),
    ],
)
def test_reminders_after_a_scene_or_on_a_weekday_with_its_date_are_set(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize(
    "text",
    [
        "have I any timers running",
        "what alarms do I have coming up tomorrow",
        "show me everything that's scheduled",
        "list everything I've set",
    ],
)
def test_have_i_any_coming_up_and_everything_set_list_the_items(text: str) -> None:
    _check(text, "list_timers", {})


def test_everything_with_nothing_said_about_being_set_is_not_a_list() -> None:
    assert prematch("show me everything") is None


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("the pasta timer, cancel it", "pasta"),
        ("I'm done with the kitchen timer, get rid of it", "kitchen"),
        ("the 7 am alarm was a mistake, delete it", "7 am"),
    ],
)
def test_an_item_named_in_a_clause_before_cancel_it_is_the_one_cancelled(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which})


@pytest.mark.parametrize("text", ["my run is over, cancel it", "I don't like the alarm sound, cancel it"])
def test_a_clause_naming_no_item_leaves_cancel_it_to_the_tool(text: str) -> None:
    got = prematch(text)
    assert got is not None and got.tool == "cancel_timer" and dict(got.arguments) == {}
