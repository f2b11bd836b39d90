"""The bench's WER scorer: normalization and word-level edit distance, expected values counted by hand."""

from __future__ import annotations

import pytest

from bench.wer import edit_distance, normalize, number_words, wer, word_errors


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("How many days are there in a leap year?", "how many days are there in a leap year"),
        ("It's 20 km - roughly!", "it's twenty km roughly"),
        ("144", "one hundred forty four"),
        ("In 2026, 1,000 people.", "in two thousand twenty six one thousand people"),
        ("'Quoted' words", "quoted words"),
        ("About 12.4 miles.", "about twelve point four miles"),
        ("Only 10% of it, 3.", "only ten percent of it three"),
        ("  ", ""),
    ],
)
def test_normalize_lowers_drops_punctuation_and_spells_numbers(text: str, normal: str) -> None:
    assert normalize(text) == normal


def test_number_words_are_said_the_way_people_say_them() -> None:
    assert number_words(0) == "zero"
    assert number_words(40) == "forty"
    assert number_words(366) == "three hundred sixty six"
    assert number_words(9001) == "nine thousand one"
    with pytest.raises(ValueError, match="outside"):
        number_words(10_000)


def test_edit_distance_counts_substitutions_deletions_and_insertions() -> None:
    assert edit_distance([], []) == 0
    assert edit_distance("a b c".split(), "a b c".split()) == 0
    assert edit_distance("a b c".split(), "a x c".split()) == 1  # one substitution
    assert edit_distance("a b c".split(), "a c".split()) == 1  # one deletion
    assert edit_distance("a b c".split(), "a b c d".split()) == 1  # one insertion
    assert edit_distance("a b".split(), []) == 2
    assert edit_distance([], "a b".split()) == 2
    assert edit_distance("the cat sat".split(), "sat the cat".split()) == 2  # delete "sat" at the end, insert it first


def test_word_errors_of_the_issues_mishearing() -> None:
    # days → games, a → the, leap → lead: three substitutions in 9 words
    assert word_errors("How many days are there in a leap year?", "How many games are there in the lead year?") == (3, 9)
    assert word_errors("Convert twenty kilometers to miles.", "convert 20 kilometers to miles") == (0, 5)


def test_corpus_wer_is_all_errors_over_all_reference_words() -> None:
    pairs = [("one two three four", "one two three four"), ("a b", "a c"), ("x y z w", "")]
    # 0 + 1 + 4 errors over 4 + 2 + 4 words
    assert wer(pairs) == pytest.approx(5 / 10)
    assert wer([]) == 0.0
    assert wer([("", "noise")]) == 0.0  # no reference words: nothing to score


def test_the_bench_variant_names_spell_out_their_decoder_options() -> None:
    from bench.asr_wer import variant

    v = variant("base-beam-prompt-w8m2", "/models/base")
    assert (v.path, v.final_beam_size, v.context_prompt, v.window_s, v.window_margin_s) == ("/models/base", 4, True, 8.0, 2.0)
    t = variant("tiny-beam2", None)
    assert (t.path, t.final_beam_size, t.context_prompt, t.window_s, t.window_margin_s) == (None, 2, False, 10.0, 4.0)
    assert variant("tiny", None).final_beam_size is None
    with pytest.raises(ValueError, match="joined"):
        variant("base", None)
    with pytest.raises(ValueError, match="unknown part"):
        variant("tiny-fast", None)


def test_the_bench_variant_parts_set_the_search_and_prompt_options() -> None:
    from bench.asr_wer import INITIAL_PROMPTS, variant

    v = variant("base-beam5-prompt-init1-pat1.5-lp0.8-rp1.1-nr3-pw20", "/models/base")
    assert (v.final_beam_size, v.final_initial_prompt, v.patience, v.length_penalty) == (5, INITIAL_PROMPTS[1], 1.5, 0.8)
    assert (v.repetition_penalty, v.no_repeat_ngram_size, v.prompt_words) == (1.1, 3, 20)
    with pytest.raises(ValueError, match="unknown part"):
        variant("tiny-init99", None)


def test_the_default_asr_initial_prompt_is_the_one_the_bench_measured_as_init1() -> None:
    from app.settings_model import BASE_INITIAL_PROMPT, default_asr
    from bench.asr_wer import INITIAL_PROMPTS

    assert BASE_INITIAL_PROMPT == INITIAL_PROMPTS[1]
    assert default_asr()[0].options["final_initial_prompt"] == INITIAL_PROMPTS[1]
