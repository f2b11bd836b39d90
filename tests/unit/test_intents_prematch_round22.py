"""The pre-match on round 22's families: young people's slang and texting shorthand ("u", "wat", "rn", "ngl", "bro",
"lemme", "time check"), requests wrapped in context (why said before or after, the value said first, whose clock as where
someone lives, "do me a … timer", "have I got any … coming up") and disfluent speech (stutters, restarts after a pause,
hesitations, thinking aloud, a stray last word).

New phrasings, not the bench's. Slots are compared by meaning with the bench's scorer, expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from genx.assistant.prematch_disfluency import fluent
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("can u tell me wat the date is", "date_info", {}),
        ("wats the time in Oslo rn", "current_time", {"place": "Oslo"}),
        ("timer fer 25 mins pls", "set_timer", {"duration": "25 minutes"}),
        ("do u no the time in Lima", "current_time", {"place": "Lima"}),
        ("plz set an alarm for 7:15 am", "set_alarm", {"time": "7:15 am"}),
    ],
)
def test_texting_shorthand_is_read_as_the_words_it_stands_for(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("ngl whats 12 times 12", "calculate", {"expression": 144}),
        ("bruh set a timer for 9 minutes", "set_timer", {"duration": "9 minutes"}),
        ("what time is it in Cairo fr", "current_time", {"place": "Cairo"}),
        ("lowkey how many days until new years", "date_info", {"date": "new years"}),
        ("remind me to feed the cat at 6 pm tbh", "set_reminder", {"text": "feed the cat", "when": "6 pm"}),
    ],
)
def test_slang_fillers_are_no_word_of_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_brother_called_bro_in_a_reminder_stays_in_its_task() -> None:
    _check("remind me to call my bro at 8 pm", "set_reminder", {"text": "call my bro", "when": "8 pm"})


def test_a_spelt_u_stays_a_letter() -> None:
    _check("what time is it in u t c", "current_time", {"place": "UTC"})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("lemme convert 3 liters to cups", "convert_units", {"value": 3, "from_unit": "liter", "to_unit": "cup"}),
        ("lemme see the alarms", "list_timers", {}),
        ("lemme get an alarm for 6 am", "set_alarm", {"time": "6 am"}),
        ("time check", "current_time", {}),
        ("what alarms we got", "list_timers", {}),
    ],
)
def test_let_me_and_time_check_are_the_requests_they_stand_for(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["ngl that was funny", "lemme think about it", "bro you're hilarious", "u there"])
def test_slang_around_no_request_leaves_it_to_the_model(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what time is it where my cousin works in Dubai", "current_time", {"place": "Dubai"}),
        ("my brother's working in Lagos, what time is it for him", "current_time", {"place": "Lagos"}),
    ],
)
def test_time_for_another_person_is_the_time_where_they_are(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("would you do me a twelve minute timer", "set_timer", {"duration": "12 minutes"}),
        ("get me an alarm for 5 am", "set_alarm", {"time": "5 am"}),
        ("do we have any timers running", "list_timers", {}),
        ("have I got any alarms set", "list_timers", {}),
        ("wake me at 7 am on the dot", "set_alarm", {"time": "7 am"}),
    ],
)
def test_do_me_a_timer_and_have_i_got_any_are_the_plain_requests(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_do_me_a_favour_is_no_timer() -> None:
    assert prematch("could you do me a favour") is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("twenty minutes. start a timer", "set_timer", {"duration": "20 minutes"}),
        ("Pasta timer. Nine minutes.", "set_timer", {"duration": "9 minutes", "label": "pasta"}),
        ("Rome. What's the time in Rome", "current_time", {"place": "Rome"}),
    ],
)
def test_the_value_said_first_as_a_sentence_of_its_own_goes_with_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("the recipe is in grams, how many ounces is 200 grams", "convert_units", {"value": 200, "from_unit": "gram", "to_unit": "ounce"}),
        ("we're sharing the bill, what's 84 divided by 3", "calculate", {"expression": 28}),
        ("set an alarm for 5:30 am, I've got a train to catch", "set_alarm", {"time": "5:30 am"}),
        ("rice timer for 12 minutes, it's basmati", "set_timer", {"duration": "12 minutes", "label": "rice"}),
    ],
)
def test_a_clause_of_context_around_a_whole_request_is_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["my sister lives in Vancouver", "the recipe is in grams, it's from France", "ten minutes. that's all"])
def test_context_with_no_request_in_it_leaves_it_to_the_model(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what is is the date", "date_info", {}),
        ("set a timer for for 8 minutes", "set_timer", {"duration": "8 minutes"}),
        ("what's the time in in Athens", "current_time", {"place": "Athens"}),
        ("stop all all timers", "cancel_timer", {"which": "all"}),
        ("how how many days until Diwali", "date_info", {"date": "Diwali"}),
        ("how many days un until Easter", "date_info", {"date": "Easter"}),
    ],
)
def test_a_word_said_twice_or_broken_off_is_said_once(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_for_said_twice_before_a_unit_of_time_is_the_number_four() -> None:
    _check("set a timer for for hours", "set_timer", {"duration": "4 hours"})


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("what's twenty twenty minus nineteen ninety", "what's twenty twenty minus nineteen ninety"),
        ("what's two two times three", "what's two two times three"),
        ("no no set a timer for 5 minutes", "no no set a timer for 5 minutes"),
    ],
)
def test_a_doubled_number_word_or_a_meant_doubling_stays(text: str, said: str) -> None:
    assert fluent(text) == said


def test_bye_bye_in_a_reminder_stays_doubled() -> None:
    _check("remind me to wave bye bye to Nan at 4 pm", "set_reminder", {"text": "wave bye bye to Nan", "when": "4 pm"})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the, uh, what's the date today", "date_info", {}),
        ("set a timer for, um, for six minutes", "set_timer", {"duration": "6 minutes"}),
        ("how much is, how much is 9 times 6", "calculate", {"expression": 54}),
        ("what's the time in, er, in Vienna", "current_time", {"place": "Vienna"}),
        ("set an alarm for seven, um, seven thirty am", "set_alarm", {"time": "7:30 am"}),
        ("how long until my, until Easter", "date_info", {"date": "Easter"}),
    ],
)
def test_a_restart_after_a_pause_is_said_once(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_new_clause_starting_with_the_same_article_is_no_restart() -> None:
    _check("cancel the alarm, the one for tomorrow", "cancel_timer", {"which": "alarm"})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("hmm let me think, what's 6 times 7", "calculate", {"expression": 42}),
        ("let me think, okay, set a timer for 15 minutes", "set_timer", {"duration": "15 minutes"}),
        ("mm what's the date", "date_info", {}),
        ("uh huh what time is it in Rome", "current_time", {"place": "Rome"}),
        ("wait what's the date today", "date_info", {}),
        ("what's 5 miles in kilometers, hmm", "convert_units", {"value": 5, "from_unit": "miles", "to_unit": "km"}),
        ("what time is it in Cairo the", "current_time", {"place": "Cairo"}),
        ("set a timer for 3 minutes yeah", "set_timer", {"duration": "3 minutes"}),
    ],
)
def test_hesitations_thinking_aloud_and_a_stray_last_word_are_no_part_of_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["um, hmm", "let me think", "wait wait wait", "no no no"])
def test_disfluency_with_no_request_leaves_it_to_the_model(text: str) -> None:
    assert prematch(text) is None, text


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("start a time for 90 seconds", "set_timer", {"duration": "90 seconds"}),
        ("set the time for twenty minutes", "set_timer", {"duration": "20 minutes"}),
    ],
)
def test_time_heard_for_timer_before_a_length_of_time_is_a_timer(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_a_time_for_an_event_is_no_timer() -> None:
    assert prematch("set a time for the meeting") is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [("need the time in Perth", "current_time", {"place": "Perth"}), ("i need the date ngl", "date_info", {})],
)
def test_a_question_texted_without_its_subject_is_the_question(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_needing_time_off_is_no_question() -> None:
    assert prematch("need the time off work") is None
