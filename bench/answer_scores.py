"""Scores of the answer-quality bench (pure functions; ``tests/unit/test_answer_scores.py``).

* :func:`repeated`: an answer sharing an 8-word run with an earlier answer of its
  conversation, or the same answer as one given to a different question
  (the definitions of :mod:`genx.assistant.repetition`; a looping answer counts too);
* :func:`on_topic`: content-word overlap with the question (with a follow-up such as
  "why?" or "tell me more", with the topic it follows), or a tool's answer;
* :func:`factual`: every keyword group of a question appears in the answer (a group is
  alternatives split by ``|``, matched on word starts, case-insensitive);
* :func:`honest`: for a question no offline assistant can know, the answer says it
  does not know or cannot check, instead of inventing;
* :func:`violations`: what should never reach TTS: markdown, list markers, emoji, URLs, code;
* :func:`spoken_seconds`: the answer's length read aloud (150 words a minute).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from genx.assistant.repetition import REPEAT, repetition
from genx.memory.recall import content_words

__all__ = ["WORDS_PER_SECOND", "factual", "honest", "on_topic", "percentile", "repeated", "spoken_seconds", "topic_words", "violations"]

WORDS_PER_SECOND = 2.5

#: words of a follow-up that name no topic of their own ("why?", "tell me more", "stop, something else")
_FOLLOW_UP = frozenset(
    "why more else instead another one stop wait okay ok never mind then also and that it them their go on continue "
    "thing things idea ideas name names please something cheaper".split()
)

_HONEST = re.compile(
    r"\b(can'?t|cannot|can not|couldn'?t|don'?t|do not|am not able|unable|no way to|not able)\b[^.]{0,40}"
    r"\b(know|check|access|tell|see|look|say|predict|provide|have|get|find)\b"
    r"|\b(offline|real-time|real time|live data|no internet|not connected|no access|i'm not sure|i am not sure)\b",
    re.IGNORECASE,
)

_VIOLATIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("markdown", re.compile(r"\*\*|__|(^|\n)\s*#{1,6}\s|\[[^\]]+\]\([^)]+\)|`")),
    ("list", re.compile(r"(^|\n)\s*(?:[-*+•]|\d{1,2}[.)])\s")),
    ("url", re.compile(r"https?://|www\.", re.IGNORECASE)),
    ("code", re.compile(r"```|\bdef \w+\(|\bprint\(|;\s*$|\{\s*\}", re.MULTILINE)),
    ("emoji", re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff]")),
)


def _stems(words: Sequence[str]) -> set[str]:
    return {w[:4] for w in words}  # "salty" ~ "salt", "planets" ~ "planet"


def topic_words(question: str) -> list[str]:
    """The question's content words that name a topic (follow-up words left out)."""
    return [w for w in content_words(question) if w not in _FOLLOW_UP]


def on_topic(question: str, answer: str, *, previous: str = "", tool: bool = False, unknowable: bool = False) -> bool:
    """Whether ``answer`` is about ``question`` (``previous``: the user turn a follow-up continues).

    ``unknowable``: an honest "I can't know that offline" is the on-topic answer to it."""
    if tool or (unknowable and honest(answer)):
        return True
    words = topic_words(question)
    if len(words) < 2 and previous:
        words += topic_words(previous)
    if not words:
        return bool(answer.strip())  # "tell me something else": any fresh answer is on topic
    return bool(_stems(words) & _stems(content_words(answer)))


def factual(answer: str, keywords: Sequence[str]) -> bool:
    """Every keyword group (alternatives split by ``|``) appears in ``answer``, at a word start."""
    low = answer.lower()
    return all(any(re.search(r"(?<![\w])" + re.escape(alt.strip()), low) for alt in group.split("|")) for group in keywords)


def honest(answer: str) -> bool:
    """For an unknowable question: the answer says it cannot know or check (rather than inventing)."""
    return bool(_HONEST.search(answer))


def violations(answer: str) -> list[str]:
    """The kinds of text in ``answer`` that should not reach TTS (markdown, list, url, code, emoji)."""
    return [name for name, rx in _VIOLATIONS if rx.search(answer)]


def repeated(
    answer: str, question: str, earlier: Sequence[tuple[str, str]], *, unknowable: bool = False, same_conversation: bool = True
) -> bool:
    """``earlier``: (question, answer) before this one in the conversation, or (``same_conversation=False``)
    the answers to the other single questions of the run, where only the same answer counts.

    ``unknowable``: the question needs live data; then the same honest refusal as before is not a copy
    (a refusal to a question the model could answer still is).
    """
    if unknowable and honest(answer) and not repetition(answer, []):  # "I can't know that offline" to two weather questions
        return False
    if repetition(answer, [a for _, a in earlier] if same_conversation else []):  # an 8-word run in common, or a loop
        return True
    others = [a for q, a in earlier if q.strip().lower() != question.strip().lower()]
    return repetition(answer, others, n=10**6) == REPEAT  # only the "same answer" rule across questions


def spoken_seconds(answer: str) -> float:
    return len(answer.split()) / WORDS_PER_SECOND


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return float(values[0])
    return float(statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]) if 0 < q < 1 else float(max(values))
