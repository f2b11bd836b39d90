"""Listening for the stop phrases over the answer: which readings are checked, and which phrase wins."""

from __future__ import annotations

from genx.agentkit.backchannel import STOP_PHRASES, WRITTEN_STOP_PHRASES, classify
from genx.local.whisper_verify import holds_phrase, should_check, verdict

PHRASES = ("Hold on.", "Stop.", "Wait.")


def test_a_reading_holds_a_phrase_as_a_run_of_its_words_whatever_the_case_and_punctuation() -> None:
    assert holds_phrase("Okay, HOLD ON!", PHRASES)
    assert holds_phrase("wait", PHRASES)
    assert not holds_phrase("Hold the door on.", PHRASES)  # the words, but not one after the other
    assert not holds_phrase("Oh, no.", PHRASES)


def test_only_a_short_reading_holding_no_phrase_is_checked() -> None:
    assert should_check("Oh, no.", PHRASES, 4)
    assert should_check("", PHRASES, 4)  # a stop heard as nothing
    assert should_check("What are you doing?", PHRASES, 4)
    assert not should_check("Can you tell me about the moon instead?", PHRASES, 4)  # a sentence: an interruption anyway
    assert not should_check("Hold on.", PHRASES, 4)  # already a stop
    assert not should_check("Oh, no.", (), 4)  # nothing to listen for


def test_the_best_phrase_replaces_the_reading_only_within_the_margin() -> None:
    scores = {"Hold on.": -5.9, "Stop.": -13.8, "Wait.": -10.8}
    assert verdict(-3.9, scores, 1.0) is None  # the reading scored 2 better than "Hold on."
    assert verdict(-6.6, scores, 1.0) == "Hold on."  # within the margin
    assert verdict(-8.6, scores, 1.0) == "Hold on."  # the phrase scores better than the reading
    assert verdict(-3.0, {}, 1.0) is None


def test_a_phrase_below_the_floor_never_replaces_the_reading_however_poor_the_reading() -> None:
    scores = {"Wait.": -11.8, "Stop.": -12.1}  # an espeak "Mm-hm." without its onset, read "I'm a merchant." (-10.8)
    assert verdict(-10.8, scores, 1.0) == "Wait."
    assert verdict(-10.8, scores, 1.0, floor=-8.0) is None
    assert verdict(-6.6, {"Hold on.": -5.9}, 1.0, floor=-8.0) == "Hold on."


def test_every_written_stop_phrase_is_read_as_a_stop_by_the_turn_rule() -> None:
    assert len(WRITTEN_STOP_PHRASES) == len(STOP_PHRASES) - 1  # "nevermind" is written as "Never mind."
    assert all(classify(p) == "stop" for p in WRITTEN_STOP_PHRASES)
