"""The answer-quality bench's scores: repetition, topic, facts, honesty, spoken-form violations, length."""

from __future__ import annotations

import pytest

from bench import answer_quality_data as data
from bench.answer_scores import factual, honest, on_topic, percentile, repeated, spoken_seconds, violations

FOX = "In a small village, there's no such thing as a fox. He is not a creature that exists in this world."


def test_the_issue_answers_copied_from_an_earlier_turn_count_as_repeated() -> None:
    earlier = [("Tell me a story about a fox.", FOX)]
    assert repeated(FOX, "Remind me to call my sister tomorrow morning.", earlier)
    assert not repeated("Sure, I set a reminder for nine.", "Remind me to call my sister tomorrow morning.", earlier)


def test_the_same_short_answer_to_a_different_question_is_repeated_but_not_to_the_same_question() -> None:
    earlier = [("What is the capital of France?", "Paris.")]
    assert repeated("Paris.", "What is the capital of Texas?", earlier)
    assert not repeated("Paris.", "What is the capital of France?", [])


def test_the_same_honest_refusal_to_two_weather_questions_is_not_a_copy() -> None:
    said = "I can't know the weather offline."
    assert not repeated(said, "Will it rain tomorrow?", [("What's the weather like today?", said)], unknowable=True)


def test_the_same_refusal_to_a_question_the_model_could_answer_is_a_copy() -> None:
    said = "I'm sorry, as a voice assistant I don't have the ability to provide that. You can find me on my website."
    assert repeated(said, "What do caterpillars turn into?", [("Tell me a fun fact about octopuses.", said)])


@pytest.mark.parametrize(
    ("question", "answer", "previous", "expected"),
    [
        ("What is the capital of France?", "The capital of France is Paris.", "", True),
        ("What is the capital of France?", "Octopuses have three hearts.", "", False),
        ("Why?", "Because the sea dissolves salt from rocks.", "Why is the ocean salty?", True),
        ("Tell me more.", "A leap year has 366 days.", "Tell me about octopuses.", False),
        ("Stop, tell me something else.", "Honey never spoils.", "", True),
    ],
)
def test_on_topic_is_content_word_overlap_with_the_question_or_the_topic_it_follows(
    question: str, answer: str, previous: str, expected: bool
) -> None:
    assert on_topic(question, answer, previous=previous) is expected


def test_a_tool_answer_is_on_topic() -> None:
    assert on_topic("Convert 20 kilometers to miles.", "That is 12.43.", tool=True)


def test_an_honest_refusal_is_the_on_topic_answer_to_an_unknowable_question_only() -> None:
    said = "I can't know live scores or results offline."
    assert on_topic("Who won the football game last night?", said, unknowable=True)
    assert not on_topic("Who painted the Mona Lisa?", "I can't know that offline.")


def test_single_questions_share_only_the_same_answer_not_eight_words() -> None:
    offer = "I can tell you the time, work out sums, convert units or set a timer."
    earlier = [("What's the weather like today?", "I can't know the weather offline. " + offer)]
    assert not repeated("I can't know the news offline. " + offer, "Any news?", earlier, same_conversation=False)
    assert repeated("Paris.", "Capital of Texas?", [("Capital of France?", "Paris.")], same_conversation=False)


def test_facts_need_every_keyword_group_and_accept_alternatives() -> None:
    assert factual("A leap year has 366 days.", ("366|three hundred and sixty-six",))
    assert factual("It has three hundred and sixty-six days.", ("366|three hundred and sixty-six",))
    assert not factual("A leap year has 365 days.", ("366|three hundred and sixty-six",))
    assert not factual("Sydney is a big city.", ("canberra",))
    assert not factual("The answer is 2366.", ("366",))  # at a word start only


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I can't know the weather offline.", True),
        ("I don't have access to your calendar.", True),
        ("I'm not able to check live scores.", True),
        ("It is sunny and 22 degrees today.", False),
        ("The Lakers won 110 to 98.", False),
    ],
)
def test_honesty_is_saying_it_cannot_know_rather_than_inventing(answer: str, expected: bool) -> None:
    assert honest(answer) is expected


@pytest.mark.parametrize(
    ("answer", "kinds"),
    [
        ("Plain spoken text, nothing else.", []),
        ("**Bold** words", ["markdown"]),
        ("Ideas:\n1. Pasta\n2. Soup", ["list"]),
        ("- eggs\n- milk", ["list"]),
        ("See https://example.org now", ["url"]),
        ("Have fun 🎉", ["emoji"]),
        ("```python\nprint(1)\n```", ["markdown", "code"]),
        ("It is 3 - 2 = 1.", []),
    ],
)
def test_violations_name_what_should_not_reach_the_voice(answer: str, kinds: list[str]) -> None:
    assert violations(answer) == kinds


def test_spoken_length_is_read_at_150_words_a_minute() -> None:
    assert spoken_seconds("one two three four five") == 2.0


def test_percentiles_of_a_few_values() -> None:
    assert percentile([], 0.5) == 0.0
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([1.0, 2.0, 3.0], 0.5) == 2.0


def test_the_sets_are_as_large_as_the_issue_asks() -> None:
    assert len(data.QUESTIONS) >= 100
    assert sum(kind == "unknowable" for _, kind, _ in data.QUESTIONS) >= 15
    long = [c for c in data.CONVERSATIONS.values() if len(c) >= 6]
    assert len(long) >= 20
    assert sum(interrupted for c in long for _, interrupted, _ in c) >= 20
    assert all(name in data.CONVERSATIONS for name in data.QUICK_CONVERSATIONS)
