"""Text cleanup before TTS: markdown, URLs, emoji."""

from __future__ import annotations

import pytest

from genx.local.speakable import speakable_text


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("**Paris** is the _capital_ of snake_case land.", "Paris is the capital of snake_case land."),
        ("See [the docs](https://example.com/docs) for more.", "See the docs for more."),
        ("Go to https://example.com/a?b=1. Then rest.", "Go to. Then rest."),
        ("Hello 👋🏽 there ❤️!", "Hello there!"),
        ("# Steps\n- boil water\n- add tea", "Steps. boil water. add tea."),
        ("Use `pip install x` now.", "Use pip install x now."),
        ("Café at 3.14 € costs 5%.", "Café at 3.14 € costs 5%."),
    ],
)
def test_markup_urls_and_emoji_are_not_read_aloud(raw: str, spoken: str) -> None:
    assert speakable_text(raw) == spoken


@pytest.mark.parametrize("raw", ["", "🙂🙂", "```\n```", "https://example.com", "  ** __ ~~  "])
def test_text_with_nothing_to_say_becomes_empty(raw: str) -> None:
    assert speakable_text(raw) == ""
