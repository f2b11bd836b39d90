"""A yes/no question about the speaker or about now, then a request for the time or the date: the request is what to answer.

"have I still got time for lunch what's the time", "am I late, what time is it", "do we need to leave yet what's the time
now": the first question asks whether the speaker is in time, which Parley cannot know; the clock's answer is what it can
give, and the speaker judges (:func:`after_own_question`). So too a yes/no question about the hour or the day, "is it late
already what time is it", "is it the 12th or the 13th today what's the date": the clock's answer settles it. Only the
time or the date asked after it, with or without a pause; not when the first question names a place ("do I have time to
ring Sydney what time is it": whose clock?), nor when the request points back into it ("… what time is it there").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from genx.assistant.intents import Intent
from genx.assistant.patterns import rx as _rx
from genx.assistant.slot_reads import reads

__all__ = ["after_own_question", "names_a_place"]

#: A yes/no question whose subject is the speaker: "have I still got …", "am I late", "do we need to …", "will I make it".
_OWN_QUESTION = _rx(r"(?:have|am|are|do|did|will|would|can|could|shall|should|is it too late for|is there time for) (?:i|we)\b")
#: Where the request starts: a pause, or, with none, a question for the time or the date.
#: A yes/no question about now that the clock or the calendar answers: "is it late already", "is it the 12th today", "is it
#: Friday yet" ("is it raining what time is it" is not one: only the time would be answered).
_ABOUT_NOW = _rx(r"is it\b")
_CLOCK_WORD = re.compile(
    r"\b(?:late|early|morning|afternoon|evening|night|midnight|noon|midday|bedtime|lunchtime|dinnertime|teatime|time|o'clock|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|today|tonight|\d+(?:st|nd|rd|th)|past|gone)\b",
    re.IGNORECASE,
)
_ASKS = _rx(r", | (?=(?:what's|what is|whats|what time|what day|what date|how late|do you have the time|tell me the) )")
_POINTING = _rx(r"\b(?:there|then|that day|that date|that time)\b")


def names_a_place(text: str) -> bool:
    """Any word or two words of ``text`` after its first that read as a place ("ring Sydney", "New York")."""
    words = re.findall(r"[a-z]+", text.lower())[1:]
    return any(reads("place", w) for w in words) or any(reads("place", f"{a} {b}") for a, b in pairwise(words))


def after_own_question(t: str, match: Callable[[str], Intent | None]) -> Intent | None:
    """The time or date asked after a yes/no question about the speaker (module docstring), or ``None``."""
    own = bool(_OWN_QUESTION.match(t))
    if not own and not _ABOUT_NOW.match(t):
        return None
    for cut in _ASKS.finditer(t):
        head, rest = t[: cut.start()], t[cut.end() :].strip(" ,")
        if names_a_place(head) or _POINTING.search(rest):
            return None
        if not own and not _CLOCK_WORD.search(head):  # "is it …" only about the hour or the day
            continue
        intent = match(rest)
        if intent is not None and intent.tool in ("current_time", "date_info"):
            return intent
    return None
