"""Backchannels, coughs and real interruptions while Parley speaks: the word table, then the loop on the scripted rig."""

from __future__ import annotations

import pytest

from genx.agentkit.backchannel import classify, is_interruption
from genx.agentkit.echo import EchoGate, FarEndTimeline
from genx.agentkit.events import AssistantDone, BargeIn, SpeechDismissed, UserFinal
from genx.agentkit.loop import LoopConfig
from genx.agentkit.testing import Reply, Rig

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("text", "meaning"),
    [
        ("", "empty"),
        ("...", "empty"),
        ("Mm-hm.", "backchannel"),
        ("Uh-huh", "backchannel"),
        ("okay", "backchannel"),
        ("Yeah, yeah.", "backchannel"),
        ("Right.", "backchannel"),
        ("Sure", "backchannel"),
        ("I see.", "backchannel"),
        ("oh, okay, got it", "backchannel"),
        ("Stop.", "stop"),
        ("wait", "stop"),
        ("Hold on a second", "stop"),
        ("okay stop", "stop"),
        ("Please be quiet", "stop"),
        ("tell me about dogs instead", "words"),
        ("okay but what about cats", "words"),
        ("I see a problem", "words"),
        ("yes please", "words"),
    ],
)
def test_words_over_the_answer_are_classified_by_the_table(text: str, meaning: str) -> None:
    assert classify(text) == meaning


@pytest.mark.parametrize(
    ("text", "voiced_ms", "interrupts"),
    [
        ("Mm-hm.", 500, False),
        ("", 300, False),  # a cough
        ("wait", 200, True),  # a stop phrase, however short
        ("tell me about dogs", 600, True),  # enough words
        ("What about cats?", 400, True),
        ("talking please", 300, True),  # what the echo gate let through of "wait, stop talking please"
        ("okay", 900, True),  # listener talk that goes on this long is speech
        ("", 900, True),  # long sound with no words yet
        ("Haha.", 500, False),  # what Whisper wrote for a murmur or a laugh
        ("M.M.A. Kim", 700, False),  # ... and for a robotic "mm-hm": one word that is not a lone letter
        ("Thank you.", 500, False),
        ("yeah but why", 500, True),  # two words that are not listener talk
        ("and me", 500, False),
        ("Amen. Amen.", 600, False),  # the same odd word twice is still one
        ("No, no.", 400, True),  # ... but only words that carry nothing of their own (a murmured "mm-hm")
        ("MMC App", 500, False),  # names and acronyms: what Whisper wrote for murmurs over the answer
        ("and the Meechan.", 500, False),
        ("Sorry, Tuhan.", 500, False),
        ("What about Paris?", 500, True),  # a name in a request still lets its other words count
        ("Parley, what is that?", 500, True),  # (a sentence's first word is not a name by its capital)
        ("I'm bored, tell me a joke", 500, True),
    ],
)
def test_an_interruption_needs_a_stop_phrase_enough_words_or_enough_speech(text: str, voiced_ms: float, interrupts: bool) -> None:
    assert is_interruption(text, voiced_ms, after_ms=800) is interrupts


# 12 short sentences, one every 0.4 s (each ~1 s of the tone voice): an answer far longer than any backchannel
STORY = Reply([(0.1 + 0.4 * i, f"Sentence {i} is here. ") for i in range(12)])
STORY_TEXT = "".join(t for _, t in STORY.tokens).strip()


async def _rig(**kw: object) -> Rig:
    kw.setdefault("config", LoopConfig(generator="fake/model", system_prompt="Be brief.", backchannel_ducking=True))
    rig = Rig(**kw)  # type: ignore[arg-type]
    await rig.start()
    return rig


async def test_a_backchannel_while_parley_speaks_ducks_the_answer_which_then_goes_on_to_its_end() -> None:
    rig = await _rig(speech=[(0.5, 1.5), (4.0, 4.4)], transcripts=["tell me a story", "mm-hm"], replies=[STORY])
    await rig.run_until(30.0)
    done = rig.of(AssistantDone)
    assert [(d.interrupted, d.text) for d in done] == [(False, STORY_TEXT)]  # nothing truncated
    assert done[0].spoken_text == STORY_TEXT
    assert rig.of(BargeIn) == []
    assert [e.text for e in rig.of(SpeechDismissed)] == ["mm-hm"]
    assert [e.text for e in rig.of(UserFinal)] == ["tell me a story"]
    ducks = [db for _, db in rig.player.ducks]
    assert ducks[:2] == [rig.loop.config.duck_db, None]  # ducked, then restored
    t_duck = rig.player.ducks[0][0] - rig.t0
    assert 4.0 <= t_duck <= 4.0 + 0.2  # at the onset (the VAD's decision), not after the words
    assert [(t.user_text, t.interrupted) for t in rig.loop.history.turns()] == [("tell me a story", False)]
    await rig.stop()


async def test_speech_over_a_ducked_answer_tells_the_asr_so_and_the_question_before_it_did_not() -> None:
    # the ASR decodes words that decide a stop without a fixed conversational prompt (it primes "Got it.")
    rig = await _rig(speech=[(0.5, 1.5), (4.0, 4.4)], transcripts=["tell me a story", "mm-hm"], replies=[STORY])
    await rig.run_until(30.0)
    assert rig.asr.over_answer == [False, True]
    assert rig.asr.listen_for[0] == [] and "Hold on." in rig.asr.listen_for[1]  # the stop phrases, as Whisper writes them
    await rig.stop()


async def test_speech_that_cuts_the_answer_on_sound_is_not_marked_as_over_the_answer() -> None:
    cfg = LoopConfig(generator="fake/model", system_prompt="Be brief.", backchannel_ducking=False)
    replies = [STORY, Reply([(0.1, "Okay.")])]
    rig = await _rig(speech=[(0.5, 1.5), (4.0, 4.6)], transcripts=["tell me a story", "stop"], replies=replies, config=cfg)
    await rig.run_until(12.0)
    assert len(rig.of(BargeIn)) == 1
    assert rig.asr.over_answer == [False, False]  # the answer was cut at the onset: this is the next question
    await rig.stop()


async def test_while_ducked_the_echo_far_end_holds_the_ducked_level_so_the_gate_can_hear_the_user() -> None:
    # The gate compares the microphone with the far end: if the far end kept the full level while the
    # player is 24 dB down, the user's words over a ducked answer would be gated as "echo".
    gate = EchoGate(FarEndTimeline(keep=10.0))
    rig = await _rig(speech=[(0.5, 1.5), (4.0, 4.4)], transcripts=["tell me a story", "mm-hm"], replies=[STORY], echo_gate=gate)
    await rig.run_until(3.9)
    t = rig.clock()
    before = gate.far.level_db(t - 0.3, t)
    await rig.run_until(4.5)
    assert rig.player.ducks and rig.player.ducks[-1][1] == rig.loop.config.duck_db, "not ducked yet"
    t = rig.clock()
    during = gate.far.level_db(t - 0.2, t - 0.1)
    assert before > -40.0, before  # the answer was playing
    assert during - before == pytest.approx(rig.loop.config.duck_db, abs=3.0)
    await rig.stop()


async def test_a_stop_word_while_parley_speaks_cuts_the_answer_and_keeps_only_what_was_heard() -> None:
    rig = await _rig(speech=[(0.5, 1.5), (4.0, 4.6)], transcripts=["tell me a story", "stop"], replies=[STORY, Reply([(0.1, "Okay.")])])
    await rig.run_until(12.0)
    done = rig.of(AssistantDone)
    assert done[0].interrupted and done[0].spoken_text and STORY_TEXT.startswith(done[0].spoken_text)
    assert len(rig.of(BargeIn)) == 1
    assert rig.of(SpeechDismissed) == []
    assert [e.text for e in rig.of(UserFinal)] == ["tell me a story", "stop"]
    await rig.stop()


async def test_long_speech_over_the_answer_is_an_interruption_and_the_answer_is_cut() -> None:
    rig = await _rig(
        speech=[(0.5, 1.5), (4.0, 5.6)],
        transcripts=["tell me a story", "actually tell me about dogs"],
        replies=[STORY, Reply([(0.1, "Dogs are loyal.")])],
    )
    await rig.run_until(12.0)
    (bi,) = rig.of(BargeIn)
    done = rig.of(AssistantDone)
    assert done[0].interrupted and not done[1].interrupted and done[1].text == "Dogs are loyal."
    assert rig.player.ducks[-1][1] is None  # the next answer plays at full volume
    assert bi.latency_ms < 1500  # cut within the speech, before its transcript
    await rig.stop()


async def test_long_speech_over_a_ducked_answer_is_not_learned_as_echo_and_still_interrupts() -> None:
    # The gate learns the echo level from what the microphone hears while the answer plays. Speech over a
    # ducked answer is not a barge-in yet: if the gate learned it as echo (after its confirm delay), it would
    # silence the rest of the interruption, which then never reaches interrupt_after_ms, and later onsets too.
    gate = EchoGate(FarEndTimeline(keep=10.0))
    rig = await _rig(
        speech=[(0.5, 1.5), (4.0, 6.0)],
        transcripts=["tell me a story", "mm-hm"],  # words that alone are no interruption: 2 s of speech is
        replies=[STORY, Reply([(0.1, "Go on?")])],
        echo_gate=gate,
    )
    await rig.run_until(3.9)
    learned = gate.offset_db
    await rig.run_until(12.0)
    assert len(rig.of(BargeIn)) == 1, "the interruption was not caught"
    assert rig.of(SpeechDismissed) == []
    assert gate.offset_db <= learned + 3.0, (learned, gate.offset_db)  # the user's speech was not taken for echo
    done = rig.of(AssistantDone)
    assert done[0].interrupted and done[1].text == "Go on?"
    await rig.stop()
