"""The pre-match on phrasing families for listing and cancelling, and on zones and date ranges said loosely.

New phrasings of each family, not the bench's; expected slots written by hand and
compared by meaning with the bench's scorer (:func:`bench.tool_slots.slots_ok`).
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("delete number two", {"which": "2"}),
        ("whoops, my mistake, remove the latest one", {"which": "the latest one"}),
        ("clear every alarm I've set", {"which": "all"}),
        ("I'm home early, you can stop the oven timer", {"which": "oven timer"}),
    ],
)
def test_a_cancel_after_second_thoughts_or_by_its_number_names_what_it_cancels(text: str, slots: dict[str, Any]) -> None:
    _check(text, "cancel_timer", slots)


@pytest.mark.parametrize(
    "text",
    [
        "are the potatoes almost done, how much time is left",
        "check in on the egg timer",
        "has the bread timer gone off yet",
        "did I set an alarm for the school run",
        "what have I got coming up, alarms, timers, anything",
        "show me the timers I've set so far",
    ],
)
def test_loose_questions_about_what_is_running_list_the_timers(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    "text",
    ["check on the roast chicken for me", "did the delivery finish yet", "has the meeting gone off well"],
)
def test_questions_about_things_that_are_not_timers_are_no_list(text: str) -> None:
    got = prematch(text)
    assert got is None or got.tool != "list_timers", (text, got)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's central european time", "current_time", {"place": "Europe/Berlin"}),
        ("how many days is from june fifth to july first", "date_info", {"date": "1 July", "from_date": "5 June"}),
    ],
)  # fmt: skip
def test_a_zone_said_by_its_name_and_a_range_said_with_is_are_read(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the date on friday, we're going away", "date_info", {"date": "Friday"}),
        ("set a timer for 8 minutes, because the eggs are on", "set_timer", {"duration": "8 minutes"}),
        ("we're sharing a pizza of 24 dollars 3 ways, how much does each of us pay", "calculate", {"expression": "8"}),
        ("if half a dozen bagels cost 6.60, how much is one bagel", "calculate", {"expression": "1.1"}),
        ("if 4 tickets cost 50 pounds, how much is each", "calculate", {"expression": "12.5"}),
    ],
)  # fmt: skip
def test_a_request_before_its_reason_and_a_shared_total_are_read(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["I don't want an alarm, I'll wake up on my own", "my tea, I think it's cold"])
def test_a_statement_before_a_reason_is_no_request(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "is the egg timer just about finished",
        "take me through my alarms",
        "bring up all the reminders I've set",
        "what's on the list of timers",
        "did I forget to set a reminder for tomorrow",
        "how many timers do I have running today",
        "after we eat, which timers are running",
    ],
)
def test_going_through_the_list_or_asking_whether_one_was_set_lists_the_timers(text: str) -> None:
    _check(text, "list_timers", {})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("switch off the weekend alarm for good", {"which": "weekend"}),
        ("delete my 6 a m alarm permanently", {"which": "6 am"}),
        ("remove the last reminder you set", {"which": "last reminder"}),
        ("stop the most recent one I added", {"which": "most recent one"}),
        ("lunch is ready, stop the rice timer", {"which": "rice"}),
        ("the kids are up, cancel all the alarms", {"which": "all"}),
    ],
)
def test_a_final_cancel_the_last_one_made_and_a_cancel_after_a_thing_happening_name_what_they_cancel(
    text: str, slots: dict[str, Any]
) -> None:
    _check(text, "cancel_timer", slots)
