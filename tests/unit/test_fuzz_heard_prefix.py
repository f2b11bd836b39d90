"""Fuzzing the incremental heard-prefix matcher: fed growing texts, it answers as a from-scratch match would."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genx.agentkit.spoken import PrefixMatcher, words

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VOCAB = ["one", "two", "Two,", "**bold**", "https://x.y/z", "the", "The.", "a", "好的，", "我", "-", "end!", "e.g.", "3.5"]


def oracle(generated: str, heard: str, lookahead: int = 8) -> str:
    """The matching rule written out plainly: each heard word, in order, matches the first equal generated word
    among the next ``lookahead`` ones after the last match (case and punctuation ignored)."""

    def norm(w: str) -> str:
        return re.sub(r"[\W_]+", "", w.lower())

    gen = [(e, norm(generated[s:e])) for s, e in words(generated)]
    gen = [g for g in gen if g[1]]
    i, end = 0, 0
    for s, e in words(heard):
        h = norm(heard[s:e])
        if not h:
            continue
        for j in range(i, min(len(gen), i + lookahead)):
            if gen[j][1] == h:
                end, i = gen[j][0], j + 1
                break
    return generated[:end].rstrip()


@FUZZ
@given(
    gen_words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=40),
    keep=st.lists(st.booleans(), min_size=40, max_size=40),
    steps=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 60)), min_size=1, max_size=30),
)
def test_the_incremental_matcher_answers_like_a_match_from_scratch(
    gen_words: list[str], keep: list[bool], steps: list[tuple[int, int]]
) -> None:
    generated = " ".join(gen_words)
    heard_words = [w.strip("*") for w, k in zip(gen_words, keep, strict=False) if k]  # some words unspoken, markers dropped
    m = PrefixMatcher()
    g_len, h_len = 0, 0
    for g_step, h_step in steps:
        g_len = min(len(generated), g_len + g_step)  # the generation streams in (cut anywhere, mid-word too)
        h_len = min(len(heard_words), h_len + h_step // 10)  # the heard text grows word by word
        g, h = generated[:g_len], " ".join(heard_words[:h_len])
        assert m(g, h) == oracle(g, h), (g, h)
