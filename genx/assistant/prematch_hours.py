"""Times said on the 24-hour clock, as the clock reads them: "zero six thirty", "oh five hundred hours", "fourteen fifteen hours".

:func:`twelve_hour` rewrites them in words every time reader knows ("6:30 am", "5 am", "2:15 pm"). Only after a word
that puts a time there ("an alarm zero six thirty", "wake me at oh six hundred", "remind me at fourteen hundred hours
…"): "convert fifteen hundred hours to days" is an amount. A time without its leading zero needs "hours"
("fourteen thirty hours"); one with it ("zero six thirty", "oh seven hundred") is a time by itself. An afternoon or
evening hour said "hundred" with no "hours" ("an alarm for seventeen hundred", "remind me at nineteen hundred to …") is a
time when an alarm or a reminder is asked for and no unit follows: no 12-hour clock has a thirteenth hour.
"""

from __future__ import annotations

import re

from genx.toolbox.numwords import words_to_numbers

__all__ = ["twelve_hour"]

_ONE_TO_NINE = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_MINUTES = (
    rf"(?:(?:oh|zero) {_ONE_TO_NINE}|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    rf"(?:twenty|thirty|forty|fifty)(?:[ -]{_ONE_TO_NINE})?)"
)
_HOUR = r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty(?:[ -](?:one|two|three))?)"
_LEAD = r"(?P<lead>\b(?:at|for|by|until|till|alarm|from|to) )"
_MORNING = re.compile(rf"{_LEAD}(?:zero|oh|o) (?P<hour>{_ONE_TO_NINE}) (?:hundred|(?P<minutes>{_MINUTES}))(?: hours)?\b", re.IGNORECASE)
_AFTERNOON = r"(?:thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty(?:[ -](?:one|two|three))?)"
_HUNDRED = re.compile(
    rf"{_LEAD}(?P<hour>{_AFTERNOON}) hundred(?P<minutes>)(?=$|,| (?:to|tomorrow|today|tonight|on|every|please|and|so)\b)", re.IGNORECASE
)
_SETTING = re.compile(r"\b(?:alarm|wake|remind|reminder|get me up)\b", re.IGNORECASE)
_HOURS = re.compile(rf"{_LEAD}(?P<hour>{_HOUR}) (?:hundred|(?P<minutes>{_MINUTES})) hours\b", re.IGNORECASE)


def _number(words: str) -> int:
    return int(words_to_numbers(re.sub(r"^(?:oh|zero) ", "", words.replace("-", " "))))


def _clock(m: re.Match[str]) -> str:
    hour, minutes = _number(m["hour"]), _number(m["minutes"]) if m["minutes"] else 0
    half = "am" if hour < 12 else "pm"
    shown = hour % 12 or 12
    return f"{m['lead']}{shown}:{minutes:02d} {half}" if minutes else f"{m['lead']}{shown} {half}"


def twelve_hour(text: str) -> str:
    """``text`` with its spoken 24-hour times as 12-hour ones (module docstring)."""
    text = _HOURS.sub(_clock, _MORNING.sub(_clock, text))
    return _HUNDRED.sub(_clock, text) if _SETTING.search(text) else text
