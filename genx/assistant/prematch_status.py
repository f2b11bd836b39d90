"""Statements about a timer, alarm or reminder that is already there: no request to set one.

"The timer is set for 5 minutes", "my alarm's set for 7", "the oven timer's already going", "my alarm was for 6": the item
is the subject of a verb that says how it stands, so the words describe one, and the set matchers
(:mod:`.prematch_timers`) leave them to the model (:func:`describes_one`). A yes/no question about how one stands, "is the
timer set for 5 minutes", "is my alarm on for 7", is a list question (:mod:`.prematch_manage`).
"""

from __future__ import annotations

from genx.assistant.patterns import rx as _rx

__all__ = ["describes_one"]

#: The item as the subject of a verb: "the (oven) timer is …", "my alarm's …", "our reminders were …".
_DESCRIBED = _rx(
    r"(?:the|my|our|your|his|her|their|this|that) (?:[a-z0-9:']+ ){0,2}?(?:timer|alarm|reminder|countdown)s?(?: clock)?"
    r"(?:'s|'re| is| are| was| were| has| have| had| will| would| went| goes| rang| rings| keeps| isn't| aren't| wasn't|"
    r" hasn't| won't| already| still| just| never)\b.*"
)


def describes_one(t: str) -> bool:
    """Whether the cleaned utterance ``t`` says how a timer, alarm or reminder stands (module docstring)."""
    return _DESCRIBED.fullmatch(t) is not None
