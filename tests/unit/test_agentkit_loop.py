"""The voice loop on a scripted timeline: fakes for mic, ASR, generator and player, the real VAD and TTS pipeline.

Time is virtual (10 ms ticks); the player pulls at device pace as time advances.
Speech intervals and token times are seconds after the rig's start.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

import pytest

from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    ConversationStarted,
    ErrorKind,
    GeneratorChanged,
    InputLevel,
    LoopError,
    LoopState,
    Mode,
    SpeechEnded,
    SpeechStarted,
    StateChanged,
    TurnMetrics,
    TurnReopened,
    UserFinal,
    UserPartial,
)
from genx.agentkit.loop import LoopConfig
from genx.agentkit.spoken import words
from genx.agentkit.store import ConversationStore, TurnRecord
from genx.agentkit.testing import RATE, Reply, Rig, ToneSynthesizer
from genx.chunk import Blob, Role
from genx.errors import GenerateError
from genx.generators.mux import GeneratorMux
from genx.stream import Stream

pytestmark = pytest.mark.timeout(60)

SPC = 800  # samples per character of the tone voice (50 ms per character)
LONG = Reply(
    [
        (0.1, "The first sentence is here. "),
        (0.3, "Then a second sentence follows it. "),
        (0.5, "A third one ends the answer."),
    ]
)
# 30 short sentences, one every 0.4 s (each ~1 s of audio): the generation outlives any barge-in below
LONG_TEXT = "".join(t for _, t in LONG.tokens).strip()
SLOW = Reply([(0.1 + 0.4 * i, f"Sentence {i} is here. ") for i in range(30)] + [(12.5, "The end.")])


def _kinds(rig: Rig) -> list[str]:
    return [type(e).__name__ for e in rig.events if not isinstance(e, InputLevel)]


def _states(rig: Rig) -> list[LoopState]:
    return [e.state for e in rig.of(StateChanged)]


def _compact(seq: list[str]) -> list[str]:
    out: list[str] = []
    for k in seq:
        if not out or out[-1] != k:
            out.append(k)
    return out


class _InterruptSpy:
    """Wraps the loop's Speech; records (route, interrupted?, audio was still queued?) per interrupt."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[tuple[str, bool, bool]] = []

    async def speak(self, text: Stream, recorder: Any) -> Stream:
        return await self.inner.speak(text, recorder)  # type: ignore[no-any-return]

    def interrupt(self, audio: Stream, sid: str) -> bool:
        queued = audio.invocation.output.queued_bytes > 0  # type: ignore[attr-defined]
        ok = bool(self.inner.interrupt(audio, sid))
        self.calls.append((sid, ok, queued))
        return ok


def _is_word_prefix(prefix: str, full: str) -> bool:
    pw = prefix.split()
    fw = full.split()
    return fw[: len(pw)] == pw


async def _rig(**kw: object) -> Rig:
    rig = Rig(**kw)  # type: ignore[arg-type]
    await rig.start()
    return rig


async def test_hands_free_turn_publishes_the_event_sequence_and_stores_the_full_answer(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["what is the weather"], replies=[LONG], store=store)
    await rig.run_until(8.0)
    seq = _compact(_kinds(rig))
    assert seq[:3] == ["ConversationStarted", "ModeChanged", "StateChanged"]
    body = [k for k in seq if k not in ("StateChanged", "ConversationStarted", "ModeChanged")]
    assert body[:2] == ["SpeechStarted", "UserPartial"]
    i_end, i_final = body.index("SpeechEnded"), body.index("UserFinal")
    assert i_end < i_final < body.index("AssistantDelta") < body.index("AssistantSpoken") < body.index("AssistantDone")
    assert body[-2:] == ["AssistantDone", "TurnMetrics"]
    assert _compact([s.value for s in _states(rig)]) == ["listening", "hearing", "thinking", "speaking", "listening"]

    done = rig.of(AssistantDone)[0]
    full = "The first sentence is here. Then a second sentence follows it. A third one ends the answer."
    assert (done.interrupted, done.text, done.spoken_text) == (False, full, full)
    assert rig.of(UserFinal)[0].text == "what is the weather"
    assert rig.of(AssistantSpoken)[-1].spoken_text == full
    # the generator got the system prompt and the user's words
    call = rig.gen.calls[0]
    assert call.prompts == ["Be brief."]
    assert [(m.role, m.text()) for m in call.messages] == [(Role.USER, "what is the weather")]
    # history and store keep the whole answer
    assert [(t.user_text, t.assistant_text, t.interrupted) for t in rig.loop.history.turns()] == [("what is the weather", full, False)]
    await rig.loop.flush_store()
    recs = store.load(rig.loop.conversation_id)
    assert [(r.user_text, r.assistant_text, r.interrupted) for r in recs] == [("what is the weather", full, False)]
    assert recs[0].timings["v2v_ms"] > 0
    await rig.stop()


async def test_every_answer_audio_sample_reaches_the_device_once_and_in_order() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["hi"], replies=[LONG])
    await rig.run_until(9.0)
    routes = [r for r in rig.player._order]
    assert len(routes) == 1
    r = routes[0]
    assert not r.interrupted
    assert r.played == sum(len(s) for s in rig.synth.segments) * SPC
    await rig.stop()


async def test_metrics_measure_voice_to_voice_from_the_last_voiced_sample() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["hi"], replies=[LONG], latency_ms=30)
    await rig.run_until(8.0)
    m = rig.of(TurnMetrics)[0]
    assert m.speech_end is not None and abs((m.speech_end - rig.t0) - 2.0) < 0.05
    assert m.first_played is not None and m.first_token is not None and m.asr_final is not None
    assert m.speech_end <= m.generation_start <= m.first_token <= m.first_audio <= m.first_played  # type: ignore[operator]
    assert m.asr_final <= m.first_played  # preemptive: generated before, heard only after the final transcript
    # the first sample was handed out during the 10 ms tick before the report and is audible 30 ms later
    expected = (m.first_played - 0.01 + 0.03 - m.speech_end) * 1000
    assert m.v2v_ms == pytest.approx(expected, abs=1.0)
    assert m.bargein_ms is None and not m.interrupted
    await rig.stop()


async def test_barge_in_keeps_the_pulled_prefix_drops_the_unpulled_suffix_and_closes_generation() -> None:
    rig = await _rig(speech=[(0.5, 2.0), (4.0, 5.0)], transcripts=["tell me a story", "stop"], replies=[SLOW, Reply([(0.1, "Okay.")])])
    spy = _InterruptSpy(rig.loop.answers.speech)
    rig.loop.answers.speech = spy
    await rig.run_until(10.0)
    b = rig.of(BargeIn)
    assert len(b) == 1 and b[0].turn_id == "t1"
    assert 0 < b[0].latency_ms < 200
    first = rig.player._order[0]
    assert first.interrupted
    # (1) the device got a prefix of the synthesized audio and nothing of this route after the stop
    stop_at = next(e.at for e in rig.events if isinstance(e, BargeIn)) - rig.t0
    assert 4.0 < stop_at < 4.2
    assert first.played * 2 == len(first.audio)
    assert 0 < first.played < sum(len(s) for s in rig.synth.segments) * SPC
    # (2) the streamkit interrupt cut the route while audio was still queued, and the player pulled nothing of it afterwards
    assert spy.calls == [(first.sid, True, True)]
    barge_t = rig.t0 + stop_at
    late = [c for c, t in zip(rig.player.chunks, rig.player.pull_times, strict=True) if c.stream_id == first.sid and t > barge_t]
    assert late == []
    pulled_audio = sum(len(c.part.data) for c in rig.player.chunks if c.stream_id == first.sid and isinstance(c.part, Blob))
    assert pulled_audio == first.received * 2
    # (3) the generation was cancelled before it finished
    assert rig.gen.calls[0].closed and not rig.gen.calls[0].finished
    # (4) synthesis stopped: the late words of the script were never synthesized
    assert "Sentence 29" not in " ".join(rig.synth.segments)

    done = rig.of(AssistantDone)[0]
    assert done.interrupted and done.turn_id == "t1"
    assert done.spoken_text and _is_word_prefix(done.spoken_text, done.text) and done.spoken_text != done.text
    # the spoken text is exactly the words heard: every kept word ended before the heard position, the next did not
    heard = first.played - rig.player.latency_ms * RATE // 1000
    joined = " ".join(rig.synth.segments)
    kept = len(done.spoken_text.split())
    ends = [e for _s, e in words(joined)]
    assert ends[kept - 1] * SPC <= heard + SPC  # within one character (segment joins add a space)
    assert ends[kept] * SPC > heard - SPC
    # history and the next turn's context use that text, marked interrupted
    turns = rig.loop.history.turns()
    assert turns[0].assistant_text == done.spoken_text and turns[0].interrupted
    msgs = rig.gen.calls[1].messages
    assert [(m.role, m.text()) for m in msgs] == [(Role.USER, "tell me a story"), (Role.ASSISTANT, done.spoken_text), (Role.USER, "stop")]
    assert msgs[1].meta.get("interrupted") is True
    assert rig.of(AssistantDone)[1].text == "Okay." and not rig.of(AssistantDone)[1].interrupted
    await rig.stop()


async def test_barge_in_metrics_carry_the_latency_and_the_interrupted_flag() -> None:
    rig = await _rig(speech=[(0.5, 2.0), (4.0, 5.0)], transcripts=["a", "b"], replies=[SLOW])
    await rig.run_until(6.0)
    m = rig.of(TurnMetrics)[0]
    assert m.interrupted and m.bargein_ms is not None
    assert m.bargein_ms == pytest.approx(rig.of(BargeIn)[0].latency_ms, abs=1.0)
    await rig.stop()


async def test_push_to_talk_down_within_50_ms_of_the_answer_cuts_it_cleanly() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["first question", "second"], replies=[SLOW, Reply([(0.1, "Fine.")])])
    final_at = None
    while rig.now < 4.0:
        await rig.step(0.005)
        if final_at is None and rig.of(UserFinal):
            final_at = rig.now
            await rig.step(0.005)
            await rig.step(0.005)
            rig.loop.push_to_talk_down()
            rig.mic.say(rig.clock.t, rig.clock.t + 0.5)
        if final_at is not None and rig.now > final_at + 0.7 and rig.loop.push_to_talk_open:
            rig.loop.push_to_talk_up()
    await rig.run_until(6.0)
    assert final_at is not None
    done = rig.of(AssistantDone)
    assert [d.interrupted for d in done] == [True, False]
    assert done[0].spoken_text == ""
    assert rig.gen.calls[0].closed
    # nothing was heard of the first answer: its user words are merged into the next question
    assert [(m.role, m.text()) for m in rig.gen.calls[1].messages] == [(Role.USER, "first question second")]
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_with_reopen_off_speech_onset_before_the_first_audio_cancels_the_answer_before_anything_is_played() -> None:
    slow_start = Reply([(1.0, "Late answer. ")])
    cfg = LoopConfig(generator="fake/model", system_prompt="Be brief.", reopen_turns=False)
    rig = await _rig(
        speech=[(0.5, 2.0), (2.35, 3.0)], transcripts=["one", "two"], replies=[slow_start, Reply([(0.1, "Done.")])], config=cfg
    )
    await rig.run_until(6.0)
    done = rig.of(AssistantDone)
    assert done[0].interrupted and done[0].spoken_text == "" and done[0].text == ""
    assert rig.gen.calls[0].closed
    assert not any(r.sid == done[0].turn_id for r in rig.player._order)
    assert [(m.role, m.text()) for m in rig.gen.calls[1].messages] == [(Role.USER, "one two")]
    await rig.stop()


async def test_speech_before_the_first_audio_reopens_the_turn_and_one_answer_to_both_utterances_is_stored(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    slow_start = Reply([(1.0, "Late answer. ")])
    rig = await _rig(
        speech=[(0.5, 2.0), (2.35, 3.0)], transcripts=["one", "two"], replies=[slow_start, Reply([(0.1, "Done.")])], store=store
    )
    await rig.run_until(6.0)
    reopened = rig.of(TurnReopened)
    assert [e.turn_id for e in reopened] == ["t1"]
    assert rig.gen.calls[0].closed  # the unheard answer's generation was cancelled
    assert len([r for r in rig.player._order if r.played > 0]) == 1  # only the answer to both utterances was played
    assert [(m.role, m.text()) for m in rig.gen.calls[1].messages] == [(Role.USER, "one two")]
    done = rig.of(AssistantDone)
    assert [(d.turn_id, d.interrupted, d.text) for d in done] == [("t1", False, "Done.")]
    assert [e.text for e in rig.of(UserFinal)] == ["one", "one two"]
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("one two", "Done.")]
    await rig.loop.flush_store()
    recs = store.load(rig.loop.conversation_id)
    assert [(r.turn_id, r.user_text, r.assistant_text, r.interrupted) for r in recs] == [("t1", "one two", "Done.", False)]
    await rig.stop()


async def test_repeated_barge_ins_keep_history_consistent_and_never_deadlock(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    speech = [(0.5, 1.5), (3.5, 4.0), (5.2, 5.6), (6.9, 7.3)]
    # one-letter utterances over an answer would be dismissed as murmurs: this is about the cut itself
    cfg = LoopConfig(generator="fake/model", system_prompt="Be brief.", backchannel_ducking=False)
    rig = await _rig(speech=speech, transcripts=["a", "b", "c", "d"], replies=[SLOW, SLOW, SLOW, LONG], store=store, config=cfg)
    await rig.run_until(16.0)
    done = rig.of(AssistantDone)
    assert [d.interrupted for d in done] == [True, True, True, False]
    assert len(rig.of(BargeIn)) == 3
    assert all(c.closed for c in rig.gen.calls[:3])
    turns = rig.loop.history.turns()
    assert [t.user_text for t in turns] == ["a", "b", "c", "d"]
    assert [t.assistant_text for t in turns] == [d.spoken_text for d in done]
    assert all(_is_word_prefix(d.spoken_text, d.text) for d in done)
    # each context is the history before it
    for i, call in enumerate(rig.gen.calls):
        users = [m.text() for m in call.messages if m.role == Role.USER]
        assert users[-1].endswith("abcd"[i])
    await rig.loop.flush_store()
    recs = store.load(rig.loop.conversation_id)
    assert [(r.user_text, r.assistant_text, r.interrupted) for r in recs] == [(t.user_text, t.assistant_text, t.interrupted) for t in turns]
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_a_pause_mid_sentence_joins_both_utterances_into_one_turn() -> None:
    rig = await _rig(
        speech=[(0.5, 1.0), (1.4, 2.0)], transcripts=["what is", "the time"], replies=[LONG], asr_delay=0.4, end_silence_ms=300
    )
    await rig.run_until(7.0)
    finals = rig.of(UserFinal)
    assert [f.text for f in finals] == ["what is the time"]
    assert len(rig.gen.calls) == 1
    assert {e.turn_id for e in rig.of(SpeechStarted)} == {"t1"}
    assert len(rig.of(SpeechStarted)) == 2
    await rig.stop()


async def test_empty_transcript_reports_an_input_error_and_listens_again() -> None:
    rig = await _rig(speech=[(0.5, 1.5), (3.0, 4.0)], transcripts=["", "hello"], replies=[Reply([(0.1, "Hi.")])])
    await rig.run_until(3.0)
    errs = rig.of(LoopError)
    assert len(errs) == 1 and errs[0].kind is ErrorKind.INPUT and errs[0].recoverable
    assert rig.gen.calls == []
    assert rig.loop.state is LoopState.LISTENING
    await rig.run_until(7.0)
    assert [d.text for d in rig.of(AssistantDone)] == ["Hi."]
    assert [t.user_text for t in rig.loop.history.turns()] == ["hello"]
    await rig.stop()


async def test_blips_of_noise_never_start_an_answer() -> None:
    blips = [(0.5 + i, 0.5 + i + 0.12) for i in range(5)]
    rig = await _rig(speech=blips, transcripts=[""] * 5)
    await rig.run_until(6.5)
    assert rig.gen.calls == []
    assert all(e.kind is ErrorKind.INPUT for e in rig.of(LoopError))
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_generator_error_mid_answer_speaks_what_came_reports_it_and_recovers() -> None:
    broken = Reply([(0.1, "Here is the start. "), (0.2, "And more")], error=GenerateError("model crashed"))
    rig = await _rig(speech=[(0.5, 1.5), (6.0, 6.5)], transcripts=["q1", "q2"], replies=[broken, Reply([(0.1, "Second answer.")])])
    await rig.run_until(5.5)
    errs = [e for e in rig.of(LoopError) if e.kind is ErrorKind.GENERATOR]
    assert len(errs) == 1 and "model crashed" in errs[0].message and errs[0].recoverable
    done = rig.of(AssistantDone)[0]
    assert not done.interrupted and "model crashed" in done.error
    assert done.spoken_text == "Here is the start. And more"
    assert rig.player._order[0].played == len("Here is the start.And more") * SPC
    assert rig.loop.state is LoopState.LISTENING
    await rig.run_until(10.0)
    assert rig.of(AssistantDone)[1].text == "Second answer."
    assert [t.assistant_text for t in rig.loop.history.turns()] == ["Here is the start. And more", "Second answer."]
    await rig.stop()


async def test_tts_failure_reports_a_tts_error_keeps_what_was_heard_and_recovers() -> None:
    rig = await _rig(
        speech=[(0.5, 1.5), (7.0, 7.5)],
        transcripts=["q1", "q2"],
        replies=[LONG, Reply([(0.1, "Fine.")])],
        synthesizer=ToneSynthesizer(SPC, fail_on="second"),
    )
    await rig.run_until(6.5)
    assert any(e.kind is ErrorKind.TTS for e in rig.of(LoopError))
    done = rig.of(AssistantDone)[0]
    assert done.error
    assert done.interrupted  # the rest of the answer was never spoken
    assert rig.loop.history.turns()[0].assistant_text == done.spoken_text
    assert rig.loop.state is LoopState.LISTENING
    await rig.run_until(11.0)
    assert rig.of(AssistantDone)[-1].text == "Fine."
    await rig.stop()


@pytest.mark.parametrize(
    ("fail_on", "heard"),
    [
        ("first", ""),
        ("second", "The first sentence is here."),
        ("third", "The first sentence is here. Then a second sentence follows it."),
    ],
)
async def test_a_tts_failure_stores_only_the_sentences_spoken_before_it_marked_interrupted(
    tmp_path: Path, fail_on: str, heard: str
) -> None:
    store = ConversationStore(tmp_path)
    rig = await _rig(
        speech=[(0.5, 1.5)], transcripts=["q1"], replies=[LONG], synthesizer=ToneSynthesizer(SPC, fail_on=fail_on), store=store
    )
    await rig.run_until(9.0)
    await rig.loop.flush_store()
    errors = rig.of(LoopError)
    assert [e.kind for e in errors] == [ErrorKind.TTS], [e.message for e in errors]
    recs = store.load(rig.loop.conversation_id)
    assert [r.interrupted for r in recs] == [True]
    stored = recs[0].assistant_text
    # the sentences spoken before the failure, conservatively: the player drops its lead when the TTS ends the
    # route with an error, so the last word may be too close to the cut to be claimed (never one after it)
    assert _is_word_prefix(stored, heard) and len(heard.split()) - len(stored.split()) <= 1, (stored, heard)
    assert fail_on in recs[0].error
    # the generation stops once the TTS cannot speak any more; what it generated is kept as generated text
    assert LONG_TEXT.startswith(recs[0].generated_text) and recs[0].generated_text.startswith(heard)
    assert [(t.assistant_text, t.interrupted) for t in rig.loop.history.turns()] == [(stored, True)]
    await rig.stop()


async def test_an_answer_with_nothing_to_say_finishes_without_audio() -> None:
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["q"], replies=[Reply([(0.1, "...")])])
    await rig.run_until(4.0)
    done = rig.of(AssistantDone)
    assert len(done) == 1 and done[0].text == "..." and not done[0].interrupted
    assert all(r.played == 0 for r in rig.player._order)
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_push_to_talk_opens_the_utterance_on_down_and_ends_the_turn_on_up() -> None:
    cfg = LoopConfig(mode=Mode.PUSH_TO_TALK, generator="fake/model")
    rig = await _rig(
        speech=[(0.5, 1.5), (3.0, 3.5)], transcripts=["pressed question"], replies=[Reply([(0.1, "Answer.")])], config=cfg, ptt_vad=True
    )
    await rig.run_until(0.4)
    rig.loop.push_to_talk_down()
    await rig.run_until(1.6)
    assert rig.of(UserFinal) == []  # the key is still down: the turn has not ended
    rig.loop.push_to_talk_up()
    await rig.run_until(6.0)
    assert [f.text for f in rig.of(UserFinal)] == ["pressed question"]
    assert [d.text for d in rig.of(AssistantDone)] == ["Answer."]
    # hands-free speech at 3.0–3.5 s was not an utterance in push-to-talk mode
    assert len(rig.asr.utterances) == 1
    # the trimmed utterance holds the speech, not the silent lead before it
    assert rig.asr.utterances[0][1] < 1.6 * RATE * 2
    await rig.stop()


async def test_push_to_talk_down_while_the_assistant_speaks_barges_in() -> None:
    cfg = LoopConfig(mode=Mode.PUSH_TO_TALK, generator="fake/model")
    rig = await _rig(speech=[(0.5, 1.5), (4.0, 4.5)], transcripts=["q1", "q2"], replies=[SLOW, Reply([(0.1, "Two.")])], config=cfg)
    await rig.run_until(0.4)
    rig.loop.push_to_talk_down()
    await rig.run_until(1.6)
    rig.loop.push_to_talk_up()
    await rig.run_until(3.9)
    assert rig.loop.state is LoopState.SPEAKING
    rig.loop.push_to_talk_down()
    await rig.run_until(4.6)
    rig.loop.push_to_talk_up()
    await rig.run_until(8.0)
    assert len(rig.of(BargeIn)) == 1
    assert [d.interrupted for d in rig.of(AssistantDone)] == [True, False]
    await rig.stop()


async def test_with_barge_in_off_speech_during_the_answer_is_ignored() -> None:
    cfg = LoopConfig(barge_in=False, generator="fake/model")
    rig = await _rig(speech=[(0.5, 1.5), (3.0, 3.6)], transcripts=["q1", "q2"], replies=[LONG], config=cfg)
    await rig.run_until(9.0)
    assert rig.of(BargeIn) == []
    done = rig.of(AssistantDone)
    assert len(done) == 1 and not done[0].interrupted
    assert len(rig.asr.utterances) == 1
    await rig.stop()


async def test_a_typed_message_starts_a_turn_and_cuts_a_running_answer() -> None:
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["spoken"], replies=[SLOW, Reply([(0.1, "Typed answer.")])])
    await rig.run_until(3.5)
    rig.loop.send_text("  typed question  ")
    await rig.run_until(7.0)
    finals = rig.of(UserFinal)
    assert [(f.text, f.typed) for f in finals] == [("spoken", False), ("typed question", True)]
    assert [d.interrupted for d in rig.of(AssistantDone)] == [True, False]
    assert rig.loop.history.turns()[-1].assistant_text == "Typed answer."
    rig.loop.send_text("   ")
    assert rig.of(LoopError)[-1].kind is ErrorKind.INPUT
    await rig.stop()


async def test_stop_speaking_cuts_the_answer_and_keeps_the_heard_words() -> None:
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["q"], replies=[SLOW])
    await rig.run_until(4.0)
    rig.loop.stop_speaking()
    await rig.run_until(4.5)
    done = rig.of(AssistantDone)[0]
    assert done.interrupted and done.spoken_text.startswith("Sentence 0 is here.")
    assert rig.loop.state is LoopState.LISTENING
    assert rig.player.stops == 1
    await rig.stop()


async def test_new_conversation_forgets_history_and_writes_to_a_new_file(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    rig = await _rig(
        speech=[(0.5, 1.5), (6.0, 6.5)],
        transcripts=["first", "second"],
        replies=[Reply([(0.1, "One.")]), Reply([(0.1, "Two.")])],
        store=store,
    )
    await rig.run_until(5.0)
    old = rig.loop.conversation_id
    rig.loop.new_conversation()
    assert rig.loop.conversation_id != old
    assert len(rig.loop.history) == 0
    await rig.run_until(10.0)
    assert [(m.role, m.text()) for m in rig.gen.calls[1].messages] == [(Role.USER, "second")]
    await rig.loop.flush_store()
    assert [r.user_text for r in store.load(old)] == ["first"]
    assert [r.user_text for r in store.load(rig.loop.conversation_id)] == ["second"]
    assert len(rig.of(ConversationStarted)) == 2
    await rig.stop()


async def test_muted_microphone_starts_no_turn() -> None:
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["q"])
    rig.loop.mute(True)
    await rig.run_until(3.0)
    assert rig.of(SpeechStarted) == [] and rig.gen.calls == []
    assert rig.loop.state is LoopState.IDLE
    rig.loop.mute(False)
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_a_very_long_utterance_is_cut_and_its_first_part_answered() -> None:
    cfg = LoopConfig(max_utterance_s=3.0, generator="fake/model")
    rig = await _rig(speech=[(0.5, 9.0)], transcripts=["long talk"], replies=[Reply([(0.1, "Noted.")])], config=cfg)
    await rig.run_until(12.0)
    errs = [e for e in rig.of(LoopError) if e.kind is ErrorKind.INPUT]
    assert len(errs) == 1 and "3 s" in errs[0].message
    assert rig.asr.utterances[0][1] <= 3.1 * RATE * 2
    assert [d.text for d in rig.of(AssistantDone)] == ["Noted."]
    assert len(rig.asr.utterances) == 1  # the rest of the monologue did not become a second utterance
    await rig.stop()


async def test_set_generator_rejects_unknown_names_and_switches_known_ones() -> None:
    rig = await _rig()
    mux = GeneratorMux()
    mux.register("fake/#", rig.gen)
    rig.loop.core.generator = mux
    rig.loop.set_generator("nope/model")
    assert rig.of(LoopError)[-1].kind is ErrorKind.CONFIG and rig.loop.generator_name == "fake/model"
    rig.loop.set_generator("fake/other")
    assert rig.of(GeneratorChanged)[-1].name == "fake/other"
    rig.loop.send_text("hi")
    await rig.run_until(2.0)
    assert rig.gen.calls[0].pattern == "fake/other"
    await rig.stop()


async def test_set_mode_parses_names_and_reports_bad_ones() -> None:
    rig = await _rig()
    rig.loop.set_mode("ptt")
    assert rig.loop.mode is Mode.PUSH_TO_TALK
    rig.loop.set_mode("shouting")
    assert rig.of(LoopError)[-1].kind is ErrorKind.CONFIG
    await rig.stop()


async def test_stopping_during_an_answer_is_clean_and_stores_the_cut_turn(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["q"], replies=[SLOW], store=store)
    await rig.run_until(3.5)
    await rig.stop()
    assert rig.gen.calls[0].closed
    assert rig.of(AssistantDone)[0].interrupted
    recs = store.load(rig.loop.conversation_id)
    assert len(recs) == 1 and recs[0].interrupted
    assert rig.loop.state is LoopState.IDLE


async def test_partials_grow_and_deltas_precede_spoken_progress() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["one two three four"], replies=[LONG])
    await rig.run_until(8.0)
    partials = [p.text for p in rig.of(UserPartial)]
    assert partials and partials[-1] == "one two three four"
    assert all(b.startswith(a) for a, b in itertools.pairwise(partials))
    assert len(set(partials)) == len(partials)
    spoken = [s.spoken_text for s in rig.of(AssistantSpoken)]
    assert all(b.startswith(a) for a, b in itertools.pairwise(spoken))
    first_delta = next(e.at for e in rig.events if isinstance(e, AssistantDelta))
    assert first_delta <= next(e.at for e in rig.events if isinstance(e, AssistantSpoken))
    assert rig.of(SpeechEnded)
    await rig.stop()


async def test_a_short_pause_asks_for_the_transcript_so_far_and_the_speech_stays_one_asr_route() -> None:
    # the 200 ms pause is shorter than the VAD's 300 ms end of turn, longer than the 100 ms flush pause
    rig = await _rig(speech=[(0.5, 1.5), (1.7, 2.5)], transcripts=[("what is", "what is the time")], replies=[LONG], asr_delay=0.2)
    await rig.run_until(7.0)
    assert len(rig.asr.utterances) == 1  # one ASR route for the whole speech route …
    assert len(rig.asr.flushes) == 2  # … flushed at the pause and at the end
    assert rig.asr.flushes[1][1] - rig.asr.flushes[0][1] >= 0.8 * RATE * 2  # the second flush holds the 0.8 s after the pause
    assert len(rig.of(SpeechEnded)) == 1
    assert [f.text for f in rig.of(UserFinal)] == ["what is the time"]
    assert [(m.role, m.text()) for m in rig.gen.calls[0].messages] == [(Role.USER, "what is the time")]
    await rig.stop()


async def test_the_early_asr_end_overlaps_the_decoding_with_the_end_of_turn_wait() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["hello there"], replies=[LONG], asr_delay=0.3)
    await rig.run_until(5.0)
    ended = rig.of(SpeechEnded)[0].at
    final = rig.of(UserFinal)[0].at
    # without the early end the final would come asr_delay (300 ms) after the VAD's end of turn
    assert final - ended < 0.3 - 0.1
    cfg = LoopConfig(generator="fake/model", early_asr_ms=0)
    slow = await _rig(speech=[(0.5, 2.0)], transcripts=["hello there"], replies=[LONG], asr_delay=0.3, config=cfg)
    await slow.run_until(5.0)
    assert slow.of(UserFinal)[0].at - slow.of(SpeechEnded)[0].at == pytest.approx(0.3, abs=0.02)
    await rig.stop()
    await slow.stop()


# -- preemptive generation: the answer starts on the transcript of a pause, its audio waits for the end of the turn


def _first_played_at(rig: Rig) -> float:
    return next(e.at for e in rig.events if isinstance(e, StateChanged) and e.state is LoopState.SPEAKING)


async def test_preemptive_answer_starts_before_the_end_of_turn_and_plays_only_after_it() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["hello there"], replies=[LONG], asr_delay=0.05)
    await rig.run_until(8.5)
    ended = rig.of(SpeechEnded)[0].at
    final = rig.of(UserFinal)[0].at
    # the generation started while the VAD still waited for the end of the turn (2.0 + 0.3 s)
    assert rig.gen.calls[0].started < ended
    assert [(m.role, m.text()) for m in rig.gen.calls[0].messages] == [(Role.USER, "hello there")]
    # nothing of the answer was shown or played before the turn ended
    assert final >= ended
    assert next(e.at for e in rig.events if isinstance(e, AssistantDelta)) >= final
    assert _first_played_at(rig) >= ended
    m = rig.of(TurnMetrics)[0]
    assert m.preemptive and m.generation_start is not None and m.generation_start < ended
    done = rig.of(AssistantDone)[0]
    assert not done.interrupted and done.spoken_text == done.text
    assert len(rig.gen.calls) == 1
    await rig.stop()


async def test_preemptive_answer_reaches_the_speaker_sooner_than_waiting_for_the_end_of_turn() -> None:
    slow_tokens = Reply([(0.25, "The first sentence is here. "), (0.4, "A second one ends it.")])
    eager = await _rig(speech=[(0.5, 2.0)], transcripts=["hello there"], replies=[slow_tokens], asr_delay=0.05)
    await eager.run_until(6.0)
    cfg = LoopConfig(generator="fake/model", system_prompt="Be brief.", preemptive_generation=False)
    late = await _rig(speech=[(0.5, 2.0)], transcripts=["hello there"], replies=[slow_tokens], asr_delay=0.05, config=cfg)
    await late.run_until(6.0)
    e, lt = eager.of(TurnMetrics)[0], late.of(TurnMetrics)[0]
    assert e.preemptive and not lt.preemptive
    assert lt.generation_start is not None and lt.generation_start >= late.of(SpeechEnded)[0].at
    # the answer is heard sooner by the head start the generation had on the end of turn
    assert e.v2v_ms is not None and lt.v2v_ms is not None and e.generation_start is not None
    head_start = (eager.of(SpeechEnded)[0].at - e.generation_start) * 1000
    assert head_start >= 50
    assert lt.v2v_ms - e.v2v_ms == pytest.approx(head_start, abs=20)
    assert eager.of(AssistantDone)[0].text == late.of(AssistantDone)[0].text
    await eager.stop()
    await late.stop()


async def test_speech_after_the_pause_drops_the_preemptive_answer_unheard_and_answers_the_whole_turn(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    # the 220 ms pause outlasts the 150 ms early ASR end (a preemptive answer starts) but not the 300 ms end of turn
    rig = await _rig(
        speech=[(0.5, 1.5), (1.72, 2.5)],
        transcripts=[("what is", "what is the time")],
        replies=[SLOW, Reply([(0.1, "It is noon.")])],
        asr_delay=0.02,
        store=store,
    )
    await rig.run_until(6.0)
    first, second = rig.gen.calls
    assert [m.text() for m in first.messages] == ["what is"]
    assert first.closed and not first.finished  # the preemptive generation was cancelled
    assert [m.text() for m in second.messages] == ["what is the time"]
    # one turn, one answer: the dropped one was never shown, played, reported nor stored
    assert [f.text for f in rig.of(UserFinal)] == ["what is the time"]
    assert [d.text for d in rig.of(AssistantDone)] == ["It is noon."]
    assert all("Sentence" not in d.text for d in rig.of(AssistantDelta))
    routes = list(rig.player._order)
    assert len(routes) == 1 and bytes(routes[0].audio)
    assert rig.of(LoopError) == []
    await rig.loop.flush_store()
    assert [(r.user_text, r.assistant_text) for r in store.load(rig.loop.conversation_id)] == [("what is the time", "It is noon.")]
    m = rig.of(TurnMetrics)[0]
    assert m.generation_start is not None and m.generation_start >= second.started - 1e-9
    await rig.stop()


async def test_a_failing_preemptive_answer_that_is_dropped_reports_nothing() -> None:
    rig = await _rig(
        speech=[(0.5, 1.5), (1.72, 2.5)],
        transcripts=[("what is", "what is the time")],
        replies=[Reply([(0.01, "Well")], error=GenerateError(RuntimeError("model fell over"))), Reply([(0.1, "It is noon.")])],
        asr_delay=0.02,
    )
    await rig.run_until(6.0)
    assert len(rig.gen.calls) == 2
    assert rig.of(LoopError) == []
    assert [d.text for d in rig.of(AssistantDone)] == ["It is noon."]
    await rig.stop()


async def test_a_failing_preemptive_answer_that_is_committed_reports_the_error_once() -> None:
    rig = await _rig(
        speech=[(0.5, 2.0)],
        transcripts=["hello"],
        replies=[Reply([(0.01, "Well, ")], error=GenerateError(RuntimeError("model fell over")))],
        asr_delay=0.02,
    )
    await rig.run_until(5.0)
    errs = [e for e in rig.of(LoopError) if e.kind is ErrorKind.GENERATOR]
    assert len(errs) == 1 and "model fell over" in errs[0].message
    assert errs[0].at >= rig.of(UserFinal)[0].at
    done = rig.of(AssistantDone)
    assert len(done) == 1 and done[0].error
    assert rig.loop.state is LoopState.LISTENING
    await rig.stop()


async def test_stopping_while_a_preemptive_answer_waits_closes_its_generation_and_stores_nothing(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["hello"], replies=[SLOW], asr_delay=0.02, store=store)
    await rig.run_until(2.22)  # the early ASR end (2.15) passed, the end of turn (2.3) did not
    assert len(rig.gen.calls) == 1 and rig.of(UserFinal) == []
    await rig.stop()
    assert rig.gen.calls[0].closed
    assert rig.of(AssistantDone) == [] and rig.player._order == []
    assert store.load(rig.loop.conversation_id) == []


async def test_push_to_talk_never_answers_before_the_key_is_released() -> None:
    cfg = LoopConfig(mode=Mode.PUSH_TO_TALK, generator="fake/model")
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["pressed question"], replies=[Reply([(0.1, "Answer.")])], config=cfg, ptt_vad=True)
    await rig.run_until(0.4)
    rig.loop.push_to_talk_down()
    await rig.run_until(2.5)  # a long silence with the key still down
    assert rig.gen.calls == []
    rig.loop.push_to_talk_up()
    await rig.run_until(5.0)
    assert len(rig.gen.calls) == 1 and rig.gen.calls[0].started >= rig.t0 + 2.5
    assert not rig.of(TurnMetrics)[0].preemptive
    await rig.stop()


async def test_the_generator_is_asked_to_prefill_the_conversation_at_start_and_after_each_answer() -> None:
    rig = await _rig(speech=[(0.5, 2.0), (8.0, 9.0)], transcripts=["hello there", "and then"], replies=[LONG, Reply([(0.1, "Fine.")])])
    assert rig.gen.prefills == [[]]  # at start: nothing but the system prompt to evaluate
    await rig.run_until(8.0)
    assert len(rig.gen.prefills) == 2
    # after the answer: the whole exchange, and no pending user message
    assert [(m.role, m.text()) for m in rig.gen.prefills[1]] == [(Role.USER, "hello there"), (Role.ASSISTANT, LONG_TEXT)]
    await rig.run_until(12.0)
    assert len(rig.gen.prefills) == 3 and [m.text() for m in rig.gen.prefills[2]][-1] == "Fine."
    await rig.stop()


class _ThreadNotingStore(ConversationStore):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.load_threads: list[str] = []

    def load(self, conversation_id: str) -> list[TurnRecord]:
        self.load_threads.append(threading.current_thread().name)
        return super().load(conversation_id)


async def test_a_reloaded_conversation_numbers_new_turns_after_the_stored_ones_and_is_read_off_the_event_loop(tmp_path: Path) -> None:
    store = _ThreadNotingStore(tmp_path)
    for tid in ("t1", "t2", "t7"):
        store.append("c-old", TurnRecord(turn_id=tid, user_text=f"q {tid}", assistant_text=f"a {tid}"))
    rig = await _rig(replies=[Reply([(0.1, "Fresh answer.")])], store=store)
    await rig.loop.load_conversation("c-old")
    assert store.load_threads and threading.main_thread().name not in store.load_threads
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("q t1", "a t1"), ("q t2", "a t2"), ("q t7", "a t7")]
    rig.loop.send_text("and now?")
    await rig.run_until(3.0)
    await rig.loop.flush_store()
    ids = [r.turn_id for r in store.load("c-old")]
    assert ids == ["t1", "t2", "t7", "t8"]
    assert [(m.role, m.text()) for m in rig.gen.calls[0].messages][-1] == (Role.USER, "and now?")
    await rig.stop()


async def test_the_speech_limit_holds_for_a_whole_reopened_turn_not_per_stretch() -> None:
    cfg = LoopConfig(generator="fake/model", system_prompt="Be brief.", max_utterance_s=3.0)
    slow = Reply([(1.5, "Late. ")])
    rig = await _rig(speech=[(0.5, 2.3), (2.8, 5.0)], transcripts=["one", "two"], replies=[slow, Reply([(0.1, "Done.")])], config=cfg)
    await rig.run_until(10.0)
    assert [e.turn_id for e in rig.of(TurnReopened)] == ["t1"]  # the second stretch joined the first ...
    errors = [e for e in rig.of(LoopError) if e.kind is ErrorKind.INPUT]
    assert errors and "3 s" in errors[0].message  # ... and the turn (1.8 s + 2.2 s, each stretch under the limit) hit the 3 s limit
    await rig.stop()


async def test_holding_the_talk_key_in_hands_free_mode_transcribes_the_speech_once() -> None:
    rig = await _rig(speech=[(0.5, 2.0)], transcripts=["stop please", "stop please"], replies=[Reply([(0.1, "Okay.")])])
    await rig.run_until(0.3)
    rig.loop.push_to_talk_down()  # the key goes down before the speech: the VAD's onset must not open a second route
    await rig.run_until(2.4)
    rig.loop.push_to_talk_up()
    await rig.run_until(6.0)
    assert [e.text for e in rig.of(UserFinal)] == ["stop please"]
    assert len(rig.asr.utterances) == 1
    await rig.stop()


async def test_a_held_answer_committed_while_a_cut_still_stops_the_player_is_played_after_the_cut() -> None:
    import asyncio

    # the spoken question's held answer starts at the pause; a message typed in that pause is answered at once;
    # then the spoken turn ends: committing its held answer cuts the typed one, whose stop takes a while
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["what time is it"], replies=[Reply([(0.05, "It is noon.")]), SLOW])
    release = asyncio.Event()
    real_stop = rig.player.stop

    async def slow_stop(discard: bool = True) -> Any:
        await release.wait()  # the device takes its time to stop (a loaded machine)
        return await real_stop(discard)

    await rig.run_until(1.7)
    assert rig.gen.calls, "the held answer started at the pause"
    rig.player.stop = slow_stop  # type: ignore[method-assign]
    rig.loop.send_text("and the weather?")
    await rig.run_until(2.4)  # the spoken turn ended: its held answer is committed, the typed answer's cut pending
    release.set()
    await rig.run_until(8.0)
    done = {d.text: d.interrupted for d in rig.of(AssistantDone)}
    assert done.get("It is noon.") is False, (done, rig.of(UserFinal))  # played to its end, not lost with the cut
    await rig.stop()
