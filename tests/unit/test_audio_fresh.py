"""Listing devices through a child process: its JSON parsed, its failures typed (the dialog then uses its own list)."""

from __future__ import annotations

import json
import sys

import pytest

from app.audio.errors import AudioError
from app.audio.fresh import fresh_device_names

ROWS = {
    "devices": [
        {"index": 0, "name": "Built-in Mic", "direction": "input"},
        {"index": 3, "name": "USB Headset", "direction": "input"},
        {"index": 3, "name": "USB Headset", "direction": "output"},
        {"index": 4, "name": "USB Headset", "direction": "input"},
    ]
}


def _child(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_child_s_devices_of_one_direction_are_listed_once_each_in_order() -> None:
    cmd = _child(f"print({json.dumps(json.dumps(ROWS))})")
    assert fresh_device_names("input", command=cmd) == ["Built-in Mic", "USB Headset"]
    assert fresh_device_names("output", command=cmd) == ["USB Headset"]


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("import sys; sys.stderr.write('PortAudio missing'); sys.exit(2)", "PortAudio missing"),
        ("print('not json')", "not the expected JSON"),
    ],
)
def test_a_failing_or_garbled_child_is_a_typed_error(code: str, words: str) -> None:
    with pytest.raises(AudioError, match=words):
        fresh_device_names("input", command=_child(code))
