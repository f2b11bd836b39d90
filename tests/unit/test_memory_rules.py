"""Deterministic extraction and explicit requests: what is a fact, what is a request, what is doubt."""

from __future__ import annotations

import pytest

from genx.memory.intents import Intent, match_intent
from genx.memory.rules import extract


def facts(text: str) -> list[tuple[str, str, str, str]]:
    return [(e.subject, e.attribute, e.value, e.op) for e in extract(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Berlin last year.", [("user", "lives_in", "Berlin", "add")]),
        ("My sister's name is Anna and she is great", [("user", "sister", "Anna", "add")]),
        ("my favorite color is green", [("user", "favourite_colour", "green", "add")]),
        ("I work as a nurse at the city hospital.", [("user", "job", "nurse", "add")]),
        ("I have a dog named Rex.", [("user", "dog", "Rex", "add")]),
        ("My sister Anna lives in Paris.", [("user", "sister", "Anna", "add"), ("Anna", "lives_in", "Paris", "add")]),
        ("I no longer live in Lisbon.", [("user", "lives_in", "Lisbon", "retire")]),
        ("I'm allergic to peanuts and I love hiking", [("user", "allergy", "peanuts", "add"), ("user", "likes", "hiking", "add")]),
    ],
)
def test_first_person_statements_become_facts(text: str, expected: list[tuple[str, str, str, str]]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize("text", ["Do I live in Berlin?", "Where do I live", "I'm 5 minutes late.", "I don't live in a castle, I think"])
def test_questions_and_non_statements_are_not_facts(text: str) -> None:
    assert [f for f in facts(text) if f[3] == "add"] == []


def test_two_values_in_one_turn_keep_the_correction_or_nothing() -> None:
    assert facts("I live in Paris, no wait, I live in Rome.") == [("user", "lives_in", "Rome", "add")]
    assert facts("I live in Paris and I live in Rome.") == []


def test_a_very_long_monologue_is_handled_quickly_and_keeps_the_stated_fact() -> None:
    text = "Well, you know, the weather was odd. " * 2000 + "Anyway my name is Sam."
    assert ("user", "name", "Sam", "add") in facts(text)


def test_words_in_a_language_the_rules_do_not_know_give_no_facts() -> None:
    assert facts("我住在柏林。Ich wohne in Berlin.") == []


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Remember that my wife is called Julia.", Intent("remember", "my wife is called Julia")),
        ("Please remember the spare key is under the mat", Intent("remember", "the spare key is under the mat")),
        ("What do you know about me?", Intent("list")),
        ("Hey Parley, what do you remember about me", Intent("list")),
        ("forget that I live in Berlin", Intent("forget", "I live in Berlin")),
        ("Could you forget that I live in Berlin?", Intent("forget", "I live in Berlin")),
        ("Forget everything.", Intent("forget_all")),
        ("Can you forget everything about me?", Intent("forget_all")),
    ],
)
def test_explicit_requests_are_matched_without_a_model(text: str, intent: Intent) -> None:
    assert match_intent(text) == intent


@pytest.mark.parametrize("text", ["Do you remember my name?", "I forgot my keys", "What do you know about Paris?", ""])
def test_questions_and_ordinary_speech_are_not_requests(text: str) -> None:
    assert match_intent(text) is None
