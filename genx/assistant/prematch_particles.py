"""Sentence-final particles, Singapore English "can … or not", and what is said after a request is whole (round 21).

:func:`particle_words` rewrites the cleaned utterance before the matchers see it, each rewrite one family:

- a discourse particle at the very end, after a pause or none: Singapore/Malaysian "lah", "la", "leh", "lor", "hor",
  Canadian "eh" ("… in Kuala Lumpur lah", "how long till Canada Day eh"); only the last word, so a place that holds one
  ("La Paz") keeps it;
- Singapore English "can <verb> …(,) or not" and "can <verb> …(,) can": the request itself, "can set a timer ten minutes or
  not" is "set a timer ten minutes"; only "can" straight before a tool's verb ("can you set alarms or not" asks about the
  feature: "you" stands between);
- New Zealand and Australian leads "sweet as", "sweet", "righto", "no worries" before a request;
- "how many days/weeks have I got until X", "how long have we got till X": "… until X".

:func:`after_whole_request` reads what follows a pause after a whole request: a clause saying what the value is to the
speaker after a question that says its own value ("… 12 October, that's my final exam", "…, that's when my lease ends"),
or a clause saying a cancelled thing is no longer needed ("cancel the timer, not needed anymore").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.patterns import rewrite, rewrites
from genx.assistant.slot_reads import reads

__all__ = ["after_whole_request", "particle_words"]

#: A tool's verb straight after Singapore English "can" (no subject between: "can you …" is a question to Parley).
_CAN_VERB = r"(?:set|start|put|make|remind|wake|cancel|stop|delete|tell|give|convert|calculate|check)"

_TABLE = rewrites(
    (
        # a discourse particle as the last word; the pause before it, if any, goes with it
        (r",? \b(?:lah|la|leh|lor|hor|eh)$", ""),
        # "can set alarm 6:30 a.m. can", "can set a timer ten minutes or not": the request between
        (rf"^can ({_CAN_VERB}\b.+?),? (?:or not|can)$", r"\1"),
        # NZ/Australian leads before a request ("sweet as, chuck on a timer …")
        (r"^(?:sweet as|sweet|righto|right oh|no worries)(?:,| )+(?=\S)", ""),
        # "how many days have I got until X" (the time left), "how long have we got till X"
        (r"^(how many (?:days|weeks|months|sleeps)|how long) have (?:i|we) got (?=until|till|til|before|to)\b", r"\1 "),
    )
)


def particle_words(t: str) -> str:
    """``t`` with the module's particles, Singapore "can" and leads said as the common phrasings (module docstring)."""
    return rewrite(t, _TABLE)


_VALUE_TOOLS = frozenset(("convert_units", "calculate", "current_time", "date_info"))
#: What a value is to the speaker, said after a pause: "that's my final exam", "that's when my visa runs out", "that's the
#: bag limit on our flight", "it's for my sister's party" (a clause of "that's"/"that is"/"that'll be", then whose, when or
#: which thing).
_WHAT_VALUE_IS = re.compile(
    r", (?:that's|that is|that'll be|that will be|which is|it's for|that's for) "
    r"(?:my|our|his|her|their|the|when|where|how (?:much|long|far|many)|what) [a-z']+",
    re.IGNORECASE,
)
#: A cancelled thing no longer needed, said after a pause: "…, not needed anymore", "…, don't need it now", "…, no need".
_NOT_NEEDED = re.compile(
    r", (?:it's |it is |it was |i )?(?:not needed|no longer needed|don't need it|do not need it|no need for it|no need|not necessary)"
    r"(?: any ?more| now| after all| today)?$",
    re.IGNORECASE,
)


def after_whole_request(t: str, clean: Callable[[str], str], match: Callable[[str], Intent | None]) -> Intent | None:
    """The request before a pause when what follows only says what its value is or that a cancel is needed no more.

    Invariant: the head alone is a whole request; a value clause only after a question whose every slot reads (a
    question with no value, "what's the time, that's my bus", is no different), a "not needed" clause only after a cancel.
    """
    if (m := _WHAT_VALUE_IS.search(t)) is not None:
        intent = match(clean(t[: m.start()]))
        if (
            intent is not None
            and intent.tool in _VALUE_TOOLS
            and intent.arguments
            and all(reads(k, v) for k, v in intent.arguments.items())
        ):
            return intent
    if (m := _NOT_NEEDED.search(t)) is not None:
        intent = match(clean(t[: m.start()]))
        if intent is not None and intent.tool == "cancel_timer":
            return intent
    return None
