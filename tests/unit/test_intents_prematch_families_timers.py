"""The pre-match on phrasing families for timers, alarms and reminders, around any request, and chat that only looks like one.

Commas as pauses, spoken clock times, second thoughts before a cancel, a scene
set before the request, greetings and hedges. New phrasings of each family,
not the bench's; slots compared by meaning (:func:`bench.tool_slots.slots_ok`,
"now" Tuesday 3 March 2026 10:00 in Paris), expected values written by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("I'm boiling eggs, set a timer for seven minutes", "set_timer", {"duration": "7 minutes"}),
        ("we took the cake out, cancel the oven timer", "cancel_timer", {"which": "oven"}),
        ("I have a call soon, what time is it", "current_time", {}),
        ("set a reminder for Monday at 10: dentist", "set_reminder", {"text": "dentist", "when": "Monday at 10"}),
    ],
)
def test_a_request_after_a_scene_setting_clause_or_a_colon_is_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("set a timer, ten minutes, for the laundry", {"duration": "10 minutes", "label": "laundry"}),
        ("start a tea timer, three minutes", {"duration": "3 minutes", "label": "tea"}),
        ("timer for the pasta, 8 minutes", {"duration": "8 minutes", "label": "pasta"}),
        ("set a timer, for the eggs, seven minutes", {"duration": "7 minutes", "label": "eggs"}),
        ("a countdown, ninety seconds", {"duration": "90 seconds"}),
        ("could I get a little timer going, four minutes", {"duration": "4 minutes"}),
        ("set an alarm, 6 am, called gym", {"time": "6 am", "label": "gym"}),
        ("set a timer for 9 minutes and call it rice", {"duration": "9 minutes", "label": "rice"}),
        ("set a 3 minute timer and name it tea", {"duration": "3 minutes", "label": "tea"}),
        ("set an alarm for 6 am, label it run", {"time": "6 am", "label": "run"}),
    ],
)
def test_a_length_and_a_name_split_by_commas_or_call_it_are_read_apart(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_alarm" if "alarm" in text else "set_timer", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("set a timer for the eggs for 6 minutes", {"duration": "6 minutes", "label": "eggs"}),
        ("set a timer to go off in 15 minutes", {"duration": "15 minutes"}),
        ("start a countdown that ends in 20 seconds", {"duration": "20 seconds"}),
        ("set a timer for three quarters of an hour", {"duration": "45 minutes"}),
        ("set a timer for 1 hour 20", {"duration": "80 minutes"}),
        ("set a timer for a half hour", {"duration": "30 minutes"}),
        ("put fifteen minutes on the timer", {"duration": "15 minutes"}),  # "on the" is no name
        ("give me 2 minutes on a timer", {"duration": "2 minutes"}),
    ],
)
def test_timer_lengths_said_loosely_are_read_whole(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_timer", slots)


@pytest.mark.parametrize(
    ("text", "time"),
    [
        ("wake me at quarter to seven tomorrow", "tomorrow at 6:45 am"),
        ("wake me up at twenty past five", "5:20 am"),
        ("get me up at half past eight", "8:30 am"),
        ("wake me up at half past seven pm", "7:30 pm"),  # said: kept
        ("set a wake up alarm for 6", "6 am"),
        ("make sure I'm up by half past five", "5:30 am"),
    ],
)
def test_a_wake_up_at_a_spoken_clock_time_is_in_the_morning(text: str, time: str) -> None:
    _check(text, "set_alarm", {"time": time})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("remind me in twenty minutes, check the oven", {"text": "check the oven", "when": "in 20 minutes"}),
        ("remind me tomorrow, pay the rent", {"text": "pay the rent", "when": "tomorrow"}),
    ],
)
def test_a_comma_between_a_reminders_moment_and_its_text_is_a_pause(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("remind me on the 5th of May to book the hotel", {"text": "book the hotel", "when": "5 May"}),
        ("remind me the day after tomorrow to water the plants", {"text": "water the plants", "when": "5 March at 9 am"}),
        ("remind me to ring the garage in two hours' time", {"text": "ring the garage", "when": "in 2 hours"}),
        ("remind me to stir the soup in 20", {"text": "stir the soup", "when": "in 20 minutes"}),
        ("remind me of the parents' evening on Thursday", {"text": "the parents' evening", "when": "Thursday"}),
        ("remind me daily to feed the cat at 7 am", {"text": "feed the cat", "when": "7 am", "repeat": "daily"}),
    ],
)
def test_reminder_moments_said_with_a_date_a_day_phrase_or_a_bare_count_read_whole(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize(
    "text",
    [
        "what alarms are currently set",
        "are there any reminders at the moment",
        "which timers are running now",
        "what time is my alarm set for",
        "what time does my alarm go off",
        "is there an alarm set for tomorrow",
        "did I set an alarm",
        "how many minutes left on the timer",
    ],
)
def test_questions_about_what_is_set_now_or_when_it_rings_list_the_timers(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    "text",
    [
        "what alarms have I got going",
        "which reminders do I have set for Friday",
        "how's the rice timer doing",
        "is the egg timer done yet",
        "how long till my alarm",
        "how long do I have until the timer goes off",
        "is my alarm on for Monday",
    ],
)
def test_how_a_timer_is_doing_and_what_is_set_for_a_day_list_the_timers(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    ("text", "which"),
    [
        ("on second thought, delete the pasta timer", "pasta"),
        ("no no, scrap that", ""),
        ("hmm, actually, never mind, cancel it", ""),
        ("oh, forget it, silence the alarm", "alarm"),
        ("changed my mind, dismiss that", ""),
        ("cancel tomorrow's alarm", "tomorrow"),
        ("cancel them all", "all"),
        ("I don't want the alarm anymore", "alarm"),
        ("no need for the pasta timer any more", "pasta"),
    ],
)
def test_a_cancel_after_second_thoughts_cancels(text: str, which: str) -> None:
    _check(text, "cancel_timer", {"which": which} if which else {})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("um, could you maybe set a timer for 4 minutes", "set_timer", {"duration": "4 minutes"}),
        ("would you be able to tell me the time in Oslo", "current_time", {"place": "Oslo"}),
        ("can you do me a favour and convert 3 miles to km", "convert_units", {"value": 3, "from_unit": "mile", "to_unit": "km"}),
        ("hi there, what's 6 times 8", "calculate", {"expression": 48}),
        ("good evening, what's the date", "date_info", {}),
        ("let me see, what's 20 percent of 90", "calculate", {"expression": 18}),
        ("yeah, cancel the alarm", "cancel_timer", {"which": "alarm"}),
        ("alexa, what time is it", "current_time", {}),
        ("could you help me set a timer for 3 minutes", "set_timer", {"duration": "3 minutes"}),
        ("and how many feet are in a yard", "convert_units", {"value": 1, "from_unit": "yard", "to_unit": "foot"}),
        ("what's the time please and thank you", "current_time", {}),
        ("set an alarm for six oh five", "set_alarm", {"time": "6:05"}),
        ("wake me at seven oh five", "set_alarm", {"time": "7:05 am"}),
    ],
)
def test_greetings_hedges_and_thanks_around_a_request_do_not_hide_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text",
    [
        "the timer, 10 minutes ago, went off",
        "set a timer, I'm cooking",
        "set a timer I'm cooking",
        "forget it, I'll do it myself",
        "actually, never mind, I'll ask later",
        "on second thought, tell me a joke",
        "forget about it, cancel the meeting",
        "next Friday, what are we doing",
        "my birthday, what day is it",
        "the meeting, what time is it",
        "I set a timer for 10 minutes, but it never went off",
        "we lost the game, what a shame",
        "my mom, what time is it there",
        "I'm 6 feet 2 inches tall",
        "three quarters of the class passed",
        "add 5 minutes to the pasta timer",  # no tool lengthens a running timer
        "delete everything",  # the conversation? the memory? not only timers
        "I don't want the alarm clock you recommended",
        "I'm up at 7 most days",
        "is this the first time",
        "is Friday a holiday",
        "I wonder why the sky is blue",
        "good evening",
        "can you remind me what the",  # a cut-off question: "the" is no moment
        "hey there",
        "there are 5 timers in the kitchen",
        "yes",
        "what time is the match tonight",
        "what's 5 minutes from now",
    ],
)
def test_chat_with_those_families_words_is_no_tool_request(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("set a timer for the eggs six minutes", {"duration": "6 minutes", "label": "eggs"}),
        ("start a timer for pasta 8 minutes", {"duration": "8 minutes", "label": "pasta"}),
        ("put a timer on for the big roast two hours", {"duration": "2 hours", "label": "big roast"}),
        ("set a timer for about 10 minutes", {"duration": "about 10 minutes"}),
    ],
)
def test_a_timer_for_a_name_then_its_length_gets_both(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_timer", slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("do you mind putting a timer on for ten minutes", "set_timer", {"duration": "10 minutes"}),
        ("would you mind waking me up at 6", "set_alarm", {"time": "6 am"}),
        ("would you mind converting 5 miles to km", "convert_units", {"value": 5, "from_unit": "miles", "to_unit": "km"}),
        ("would you mind cancelling my alarm", "cancel_timer", {"which": "alarm"}),
    ],
)
def test_would_you_mind_doing_something_is_the_request_to_do_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "duration"), [("tell me when 10 minutes have passed", "10 minutes"), ("ping me when an hour is up", "1 hour")]
)
def test_asking_to_be_told_when_a_length_of_time_has_passed_sets_a_timer(text: str, duration: str) -> None:
    _check(text, "set_timer", {"duration": duration})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("put a reminder in for 6 pm to call Sam", {"text": "call Sam", "when": "6 pm"}),
        ("put in a reminder for tomorrow at 9 to pay the bills", {"text": "pay the bills", "when": "tomorrow at 9"}),
    ],
)
def test_putting_a_reminder_in_sets_one(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize("text", ["nah, cancel that", "naw delete it", "nah never mind"])
def test_a_nah_before_a_cancel_is_a_second_thought(text: str) -> None:
    _check(text, "cancel_timer", {})


@pytest.mark.parametrize(
    "text",
    [
        "how long is left on the roast chicken",
        "how much time is remaining on the cake",
        "which alarms are ticking",
        "what reminders are scheduled right now",
        "what were you supposed to remind me about",
        "what did i ask you to remind me to do tomorrow",
        "can you check if i have an alarm for tomorrow",
        "could you check whether there are any timers running",
        "see if I've got a reminder set for Friday",
        "check whether any timers are running",
        "can you tell me if there are any alarms set",
        "how much longer on the cookies",
        "how long until the pasta is done",
        "is the lasagne ready yet",
        "what's on my reminder list",
        "what did you remind me about",
        "what have I got set",
        "do I have anything scheduled for tomorrow",
    ],
)
def test_timers_named_by_what_they_time_and_indirect_questions_list_them(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    "text",
    [
        "how long is left on the movie",
        "how much time is left on my lease",
        "how much time is left for the exam",
        "is the update done yet",
        "how much longer on the road",
        "how much longer for the bus",
        "is the car ready yet",
        "is the game finished yet",
        "can you tell me if it will rain",
        "would you mind if I set a timer",
        "do you mind telling me a story",
        "i set an alarm",
        "there is an alarm",
        "check if the oven is on",
        "what did I ask you yesterday",
        "my alarm didn't go off this morning",
        "nah I am fine",
        "what do I have on tomorrow",
        "when the hour is up",
    ],
)
def test_chat_about_time_left_minding_or_alarms_set_is_no_tool_request(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("start a timer for twenty minutes the bread has to rise", "set_timer", {"duration": "20 minutes"}),
        ("the roast needs an hour and a half, start a timer", "set_timer", {"duration": "90 minutes"}),
        ("the tea has to steep four minutes, timer please", "set_timer", {"duration": "4 minutes"}),
        ("wake me at six a m", "set_alarm", {"time": "6 am"}),
        ("remind me at 4 pm to water the plants again", "set_reminder", {"text": "water the plants again", "when": "4 pm"}),
        ("the plumber is late, remind me in 30 minutes to call him", "set_reminder", {"text": "call him", "when": "in 30 minutes"}),
    ],
)  # fmt: skip
def test_a_reason_after_the_length_a_bare_timer_command_after_it_and_again_in_a_reminder_are_read(
    text: str, tool: str, slots: dict[str, Any]
) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("start a timer for ten minutes, sorry, fifteen", "set_timer", {"duration": "15 minutes"}),
        ("timer for 3 minutes, no wait, make it 4", "set_timer", {"duration": "4 minutes"}),
        ("set a timer for twenty minutes, make that twenty five", "set_timer", {"duration": "25 minutes"}),
        ("set a timer for 2 minutes, I mean 90 seconds", "set_timer", {"duration": "90 seconds"}),
        ("wake me up at six, actually six fifteen", "set_alarm", {"time": "6:15 am"}),
        ("set an alarm for 9 pm, I mean 9:30 pm", "set_alarm", {"time": "9:30 pm"}),
        ("remind me to water the plants at 4 pm, no, 5 pm", "set_reminder", {"text": "water the plants", "when": "5 pm"}),
        ("remind me at 5 pm to pick up the 2 boys, sorry, 6 pm", "set_reminder", {"text": "pick up the 2 boys", "when": "6 pm"}),
        ("delete the pizza timer, actually, the bread one", "cancel_timer", {"which": "bread"}),
        ("stop my morning alarm, no wait, the gym one", "cancel_timer", {"which": "gym"}),
    ],
)
def test_a_correction_mid_sentence_keeps_the_value_said_after_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text",
    [
        "set a timer for 5 minutes, actually two timers",  # more timers, not a new length
        "set a timer for 8 minutes, sorry, 9 am",  # a moment replaces no length
        "remind me to buy 2 lemons, actually 3",  # the count corrected, and no moment is left
    ],
)
def test_words_after_a_correction_that_replace_nothing_are_no_name_and_no_moment(text: str) -> None:
    assert prematch(text) is None


def test_a_timer_name_starting_with_no_or_wait_is_still_a_name() -> None:
    _check("set a timer for 10 minutes, no onions", "set_timer", {"duration": "10 minutes", "label": "no onions"})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("remind me to tell Priya I actually loved the cake at 7 pm", {"text": "tell Priya I actually loved the cake", "when": "7 pm"}),
        ("remind me at 6 pm to say sorry, I mean it", {"text": "say sorry, I mean it", "when": "6 pm"}),
        ("remind me tomorrow at 9 to ask if it's actually 3 days", {"text": "ask if it's actually 3 days", "when": "tomorrow at 9"}),
    ],
)
def test_a_reminder_whose_text_says_actually_or_sorry_keeps_its_words(text: str, slots: dict[str, Any]) -> None:
    _check(text, "set_reminder", slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("do one thing, set a timer for 6 minutes", "set_timer", {"duration": "6 minutes"}),
        ("do one thing and wake me at 6", "set_alarm", {"time": "6 am"}),
        ("reckon you can remind me to ring Gaz at 4 pm", "set_reminder", {"text": "ring Gaz", "when": "4 pm"}),
        ("do you reckon you could wake me up at 7", "set_alarm", {"time": "7 am"}),
        ("remind me to pick up the ute tomorrow arvo", "set_reminder", {"text": "pick up the ute", "when": "tomorrow afternoon"}),
        ("set an alarm for 3 this arvo", "set_alarm", {"time": "3 pm"}),
        ("remind me to send the invoice tonight itself", "set_reminder", {"text": "send the invoice", "when": "tonight"}),
        ("set an alarm for 6 am tomorrow itself", "set_alarm", {"time": "tomorrow 6 am"}),
        ("I must be awake by half six on Saturday", "set_alarm", {"time": "Saturday 6:30 am"}),
        ("I've got to be up at quarter past five", "set_alarm", {"time": "5:15 am"}),
    ],
)
def test_regional_leads_and_words_read_as_the_common_ones(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)
