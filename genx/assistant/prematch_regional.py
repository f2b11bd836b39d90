"""Regional words the pre-match reads as the common ones: a small table of rewrites, applied to the cleaned utterance.

Each entry is one word or idiom of one English ("arvo", Australian; "today itself", Indian) and the words every
matcher already knows (British "a week on Friday" is a date's offset: :mod:`.prematch_clock`; the leads "do one
thing, …", "reckon you could …" are politeness: :mod:`.prematch`). Only whole words are rewritten, case-insensitively; a
reminder's text keeps its own words ("put the sunnies in the car this arvo" → "… this afternoon").
"""

from __future__ import annotations

from genx.assistant.patterns import rewrite, rewrites

__all__ = ["standard_words"]

_TABLE = rewrites(
    (
        (r"\barvo\b", "afternoon"),  # Australian: "this arvo", "Sunday arvo"
        (r"\b(today|tomorrow|tonight|now|this (?:morning|afternoon|evening)) itself\b", r"\1"),  # Indian: emphatic "itself"
        (r"\b(an?) wee (?=(?:[a-z]+ )?(?:timer|countdown|alarm|reminder)\b)", r"\1 "),  # Scottish: "a wee timer"
        (r"(?<!\bto )\bgive us\b", "give me"),  # British: "give us a timer" ("… to give us a call" is someone else's)
        (r"\bhave (i|you|we) (any|the|an?)\b", r"have \1 got \2"),  # British: "have I any alarms on", "have you the time"
        (
            r"\b(?:pop|stick|bung|chuck|whack|slap) (?:on )?(an?|the|my|me an?) (?=(?:[a-z]+ )?(?:timer|countdown|alarm|reminder)\b)",
            r"put \1 ",
        ),  # British: "pop a timer on"; NZ/Australian: "chuck on a timer", "whack a timer on"
    )
)


def standard_words(text: str) -> str:
    """``text`` with the table's regional words rewritten (module docstring)."""
    return rewrite(text, _TABLE)
