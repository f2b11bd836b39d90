"""Listening for known phrases in speech over the answer: Whisper's likelihood of each phrase against its free reading.

Speech over a ducked answer is short, and its first sound is often lost: the residual echo gate silences capture
frames no louder than the echo it expects, and a soft onset ("h" of "Hold on.") is such a frame. Whisper then reads
"Oh, no." and a stop is taken for listener talk. When the loop says which phrases the speaker may be saying (the
stop phrases, ``listen_for``), a short free reading that holds none of them is checked: the free reading and every
phrase are scored by forced decoding on the same encoded audio (the sum of the token log-probabilities, end of text
included), and the best phrase that scores at least the free reading minus ``margin`` (and at least ``floor``: a
murmur Whisper reads as nonsense scores low for everything) is the transcript instead.

Measured on gated "Hold on." clips recorded in the voice loop: the phrase scores -5 to -6 where Whisper read
"Oh, no."/"Oh no." (-6.6 to -8.6), -2 to -4 where it read it right; a spoken "Okay." scores -2.3 for "Okay." and
below -11 for every stop phrase; an espeak "Mm-hm." whose onset was cut, read "I'm a merchant." (-10.8), scores
-11.8 for "Wait.": within the margin, below the floor.

Pure: :func:`holds_phrase`, :func:`should_check`, :func:`verdict`. :func:`forced_scores` runs a loaded model.
Does not own: which phrases are listened for (the loop's, ``genx.agentkit.backchannel``), the decoding itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

_WORD = re.compile(r"[a-z']+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("-", " "))


def holds_phrase(text: str, phrases: Sequence[str]) -> bool:
    """Whether the words of ``text`` contain one of ``phrases``' word sequences ("Okay, hold on!" holds "Hold on.")."""
    ws = _words(text)
    for p in phrases:
        pw = _words(p)
        n = len(pw)
        if n and any(ws[i : i + n] == pw for i in range(len(ws) - n + 1)):
            return True
    return False


def should_check(text: str, phrases: Sequence[str], max_words: int) -> bool:
    """A reading worth checking: at most ``max_words`` words (a longer one is a sentence, not a misheard stop)
    that hold none of ``phrases``. An empty reading is checked too (a stop read as nothing)."""
    return bool(phrases) and len(_words(text)) <= max_words and not holds_phrase(text, phrases)


def verdict(free_score: float, scores: Mapping[str, float], margin: float, *, floor: float = -math.inf) -> str | None:
    """The phrase that replaces the free reading (scored ``free_score``), or None: the best-scoring phrase, when it
    scores at least ``free_score - margin`` and at least ``floor``."""
    if not scores:
        return None
    best = max(scores, key=lambda p: scores[p])
    return best if scores[best] >= max(free_score - margin, floor) else None


def _log_softmax(logits: Any) -> np.ndarray:
    x = np.asarray(logits, dtype=np.float64)
    top = x.max()
    return np.asarray(x - top - np.log(np.exp(x - top).sum()))


def forced_scores(model: Any, tokenizer: Any, encoded: np.ndarray, texts: Sequence[str]) -> list[float]:
    """Log-probability of each of ``texts`` (then the end of text) as the transcript of one clip's encoder output
    ``encoded`` (``[1, frames, width]``), in one batched call of CTranslate2's Whisper ``generate``: with a text's
    tokens as the forced prefix it returns the distribution at every step of the prefix too."""
    import ctranslate2

    base = list(model.get_prompt(tokenizer, [], without_timestamps=True))
    ids = [list(tokenizer.encode(" " + t.strip())) if t.strip() else [] for t in texts]
    batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(encoded, len(ids), axis=0)))
    results = model.model.generate(
        batch,
        [base + x for x in ids],
        beam_size=1,
        max_length=len(base) + max(map(len, ids)) + 4,  # counts in CTranslate2's own way: room for the end of text
        return_logits_vocab=True,
        suppress_blank=False,
        suppress_tokens=[],
    )
    out: list[float] = []
    for x, r in zip(ids, results, strict=True):
        steps = r.logits[0]
        if len(steps) < len(x):  # (not seen) the text was not scored to its end
            out.append(float("-inf"))
            continue
        total = sum(float(_log_softmax(steps[k])[t]) for k, t in enumerate(x))
        if len(steps) > len(x):  # the step after the text: the clip says no more
            total += float(_log_softmax(steps[len(x)])[tokenizer.eot])
        out.append(total)
    return out


__all__ = ["forced_scores", "holds_phrase", "should_check", "verdict"]
