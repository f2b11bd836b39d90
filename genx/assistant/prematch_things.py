"""Words a date question's value may be that name a thing, not a day: the date matchers (:mod:`.prematch_clock`) ask here.

A weekday's written shortening, "sun", "mon", "sat", "wed", reads as a day to the date parser, but said after "the" it is a
thing ("how far away is the sun", "is the sat far off"): :func:`names_a_thing`. The day said whole stays a day ("how far
away is sunday", "is the weekend far off").
"""

from __future__ import annotations

from genx.assistant.patterns import rx as _rx

__all__ = ["names_a_thing"]

_SHORT_DAY = _rx(r"(?:the|a|an) (?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)")


def names_a_thing(date: str) -> bool:
    """Whether a date question's value ``date`` names a thing, not a day (module docstring)."""
    return _SHORT_DAY.fullmatch(date.strip()) is not None
