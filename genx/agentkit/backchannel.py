"""What the user's words mean while Parley speaks: a backchannel, a stop, or a real interruption.

:func:`classify` reads a (partial) transcript: ``"stop"`` when it holds a stop
phrase ("stop", "wait", "hold on", "quiet", ...), ``"backchannel"`` when every
word is listener talk ("mm-hm", "uh-huh", "okay", "yeah", "right", "sure", "I
see", ...), ``"empty"`` when there are no words (a cough, a door), else
``"words"``. :func:`is_interruption` is the rule the turn manager applies: a
stop phrase interrupts at once; so do other words (at least ``min_words`` of
them that are not listener talk, see :data:`MIN_WORDS`); anything else only
after ``after_ms`` of voiced speech. Pure and table-driven.
"""

from __future__ import annotations

import re
from typing import Literal

Meaning = Literal["empty", "backchannel", "stop", "words"]

STOP_PHRASES = frozenset(
    {
        "stop", "wait", "hold on", "hang on", "quiet", "be quiet", "shut up", "enough", "pause", "cancel", "never mind",
        "nevermind", "no no",
    }
)  # fmt: skip
BACKCHANNEL_PHRASES = frozenset(
    {
        "mm", "mmm", "mhm", "mm hm", "mm hmm", "m hm", "hm", "hmm", "uh huh", "uh", "um", "ah", "aha", "oh", "ooh", "wow",
        "okay", "ok", "k", "yeah", "yep", "yup", "yes", "right", "sure", "i see", "got it", "cool", "nice", "alright",
        "all right", "really", "true", "exactly", "indeed", "interesting", "good", "great", "fine", "no way",
        # what Whisper writes for a murmur, a laugh or a breath over the answer
        "huh", "ha", "haha", "hah", "heh", "hehe", "thank you", "thanks", "you",
    }
)  # fmt: skip
#: The stop phrases as Whisper writes them ("Hold on."), for the ASR to listen for over the answer.
_WRITTEN = {"no no": "No, no.", "nevermind": "Never mind."}
WRITTEN_STOP_PHRASES = tuple(sorted({_WRITTEN.get(p, p[0].upper() + p[1:] + ".") for p in STOP_PHRASES}))
_ONE_WORD_BACKCHANNELS = frozenset(p for p in BACKCHANNEL_PHRASES if " " not in p)
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


# Words that are not listener talk (and longer than one letter) before they interrupt without a stop phrase. Two:
# Whisper writes a murmur or a robotic "mm-hm" as one odd word ("Haha.", "M.M.A. Kim"), and a real interruption
# without a stop phrase has more than one word by the time it is transcribed. (It was one while the echo gate learned
# the user's speech over a ducked answer as echo and passed only fragments of it: fixed, see EchoGate.hold_learning.)
MIN_WORDS = 2


# Words that carry no request on their own: two of them ("and me", Whisper's reading of a murmured "mm-hm") are no
# interruption; a real one has at least one other word ("but why", "tell me").
FUNCTION_WORDS = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "so", "then", "of", "to", "in", "on", "at", "for", "with", "by", "from",
        "i", "me", "my", "you", "your", "he", "him", "his", "she", "her", "it", "its", "we", "us", "they", "them",
        "is", "am", "are", "was", "be", "this", "that", "there", "here", "just", "well", "like",
    }
)  # fmt: skip


def content_words(text: str) -> list[str]:
    """The words of ``text`` that are not listener talk and not a lone letter ("okay but what" → ["but", "what"])."""
    return [w for w in words(text) if len(w) > 1 and w not in _ONE_WORD_BACKCHANNELS]


_CASED_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)[\"'(]*([A-Za-z][A-Za-z']*)")


def named_words(text: str) -> set[str]:
    """Words ``text`` writes as names: capitalised inside a sentence, or in capitals ("MMC App", "and the Meechan").

    Whisper writes a murmur or a breath over the answer as a name or an acronym more than as anything else;
    a real interruption's request is in lower-case words ("what about Paris": "what", "about").
    """
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    out: set[str] = set()
    for m in _CASED_WORD.finditer(text):
        w = m.group()
        if w == "I" or w.startswith("I'") or len(w) < 2:
            continue
        if w.isupper() or (w[0].isupper() and m.start() not in starts):
            out.add(w.lower())
    return out


def is_interruption(text: str, voiced_ms: float, *, after_ms: float, min_words: int = MIN_WORDS) -> bool:
    """Speech over the answer with transcript ``text`` (so far) and ``voiced_ms`` of voiced audio: a real interruption?"""
    meaning = classify(text)
    if meaning == "stop" or voiced_ms >= after_ms:
        return True
    # distinct (Whisper repeats what it makes of a murmur: "Amen. Amen."), and not names (see named_words)
    said = set(content_words(text)) - named_words(text)
    return meaning == "words" and len(said) >= min_words and any(w not in FUNCTION_WORDS for w in said)


__all__ = [
    "BACKCHANNEL_PHRASES",
    "FUNCTION_WORDS",
    "MIN_WORDS",
    "STOP_PHRASES",
    "WRITTEN_STOP_PHRASES",
    "Meaning",
    "classify",
    "content_words",
    "is_interruption",
    "named_words",
    "words",
]
