"""Requests said around other speech: an aside to someone else, a request echoed, two requests in one breath.

Each function takes the cleaned utterance and the pre-match's whole-message matcher, and returns the intent of the
request once the other words are set aside, or ``None``:

* :func:`without_aside`: an aside begun by "hang on", "hold on", "one sec", "just a minute" … said to someone else,
  before the request or inside it ("hold on the dog's barking what's the date", "a timer for one sec Sam put that down
  ten minutes"); the aside is the words from its marker up to the longest rest that makes the request whole again, every
  slot reading with its tool's parser ("set a timer for hold on love stop it ten minutes" → "set a timer for ten
  minutes"). The caller tries it when the words as said match no tool, or match one with a slot that does not read; "remind
  me to hang on to the receipt at 5" stays a task.
* :func:`echoed`: a request, then part of it said again, no pause ("how long is left on the timer how long is left",
  "what's 6 times 7 six times seven", "stop the alarm the alarm stop it"): the tail's words are all the request's own
  (numbers read as digits; "it", "that" point back), so the request alone decides: the shortest start that is a whole
  request, its slots reading, with the rest all echo.
* :func:`first_of_two`: two requests joined by "and", "then", "and also" ("what's the date and also set a timer for 5
  minutes"): one tool call answers one of them, so the first is the request, when both are whole requests by
  themselves, or when the second starts as a request, maybe one no tool answers ("… and then tell me a joke"), except
  after a reminder, whose task may go on ("remind me to shop and then cook at 5" is one task).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.slot_reads import reads
from genx.toolbox.numwords import words_to_numbers

__all__ = ["echoed", "first_of_two", "without_aside"]

Match = Callable[[str], Intent | None]

_ASIDE = re.compile(
    r"\b(?:hang on|hold on|hang about|one sec(?:ond)?|one moment|just a (?:sec|second|minute|moment|tick)|"
    r"wait a (?:sec|second|minute|moment|tick))\b",
    re.IGNORECASE,
)


def _read(intent: Intent) -> bool:
    return all(reads(name, value) for name, value in intent.arguments.items())


def without_aside(t: str, match: Match) -> Intent | None:
    """The request with an aside to someone else left out (module docstring), or ``None``."""
    for aside in _ASIDE.finditer(t):
        head = t[: aside.start()]
        ends = [m.start() + 1 for m in re.finditer(r" \S", t[aside.end() :])]
        for end in reversed(ends):  # the longest aside first: "hold on Max get down what's the date" drops "Max get down"
            rest = f"{head}{t[aside.end() + end :]}".strip(" ,")
            if (intent := match(rest)) is not None and _read(intent):
                return intent
    return None


#: Words that point back to the request in its echo: "stop the timer the timer stop it".
_POINTING = frozenset(("it", "that", "this", "one"))


#: A run of two or three words said twice inside the echo (no number: "times 2 times 2" may be the sum).
_ONCE = re.compile(r"\b((?:[a-z']+ ){1,2}[a-z']+) \1\b", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return re.sub(r"[^\w' ]+", " ", words_to_numbers(text).lower()).split()


def echoed(t: str, match: Match, *, amounts: bool = True) -> Intent | None:
    """The request when what follows it says only its own words again (module docstring), or ``None``.

    Without ``amounts``, only an echo with no number in it, of a request other than a reminder: the form the caller tries
    before the words as said ("stop the timer the timer stop it" reads as a timer named "the timer the timer"); an echo of
    numbers may be more of the sum ("5 times 5 times 5"), and a reminder's task may say its words twice."""
    words = _ONCE.sub(r"\1", words_to_numbers(t)).split()  # "stop the timer the timer stop it": "the timer" said once
    for cut in range(2, len(words) - 1):  # the longest echo first (of two words or more): the request said once
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        said, again = set(_words(head)), set(_words(tail))
        if not again <= said | _POINTING or not again & said or (not amounts and re.search(r"\d", tail)):
            continue
        if (intent := match(head)) is not None and _read(intent) and (amounts or intent.tool != "set_reminder"):
            return intent
    return None


#: "and" inside an amount joins no requests: "a hundred and twenty", "2 and a half", "5 and 3 quarters".
_JOIN = re.compile(r",? (?:and then|and also|and|then|also)(?: also)?,? (?!\d|a half\b|a quarter\b)(?=\S)", re.IGNORECASE)
#: How a request may start that no tool need answer: "tell me a joke", "what's the weather", "remind me to …".
_REQUEST_START = re.compile(
    r"(?:tell me|tell us|give me|play|show me|what|what's|how|who|when|where|why|can you|could you|set|start|put on|read|"
    r"remind|wake)\b",
    re.IGNORECASE,
)


def first_of_two(t: str, match: Match) -> Intent | None:
    """The first of two requests said one after the other (module docstring), or ``None``."""
    for join in _JOIN.finditer(t):
        head, tail = t[: join.start()], t[join.end() :]
        if words_to_numbers(tail)[:1].isdigit() or (intent := match(head)) is None:
            continue
        if match(tail) is not None or (_REQUEST_START.match(tail) and intent.tool != "set_reminder"):
            return intent
    return None
