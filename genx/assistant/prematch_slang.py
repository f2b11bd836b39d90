"""Casual speech the pre-match reads as the plain words: slang leads, and Whisper's homophones of a number.

:func:`plain_words` rewrites a small table of slang ("gimme" → "give me", "wanna" → "want to", "gonna" → "going to";
"I wanna be reminded to …" → "remind me to …"; "gonna need a reminder …" → "I need a reminder …") and the words a
transcriber writes for a number where only a number can stand: after "for" or "in" before a unit of time ("a timer for
to minutes" → "for two minutes", "in for hours" → "in four hours"), after "at" in a wake-up or an alarm ("wake me at for
thirty" → "at four thirty"), and "too" for "to" after "remind me" ("remind me too call …"). Elsewhere the words stay:
"I'm off to bed", "waiting for for ever" are no numbers. Whole words only, case-insensitively.
"""

from __future__ import annotations

import re

__all__ = ["plain_words"]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_TIME_UNIT = r"(?= (?:and a half )?(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)\b)"
#: What follows the hour of a clock time said in words: "thirty", "fifteen", "o'clock", "am", "pm".
_CLOCK_REST = r"(?= (?:o'clock|oh [a-z]+|[ap]\.?m\.?|thirty|fifteen|forty[- ]five|twenty|ten|five|fifty|\d\d)\b)"
_WAKE = _rx(r"\b(?:wake|alarm|get me up|get up)\b")

_SLANG: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (_rx(pattern), repl)
    for pattern, repl in (
        (r"\bgimme\b", "give me"),
        (r"\bwanna\b", "want to"),
        (r"\bgonna\b", "going to"),
        (r"\bgotta\b", "got to"),
        # being reminded, asked for: "I'd like to be reminded to …" is "remind me to …"
        (r"\b(?:i(?:'d| would) like|(?:i )?(?:want|need|wish)) to be reminded\b", "remind me"),
        (r"\b(?:i'm |i am )?going to need (?=(?:a|an) (?:reminder|alarm|timer)\b)", "I need "),
        # a number heard as a word where only a number can stand
        (rf"\b(for|in) (?:to|too)\b{_TIME_UNIT}", r"\1 two"),
        (rf"\b(for|in) (?:for|fore)\b{_TIME_UNIT}", r"\1 four"),
        (r"\b(remind (?:me|us|him|her|them)) too\b", r"\1 to"),
    )
)
_AT_HOUR: tuple[tuple[re.Pattern[str], str], ...] = (
    (_rx(rf"\bat (?:to|too)\b{_CLOCK_REST}"), "at two"),
    (_rx(rf"\bat (?:for|fore)\b{_CLOCK_REST}"), "at four"),
)


def plain_words(text: str) -> str:
    """``text`` with the table's slang and number homophones rewritten (module docstring)."""
    for rx, repl in _SLANG:
        text = rx.sub(repl, text)
    if _WAKE.search(text):
        for rx, repl in _AT_HOUR:
            text = rx.sub(repl, text)
    return text
