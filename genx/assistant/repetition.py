"""Repetition checks on an answer: does it repeat an earlier answer of the conversation, or loop on itself?

The 135M offline model, led by its own last answer, copies it ("A leap year is
4 years, not a creature that exists in this world.") or loops ("Aleph-Lamma-
Lemma-Lemma-…"). :func:`repetition` names the problem in a (partial) answer:

* ``"repeats an earlier answer"``: it shares a run of ``n`` (8) words with an
  earlier answer, or, for answers shorter than that, it *is* an earlier answer;
* ``"loops on itself"``: the same word four times in a row, or a run of
  ``loop_n`` (4) words three times.

Words are compared lower-cased, letters and digits only, so punctuation and
case do not hide a copy. The same definitions score the answer-quality bench
(``bench/answer_quality.py``) and drive the guard (:mod:`genx.assistant.guard`).
Pure.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator, Sequence

__all__ = ["LOOP", "REPEAT", "norm_words", "repetition", "shares_run", "word_spans"]

REPEAT = "repeats an earlier answer"
LOOP = "loops on itself"

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def norm_words(text: str) -> list[str]:
    """``text``'s words, lower-cased, punctuation dropped ("Leap-year, 4!" → ["leap", "year", "4"])."""
    return [w.lower() for w in _WORD.findall(text)]


def word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, word)`` of each of :func:`norm_words`' words in ``text``, lazily (a caller may stop early)."""
    return ((m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text))


def _runs(words: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def shares_run(a: Sequence[str], b: Sequence[str], n: int = 8) -> bool:
    """Whether word lists ``a`` and ``b`` share a run of ``n`` words."""
    return len(a) >= n and len(b) >= n and not _runs(a, n).isdisjoint(_runs(b, n))


def loops(words: Sequence[str], *, loop_n: int = 4, times: int = 3, same_word: int = 4) -> bool:
    run = 1
    for prev, cur in itertools.pairwise(words):
        run = run + 1 if cur == prev else 1
        if run >= same_word:
            return True
    if len(words) < loop_n * times:
        return False
    counts = Counter(tuple(words[i : i + loop_n]) for i in range(len(words) - loop_n + 1))
    return max(counts.values(), default=0) >= times


def repetition(text: str, earlier: Sequence[str], *, n: int = 8, final: bool = True) -> str:
    """The problem of answer ``text`` given the ``earlier`` answers ("" when none).

    ``final=False`` for a partial answer still streaming: the "is an earlier short
    answer" rule waits for the end (the first words of a longer answer may match).
    """
    words = norm_words(text)
    if loops(words):
        return LOOP
    for e in earlier:
        ew = norm_words(e)
        if shares_run(words, ew, n):
            return REPEAT
        if final and words and words == ew:
            return REPEAT
    return ""
