"""The pre-match on round 12's families: slang leads, Whisper's number homophones, piled-up politeness, and how far
another place's clock is from ours.

New phrasings, not the bench's. Slots are compared by meaning with the bench's
scorer (its fixed "now": Tuesday 3 March 2026 10:00 in Paris), expected values written here by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from genx.assistant.prematch_shorthand import shorthand_words
from genx.assistant.prematch_slang import plain_words
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("gimme a sec", "give me a sec"),
        ("I wanna go home", "I want to go home"),
        ("it's gonna rain", "it's going to rain"),
        ("I'd like to be reminded to stretch", "remind me to stretch"),
        ("gonna need an alarm for six", "I need an alarm for six"),
    ],
)
def test_slang_reads_as_the_plain_words(said: str, meant: str) -> None:
    assert plain_words(shorthand_words(said)) == meant  # the pre-match's order: informal spellings first


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("a countdown for too hours", "a countdown for two hours"),
        ("remind me in for minutes", "remind me in four minutes"),
        ("alarm at to fifteen", "alarm at two fifteen"),
        ("wake me up at for o'clock", "wake me up at four o'clock"),
        ("remind us too feed the cat", "remind us to feed the cat"),
    ],
)
def test_a_number_heard_as_a_word_reads_as_the_number_where_only_a_number_can_stand(said: str, meant: str) -> None:
    assert plain_words(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "I'm off to bed",
        "we waited for for ever",
        "look at to thirty pages",  # no wake-up: "at to" is left as said
        "I went in to town",
        "I'd like that too",
        "he was too late for minutes of the meeting",
    ],
)
def test_words_that_are_no_number_stay_as_said(said: str) -> None:
    assert plain_words(said) == said


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("gimme a timer for 9 minutes", "set_timer", {"duration": "9 minutes"}),
        ("wanna start a timer for 20 minutes", "set_timer", {"duration": "20 minutes"}),
        ("I wanna wake up at 6:45", "set_alarm", {"time": "6:45 am"}),
        ("gonna need a reminder to text Priya at 5 pm", "set_reminder", {"text": "text Priya", "when": "5 pm"}),
        ("I'd like to be reminded to renew the passport tomorrow", "set_reminder", {"text": "renew the passport", "when": "tomorrow"}),
        ("gimme 48 divided by 6", "calculate", {"expression": 8}),
        ("gimme the time in Lima", "current_time", {"place": "Lima"}),
    ],
)
def test_requests_said_in_slang_go_to_their_tool(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("start a countdown for too hours", "set_timer", {"duration": "2 hours"}),
        ("set a timer for fore minutes", "set_timer", {"duration": "4 minutes"}),
        ("get me up at for fifteen", "set_alarm", {"time": "4:15 am"}),
        ("remind me too water the basil tonight", "set_reminder", {"text": "water the basil", "when": "tonight"}),
    ],
)
def test_requests_with_a_number_heard_as_a_word_get_the_number(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text", ["gimme a break", "I wanna go to the beach", "it's gonna be a long day", "gimme five", "I wanna set the table"]
)
def test_slang_that_asks_no_tool_is_not_claimed(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("could you maybe just set a timer for 3 minutes", "set_timer", {"duration": "3 minutes"}),
        ("sorry to trouble you, but what's the date", "date_info", {}),
        ("hi, sorry to interrupt you but could you tell me the time", "current_time", {}),
        ("whats todays date", "date_info", {}),
        ("remind me what time it is in Oslo", "current_time", {"place": "Oslo"}),
        ("what's the time in Quito by any chance", "current_time", {"place": "Quito"}),
        ("what's the time in Ireland at the minute", "current_time", {"place": "Ireland"}),
    ],
)
def test_politeness_piled_up_or_an_aside_around_a_request_is_no_part_of_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


def test_remind_me_what_to_do_stays_a_reminder_question_for_the_model() -> None:
    assert prematch("sorry to bother you, remind me what to buy") is None


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("how many hours behind is Chicago", "Chicago"),
        ("how many hours ahead of us is Seoul", "Seoul"),
        ("what's the time difference with Dubai", "Dubai"),
        ("is it too early to phone my brother in Vancouver", "Vancouver"),
        ("is it too late to text the team in Singapore", "Singapore"),
    ],
)
def test_how_far_a_places_clock_is_from_ours_asks_its_time(text: str, place: str) -> None:
    _check(text, "current_time", {"place": place})


@pytest.mark.parametrize(
    "text",
    [
        "how many hours ahead is the project",
        "is it too late to call in sick",
        "is it too late to call the plumber in the morning",
        "what's the time difference with daylight saving",
    ],
)
def test_how_far_ahead_of_something_that_is_no_place_is_not_claimed(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("nudge me in 40 minutes to take the washing out", {"text": "take the washing out", "when": "in 40 minutes"}),
        ("can you give me a shout at 4 pm to ring the school", {"text": "ring the school", "when": "4 pm"}),
        ("buzz me to stretch in an hour", {"text": "stretch", "when": "in an hour"}),
    ],
)
def test_a_nudge_that_says_what_to_do_is_a_reminder(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize(
    ("text", "duration"),
    [("nudge me in twenty", "20 minutes"), ("give me a buzz in 2 hours", "2 hours"), ("hey, poke me in half an hour", "30 minutes")],
)
def test_a_nudge_that_says_only_how_long_is_a_timer(text: str, duration: str) -> None:
    _check(text, "set_timer", {"duration": duration})


@pytest.mark.parametrize(
    "text",
    [
        "my boss will ping me in 15 minutes",
        "ping me the link",
        "ping me when you're done",
        "give me a shout in the morning",
        "ping me a message to say hi",
    ],
)
def test_a_nudge_that_is_news_or_says_no_wait_is_not_claimed(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    "text", ["anything set for Friday, reminders or timers", "anything coming up", "is there anything scheduled, timers and alarms"]
)
def test_anything_scheduled_asked_bare_lists_what_is_set(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize("text", ["anything else", "anything scheduled on the radio tonight", "anything set in stone yet"])
def test_anything_about_other_things_is_not_a_list(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("tell me which day Easter is", "5 April 2026"),
        ("I wonder what day the 4th of July will fall on next year", "4 July 2027"),
        ("I need to know what weekday the 20th of May is", "20 May 2026"),
    ],
)
def test_a_day_question_in_statement_order_asks_the_day_of_its_date(text: str, date: str) -> None:
    _check(text, "date_info", {"date": date})


@pytest.mark.parametrize("text", ["I need to know what day the meeting is", "tell me what day my birthday falls on"])
def test_a_day_question_about_something_that_is_no_date_is_not_claimed(text: str) -> None:
    assert prematch(text) is None
