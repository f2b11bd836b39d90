"""The pre-match on a request taken back at its end, after a pause: nothing is set, nothing is cancelled.

"Set a timer for 10 minutes, never mind" once set a timer labelled "never mind", and "…, not needed anymore" one
labelled "not needed anymore"; "cancel the timer, never mind" cancelled it. Without the pause the words belong to the
request ("remind me to tell him never mind tomorrow at 5").
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    "text",
    [
        "set a timer for 10 minutes, never mind",
        "set a timer for 10 minutes, not needed anymore",
        "Set a timer for 10 minutes, actually, forget it.",
        "set an alarm for 7 am, no need",
        "remind me to call mum at 6, scratch that",
        "cancel the pasta timer, never mind",
        "timer for 20 minutes, oh wait, don't bother",
        "set a timer for five minutes, I changed my mind",
    ],
)
def test_a_request_taken_back_after_a_pause_asks_for_no_tool(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("remind me to tell him never mind tomorrow at 5", "set_reminder", {"text": "tell him never mind", "when": "tomorrow at 5"}),
        ("set a timer for 10 minutes", "set_timer", {"duration": "10 minutes"}),
        ("never mind, set a timer for 4 minutes", "set_timer", {"duration": "4 minutes"}),
        ("Never mind, cancel that.", "cancel_timer", {}),
        ("oh no, wait, cancel that", "cancel_timer", {}),
        ("cancel the timer, I don't need it anymore", "cancel_timer", {"which": "the timer"}),
        ("cancel my alarm, not needed any more", "cancel_timer", {"which": "my alarm"}),
    ],
)
def test_the_same_words_inside_a_request_or_before_it_keep_the_request(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)
