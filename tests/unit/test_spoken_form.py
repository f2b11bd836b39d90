"""The spoken form of answers: markup, lists, links, emoji and units rewritten into words, the same however it streams."""

from __future__ import annotations

import pytest

from genx.assistant.numbers import number_words, ordinal_word
from genx.assistant.spoken_form import SpokenForm, spoken

CASES = [
    # (written by the model, what is said and shown)
    ("The capital of France is Paris.", "The capital of France is Paris."),
    ("It is 20 km away.", "It is twenty kilometres away."),
    ("It is 1 km away.", "It is one kilometre away."),
    ("Drive 5km north", "Drive five kilometres north."),
    ("A speed of 100 km/h, roughly.", "A speed of one hundred kilometres per hour, roughly."),
    ("It weighs 2.5 kg.", "It weighs two point five kilograms."),
    ("Water boils at 100°C.", "Water boils at one hundred degrees Celsius."),
    ("It grew 50% last year.", "It grew fifty percent last year."),
    ("It costs $5.", "It costs five dollars."),
    ("It costs $1.50 in total.", "It costs one dollar and fifty cents in total."),
    ("About 1,500 m high.", "About one thousand five hundred metres high."),
    ("I have 3 cats.", "I have 3 cats."),
    ("17 × 23 = 391", "17 times 23 equals 391."),
    ("It is -5°C outside", "It is minus five degrees Celsius outside."),
    ("It takes 3 - 5 days.", "It takes 3 to 5 days."),
    ("In Tokyo it's 9:56 PM (Asia/Tokyo, UTC+09:00).", "In Tokyo it's 9:56 PM (Asia/Tokyo, UTC+09:00)."),
    ("It happened in 1969.", "It happened in 1969."),
    ("**Pasta** is *quick*.", "Pasta is quick."),
    ("Use `ls` to list files.", "Use ls to list files."),
    ("Read [the guide](https://example.org/guide) first.", "Read the guide first."),
    ("See https://www.bbc.co.uk/news for more.", "See bbc dot co dot uk for more."),
    ("Have fun! 🎉😀", "Have fun!"),
    ("Great idea 👍 really", "Great idea really."),
    ("Salt & pepper", "Salt and pepper."),
    ("# Dinner ideas\nTry soup.", "Dinner ideas. Try soup."),
    ("> quoted words", "quoted words."),
    (
        "Here are three ideas:\n1. Pasta with garlic\n2. A salad\n3. Tacos",
        "Here are three ideas: First, Pasta with garlic. Second, A salad. Third, Tacos.",
    ),
    ("- eggs\n- milk\n- bread", "First, eggs. Second, milk. Third, bread."),
    ("* one.\n* two!", "First, one. Second, two!"),
    ("Code:\n```python\nprint('hi')\n```\nThat prints hi.", "Code: That prints hi."),
    ("Two lists:\n- a\n- b\n\nAnd:\n- c", "Two lists: First, a. Second, b. And: First, c."),
]


@pytest.mark.parametrize(("written", "said"), CASES)
def test_an_answer_is_rewritten_into_its_spoken_form(written: str, said: str) -> None:
    assert spoken(written) == said


@pytest.mark.parametrize(("written", "said"), CASES)
def test_the_spoken_form_does_not_depend_on_how_the_text_is_split_into_deltas(written: str, said: str) -> None:
    for size in (1, 2, 3, 7):
        form = SpokenForm()
        out = "".join(form.feed(written[i : i + size]) for i in range(0, len(written), size)) + form.flush()
        assert out == said, size


def test_a_word_leaves_as_soon_as_the_space_after_it_arrives() -> None:
    form = SpokenForm()
    assert form.feed("Hello") == ""
    assert form.feed(" there") == "Hello"
    assert form.feed(", friend. ") == " there, friend."


def test_a_number_waits_for_the_next_word_which_may_be_its_unit() -> None:
    form = SpokenForm()
    assert form.feed("It is 20 ") == "It is"
    assert form.feed("km away ") == " twenty kilometres away"


@pytest.mark.parametrize(
    ("digits", "words"),
    [
        ("0", "zero"),
        ("7", "seven"),
        ("13", "thirteen"),
        ("20", "twenty"),
        ("42", "forty-two"),
        ("100", "one hundred"),
        ("101", "one hundred and one"),
        ("1,000", "one thousand"),
        ("2024", "two thousand and twenty-four"),
        ("1500000", "one million five hundred thousand"),
        ("12.43", "twelve point four three"),
        ("-3", "minus three"),
    ],
)
def test_numbers_are_said_in_words(digits: str, words: str) -> None:
    assert number_words(digits) == words


def test_what_is_not_a_number_we_say_stays_none() -> None:
    assert number_words("12a") is None
    assert number_words("1" + "0" * 13) is None


def test_list_items_are_counted_in_ordinals_then_next() -> None:
    assert [ordinal_word(i) for i in (1, 2, 3, 10, 11)] == ["First", "Second", "Third", "Tenth", "Next"]
