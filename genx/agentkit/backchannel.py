"""What the user's words mean while Parley speaks: a backchannel, a stop, or a real interruption.

:func:`classify` reads a (partial) transcript: ``"stop"`` when it holds a stop
phrase ("stop", "wait", "hold on", "quiet", ...), ``"backchannel"`` when every
word is listener talk ("mm-hm", "uh-huh", "okay", "yeah", "right", "sure", "I
see", ...), ``"empty"`` when there are no words (a cough, a door), else
``"words"``. :func:`is_interruption` is the rule the turn manager applies: a
stop phrase interrupts at once; so do other words (at least ``min_words``: the
echo gate may pass only part of real speech while Parley plays); anything
else only after ``after_ms`` of voiced speech. Pure and table-driven.
"""

from __future__ import annotations

import re
from typing import Literal

Meaning = Literal["empty", "backchannel", "stop", "words"]

STOP_PHRASES = frozenset(
    {"stop", "wait", "hold on", "hang on", "quiet", "be quiet", "shut up", "enough", "pause", "cancel", "never mind", "nevermind"}
)
BACKCHANNEL_PHRASES = frozenset(
    {
        "mm", "mmm", "mhm", "mm hm", "mm hmm", "m hm", "hm", "hmm", "uh huh", "uh", "um", "ah", "aha", "oh", "ooh", "wow",
        "okay", "ok", "k", "yeah", "yep", "yup", "yes", "right", "sure", "i see", "got it", "cool", "nice", "alright",
        "all right", "really", "true", "exactly", "indeed", "interesting", "good", "great", "fine", "no way",
    }
)  # fmt: skip
_MAX_PHRASE_WORDS = 2
_WORD = re.compile(r"[a-z']+")


def words(text: str) -> list[str]:
    """Lower-case words, hyphens and punctuation dropped ("Mm-hm." → ["mm", "hm"])."""
    return _WORD.findall(text.lower().replace("-", " "))


def classify(text: str) -> Meaning:
    ws = words(text)
    if not ws:
        return "empty"
    joined = " ".join(ws)
    for n in range(1, _MAX_PHRASE_WORDS + 1):
        for i in range(len(ws) - n + 1):
            if " ".join(ws[i : i + n]) in STOP_PHRASES:
                return "stop"
    i = 0
    while i < len(ws):  # every word must belong to a backchannel phrase (longest first)
        for n in range(_MAX_PHRASE_WORDS, 0, -1):
            if " ".join(ws[i : i + n]) in BACKCHANNEL_PHRASES:
                i += n
                break
        else:
            return "words"
    return "backchannel" if joined else "empty"


# Words that are not listener talk before they interrupt without a stop phrase. One: while Parley speaks the echo gate
# may let only a fragment of the user's words through ("talking please" of "wait, stop talking please"), so any such
# word counts. The price: whisper hearing a robotic "mm-hm" as "and, man, man" stops Parley (measured, left open).
MIN_WORDS = 1


def is_interruption(text: str, voiced_ms: float, *, after_ms: float, min_words: int = MIN_WORDS) -> bool:
    """Speech over the answer with transcript ``text`` (so far) and ``voiced_ms`` of voiced audio: a real interruption?"""
    meaning = classify(text)
    if meaning == "stop" or voiced_ms >= after_ms:
        return True
    return meaning == "words" and len(words(text)) >= min_words


__all__ = ["BACKCHANNEL_PHRASES", "MIN_WORDS", "STOP_PHRASES", "Meaning", "classify", "is_interruption", "words"]
