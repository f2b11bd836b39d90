"""Word error rate: pure text functions shared by the ASR bench and the speech tests.

:func:`normalize` makes a reference and a transcript comparable (lower case, no
punctuation, hyphens as spaces, whole numbers 0 … 9999 as words, so "20" and
"twenty" are the same word; "12.4" reads "twelve point four", "%" "percent");
:func:`word_errors` counts substitutions, deletions and insertions (word-level
Levenshtein distance); :func:`wer` is the corpus WER (all errors over all
reference words, as jiwer computes it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """0 … 9999 in words, the way people say them ("one hundred forty four", "two thousand twenty six")."""
    if not 0 <= n <= 9999:
        raise ValueError(f"number_words: {n} is outside 0 … 9999")
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f" {_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {number_words(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    return f"{_ONES[thousands]} thousand" + (f" {number_words(rest)}" if rest else "")


def normalize(text: str) -> str:
    """Lower case, no punctuation, numbers as words, single spaces (what WER compares)."""
    t = text.lower().replace("-", " ")
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)  # 1,000 → 1000
    t = re.sub(r"(?<=\d)\.(?=\d)", " point ", t)  # 12.4 → 12 point 4 (said "twelve point four")
    t = t.replace("%", " percent ")
    t = re.sub(r"[^a-z0-9' ]+", " ", t)
    t = re.sub(r"\b\d{1,4}\b", lambda m: number_words(int(m.group(0))), t)
    t = re.sub(r"(^| )'+|'+(?= |$)", " ", t)  # quotes, not apostrophes inside words
    return re.sub(r"\s+", " ", t).strip()


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    """Fewest substitutions, deletions and insertions turning ``ref`` into ``hyp``."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i]
        for j, h in enumerate(hyp, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h)))
        prev = cur
    return prev[-1]


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """``(errors, reference words)`` of one transcript, both texts normalized."""
    ref, hyp = normalize(reference).split(), normalize(hypothesis).split()
    return edit_distance(ref, hyp), len(ref)


def wer(pairs: Iterable[tuple[str, str]]) -> float:
    """Corpus WER of ``(reference, hypothesis)`` pairs: total errors / total reference words (0.0 for no words)."""
    errors = words = 0
    for ref, hyp in pairs:
        e, n = word_errors(ref, hyp)
        errors += e
        words += n
    return errors / words if words else 0.0


__all__ = ["edit_distance", "normalize", "number_words", "wer", "word_errors"]
