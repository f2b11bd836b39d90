"""The repetition guard lets an answer's first sentence go word by word, and still lets no repeat out."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from genx.assistant.guard import GuardedGenerator, early_release_point, release_point, word_pairs
from genx.assistant.repetition import norm_words, repetition
from genx.model import ModelContext, ModelContextBuilder
from tests.unit.test_answer_floor import Texts, texts_of

pytestmark = pytest.mark.timeout(60)


async def released(guard: GuardedGenerator, ctx: ModelContext) -> list[str]:
    return await texts_of(await guard.generate_stream("m", ctx))


def after(answer: str, user: str) -> ModelContext:
    return ModelContextBuilder().user("where is the station").assistant(answer).user(user).build()


async def test_a_new_first_sentence_leaves_a_word_at_a_time_instead_of_eight_words_late() -> None:
    tokens = ["The ", "moon ", "is ", "far ", "away. ", "It ", "is ", "bright ", "at ", "night ", "and ", "cold ", "too."]
    guard = GuardedGenerator(Texts(tokens))
    out = await released(guard, after("The station is two streets away.", "tell me about the moon"))
    assert out[:4] == ["The ", "moon ", "is ", "far "]  # each word as soon as the next one is complete
    assert "".join(out) == "".join(tokens)
    assert guard.caught == []


async def test_after_the_first_sentence_the_last_eight_words_are_held_again() -> None:
    first = "The moon is far away. "
    rest = ["It ", "is ", "bright ", "at ", "night ", "and ", "cold ", "too ", "and ", "round."]
    guard = GuardedGenerator(Texts([first, *rest]))
    out = await released(guard, after("The station is two streets away.", "tell me about the moon"))
    assert "".join(out[:2]) == first  # ('away.' left when the next word was complete)
    assert out[2:4] == ["It ", "is "]  # each only once eight words followed it: 'It' with '... too and'
    assert "".join(out) == first + "".join(rest)


def test_words_shared_with_an_earlier_answer_wait_until_the_answer_goes_its_own_way() -> None:
    pairs = word_pairs(["The nearest train station is in Paris, France."])
    shared = "The nearest train station is in"
    assert early_release_point(shared, pairs) == 0
    diverged = "The nearest train station is 12 kilometres away, and then it"
    assert diverged[: early_release_point(diverged, pairs)] == "The nearest train station is 12 kilometres away, and "


def test_a_word_that_may_go_on_in_the_next_token_holds_the_one_before_it() -> None:
    pairs: frozenset[tuple[str, str]] = frozenset()
    assert "It is nea"[: early_release_point("It is nea", pairs)] == "It "  # 'nea' may become 'nearby'
    assert "I don'"[: early_release_point("I don'", pairs)] == ""  # "don'" may become "don't"
    assert "It is 12:3"[: early_release_point("It is 12:3", pairs)] == "It is "  # never inside '12:30'


def test_only_the_first_sentence_goes_early() -> None:
    text = "It is cold. The moon is far away and bright"
    assert text[: early_release_point(text, frozenset())] == "It is cold. "


def test_a_word_said_twice_in_a_row_is_held_with_the_run_it_may_start() -> None:
    text = "Lemma Lemma Lemma"
    assert early_release_point(text, frozenset()) == 0


async def test_a_copy_of_an_earlier_answer_is_still_replaced_before_any_of_it_leaves() -> None:
    earlier = "In a small village there is no such thing as a fox at all."
    copy = [w + " " for w in earlier.split()]
    guard = GuardedGenerator(Texts(copy))
    guard.retries = ()
    out = await released(guard, after(earlier, "tell me another story"))
    assert "village" not in "".join(out)
    assert guard.caught


VOCAB = ["a", "b", "c", "d", "e"]


def first_repeated_word(words: list[str], earlier: list[str]) -> int:
    """Where the first run the guard catches starts: 8 words shared with ``earlier``, a word four
    times in a row, or the third time of a 4-word run (worked out here without the guard's code)."""
    starts = [len(words)]
    runs8 = {tuple(earlier[i : i + 8]) for i in range(len(earlier) - 7)}
    starts += [i for i in range(len(words) - 7) if tuple(words[i : i + 8]) in runs8]
    starts += [i for i in range(len(words) - 3) if len(set(words[i : i + 4])) == 1]
    seen: dict[tuple[str, ...], int] = {}
    for i in range(len(words) - 3):
        g = tuple(words[i : i + 4])
        seen[g] = seen.get(g, 0) + 1
        if seen[g] == 3:
            starts.append(i)
    return min(starts)


@settings(max_examples=400, deadline=None)
@example(earlier=[], answer="a b c d e a b c d c a b c d".split())  # a 4-word loop, its third time
@example(earlier="a b c d e a b c d".split(), answer="e e a b c d e a b c d".split())  # a copy after a new start
@given(
    earlier=st.lists(st.sampled_from(VOCAB), min_size=0, max_size=30),
    answer=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=30),
)
def test_no_word_of_a_caught_repeat_has_left_when_the_guard_catches_it(earlier: list[str], answer: list[str]) -> None:
    earlier_text = " ".join(earlier) + "."
    pairs = word_pairs([earlier_text])
    text, sent = "", 0
    for w in answer:
        text += w + " "
        if repetition(text, [earlier_text], final=False):
            words = norm_words(text)
            assert len(norm_words(text[:sent])) <= first_repeated_word(words, earlier)
            return
        sent = max(sent, release_point(text, 8), early_release_point(text, pairs))
