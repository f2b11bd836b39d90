"""The model's own words that the user heard: matching the spoken (TTS-tidied) text back to the generated text.

The TTS front end may change what it speaks (markdown markers, URLs and tags
dropped, spaces tidied), so the heard text (:mod:`.spoken`) is mapped back onto
the generated text word by word; history keeps the model's wording, never a word
that was not heard. Does not own which words were heard (:mod:`.spoken`).
"""

from __future__ import annotations

import re

from genx.agentkit.words import words

_NOT_WORD = re.compile(r"[\W_]+")


def _norm(word: str) -> str:
    return _NOT_WORD.sub("", word.lower())


def generated_prefix(generated: str, heard: str, lookahead: int = 8) -> str:
    """The prefix of ``generated`` (the model's own text) whose words ``heard`` covers.

    ``heard`` is built from the segments as they were spoken, which the TTS
    front end may have changed (markdown markers, URLs and tags dropped, spaces
    tidied). Its words are matched in order to the generated words (case and
    punctuation ignored, skipping at most ``lookahead`` generated words that were
    not spoken), and the generated text up to the last matched word is returned,
    so history keeps the model's own wording, never a word it did not hear.
    """
    return PrefixMatcher(lookahead)(generated, heard)


class PrefixMatcher:
    """:func:`generated_prefix` for texts that grow: called again with a longer ``generated`` and / or a longer
    ``heard``, it tokenizes and matches only what was added (the player asks ~100 times a second while the
    heard text changes a few times). Any other change starts over, so the result is always the same as
    :func:`generated_prefix`'s."""

    __slots__ = ("_end", "_gen", "_gen_text", "_heard", "_i", "_missed", "_result", "lookahead")

    def __init__(self, lookahead: int = 8) -> None:
        self.lookahead = lookahead
        self._gen_text = ""
        self._gen: list[tuple[int, int, str]] = []  # generated words: (start, end, normalized), non-empty only
        self._reset_heard()

    def _reset_heard(self) -> None:
        self._heard = ""
        self._i = 0  # next generated word to match
        self._end = 0  # end of the last matched generated word
        self._missed = False  # a heard word found no generated word (more generated text could change that)
        self._result = ""

    def __call__(self, generated: str, heard: str) -> str:
        if generated != self._gen_text:
            self._extend_generated(generated)
        if heard != self._heard:
            if heard.startswith(self._heard) and (not self._heard or heard[len(self._heard) : len(self._heard) + 1].isspace()):
                self._match(heard, len(self._heard))
            else:
                self._reset_heard()
                self._match(heard, 0)
            self._heard = heard
            self._result = generated[: self._end].rstrip()
        return self._result

    def _extend_generated(self, generated: str) -> None:
        old = self._gen_text
        if not generated.startswith(old):
            self._gen = []
            self._gen_text = ""
            self._reset_heard()
            old = ""
        # the last word may have been cut by the end of the old text: tokenize again from its start
        keep = len(self._gen)
        if keep and self._gen[-1][1] >= len(old):
            keep -= 1
        if keep < self._i or self._missed:  # a matched word was incomplete, or a missed one may match now: start over
            self._reset_heard()
        del self._gen[keep:]
        base = self._gen[-1][1] if self._gen else 0
        for s, e in words(generated[base:]):
            n = _norm(generated[base + s : base + e])
            if n:
                self._gen.append((base + s, base + e, n))
        self._gen_text = generated
        self._result = generated[: self._end].rstrip()

    def _match(self, heard: str, offset: int) -> None:
        gen = self._gen
        for s, e in words(heard[offset:]):
            h = _norm(heard[offset + s : offset + e])
            if not h:
                continue
            for j in range(self._i, min(len(gen), self._i + self.lookahead)):
                if gen[j][2] == h:
                    self._end = gen[j][1]
                    self._i = j + 1
                    break
            else:
                self._missed = True


__all__ = ["PrefixMatcher", "generated_prefix"]
