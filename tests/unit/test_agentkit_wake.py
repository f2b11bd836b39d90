"""The wake word gate on the scripted voice loop (virtual time, fakes): speech counts only after the wake phrase."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from genx.agentkit.events import LoopState, Mode, SpeechStarted, StateChanged, UserFinal, WakeChanged
from genx.agentkit.loop import LoopConfig
from genx.agentkit.testing import RATE, Reply, Rig
from genx.agentkit.wake import earcon_pcm, strip_wake_phrase


@dataclass(frozen=True)
class _Detection:
    phrase: str
    at_s: float


class ScriptedWakeDetector:
    """Fires once the audio fed to it reaches each scheduled stream time (seconds since the rig's start); with
    ``late_by``, reports each detection that much later, stamped with its own time (a detector on a thread)."""

    def __init__(self, at: list[float], late_by: float = 0.0) -> None:
        self.phrases = ["Hey Jarvis"]
        self.pending = sorted(at)
        self.late_by = late_by
        self.samples = 0
        self.fed: list[bytes] = []

    def process(self, pcm: bytes) -> list[_Detection]:
        self.samples += len(pcm) // 2
        self.fed.append(pcm)
        t = self.samples / RATE
        out = []
        while self.pending and t >= self.pending[0] + self.late_by:
            out.append(_Detection("Hey Jarvis", self.pending.pop(0)))
        return out


SHORT = Reply([(0.05, "Sure thing.")])


def _cfg(**kw: object) -> LoopConfig:
    return LoopConfig(generator="fake/model", system_prompt="Be brief.", preemptive_generation=False, **kw)  # type: ignore[arg-type]


async def _rig(**kw: object) -> Rig:
    rig = Rig(**kw)  # type: ignore[arg-type]
    await rig.start()
    return rig


def _wakes(rig: Rig) -> list[bool]:
    return [e.awake for e in rig.of(WakeChanged)]


async def test_speech_before_the_wake_word_opens_no_turn_and_the_loop_waits_idle() -> None:
    det = ScriptedWakeDetector([])
    rig = await _rig(speech=[(0.5, 1.5)], transcripts=["turn on the tv"], replies=[SHORT], wake_detector=det, config=_cfg())
    await rig.run_until(4.0)
    assert rig.of(SpeechStarted) == []
    assert rig.of(UserFinal) == []
    assert rig.gen.calls == []
    assert rig.loop.state is LoopState.IDLE
    assert det.samples >= 3 * RATE  # the detector heard everything meanwhile
    await rig.stop()


async def test_after_the_wake_word_the_next_sentence_is_answered_with_an_earcon_first() -> None:
    det = ScriptedWakeDetector([1.0])
    rig = await _rig(speech=[(1.3, 2.3)], transcripts=["what time is it"], replies=[SHORT], wake_detector=det, config=_cfg())
    await rig.run_until(6.0)
    assert _wakes(rig) == [False, True]
    assert rig.of(WakeChanged)[1].phrase == "Hey Jarvis"
    assert [e.text for e in rig.of(UserFinal)] == ["what time is it"]
    changes = rig.of(StateChanged)
    assert [e.state for e in changes[:2]] == [LoopState.LISTENING, LoopState.HEARING]  # idle (asleep) until the wake word
    assert changes[0].at == rig.of(WakeChanged)[1].at
    # the earcon reached the device before any answer audio
    earcon = np.frombuffer(earcon_pcm(), dtype="<i2")
    device = np.frombuffer(bytes(rig.player.device), dtype="<i2")
    first_sound = int(np.flatnonzero(device)[0])
    assert np.array_equal(device[first_sound : first_sound + 200], earcon[np.flatnonzero(earcon)[0] :][:200])
    await rig.stop()


async def test_a_follow_up_inside_the_window_needs_no_wake_word_and_later_speech_is_ignored_again() -> None:
    det = ScriptedWakeDetector([0.5])
    speech = [(0.7, 1.5), (4.0, 4.8), (14.0, 15.0)]
    rig = await _rig(
        speech=speech,
        transcripts=["first", "second", "third"],
        replies=[SHORT, SHORT, SHORT],
        wake_detector=det,
        config=_cfg(follow_up_s=3.0),
    )
    await rig.run_until(18.0)
    assert [e.text for e in rig.of(UserFinal)] == ["first", "second"]
    assert _wakes(rig) == [False, True, False]
    assert {e.phrase for e in rig.of(WakeChanged)} == {"Hey Jarvis"}
    asleep_at = rig.of(WakeChanged)[2].at - rig.t0
    last_answer_end = max(e.at for e in rig.of(StateChanged) if e.previous is LoopState.SPEAKING) - rig.t0
    assert 2.9 <= asleep_at - last_answer_end <= 3.2  # follow_up_s after the answer ended, not after the wake word
    assert rig.loop.state is LoopState.IDLE
    await rig.stop()


async def test_speech_started_just_before_the_detection_reaches_the_vad_from_the_replay() -> None:
    det = ScriptedWakeDetector([1.0])
    rig = await _rig(speech=[(0.92, 2.0)], transcripts=["lights"], replies=[SHORT], wake_detector=det, config=_cfg(wake_replay_ms=200))
    await rig.run_until(5.0)
    started = rig.of(SpeechStarted)
    assert len(started) == 1
    assert [e.text for e in rig.of(UserFinal)] == ["lights"]
    await rig.stop()


async def test_push_to_talk_mode_ignores_the_gate() -> None:
    det = ScriptedWakeDetector([])
    rig = await _rig(ptt_vad=True, transcripts=["hello"], replies=[SHORT], wake_detector=det, config=_cfg(mode=Mode.PUSH_TO_TALK))
    assert rig.loop.state is LoopState.LISTENING
    rig.mic.say(0.5, 1.5)
    await rig.run_until(0.4)
    rig.loop.push_to_talk_down()
    await rig.run_until(1.7)
    rig.loop.push_to_talk_up()
    await rig.run_until(4.0)
    assert [e.text for e in rig.of(UserFinal)] == ["hello"]
    assert _wakes(rig) == []
    await rig.stop()


async def test_the_wake_phrase_is_cut_from_the_transcript() -> None:
    det = ScriptedWakeDetector([0.5])
    rig = await _rig(speech=[(0.6, 1.6)], transcripts=["Hey Jarvis, what time is it?"], replies=[SHORT], wake_detector=det, config=_cfg())
    await rig.run_until(5.0)
    assert [e.text for e in rig.of(UserFinal)] == ["What time is it?"]
    assert rig.gen.calls[0].messages[-1].text() == "What time is it?"
    await rig.stop()


def test_strip_wake_phrase_takes_the_phrase_its_name_alone_or_a_near_spelling_and_nothing_else() -> None:
    phrases = ["Hey Jarvis"]
    assert strip_wake_phrase("Hey Jarvis, what time is it?", phrases) == "What time is it?"
    assert strip_wake_phrase("hey, Jarvis. Turn on the lights.", phrases) == "Turn on the lights."
    assert strip_wake_phrase("Jarvis what's up", phrases) == "What's up"
    assert strip_wake_phrase("Hey Jervis, set a timer", phrases) == "Set a timer"
    assert strip_wake_phrase("Hey Jarvis.", phrases) == ""
    assert strip_wake_phrase("Hey there, what time is it?", phrases) == "Hey there, what time is it?"
    assert strip_wake_phrase("Javelins are heavy", phrases) == "Javelins are heavy"
    assert strip_wake_phrase("Okay, Nabu, hi", ["Okay Nabu", "Hey Jarvis"]) == "Hi"
    assert strip_wake_phrase("Alexa stop", ["Alexa"]) == "Stop"


async def test_asleep_a_detection_during_parley_s_own_answer_is_its_echo_and_ignored() -> None:
    det = ScriptedWakeDetector([1.0, 6.0])  # the first while the typed question's answer plays, the second after it
    long_reply = Reply([(0.05, "This answer is long enough to be playing when the detector fires.")])
    rig = await _rig(transcripts=["what time is it"], replies=[long_reply, SHORT], wake_detector=det, config=_cfg())
    rig.loop.send_text("tell me something")
    await rig.run_until(3.0)
    assert any(e.state is LoopState.SPEAKING for e in rig.of(StateChanged))
    assert _wakes(rig) == [False]  # the detection at 1.0 s, inside the answer, did not wake the loop
    await rig.run_until(8.0)
    assert _wakes(rig) == [False, True]
    await rig.stop()


@pytest.mark.parametrize(("detected_at", "late_by"), [(1.06, 0.0), (0.9, 0.0), (1.06, 0.3), (1.06, 0.6)])
async def test_the_end_of_the_phrase_before_a_pause_opens_no_turn_and_the_question_after_it_is_the_only_one(
    detected_at: float, late_by: float
) -> None:
    # "Hey Jarvis" from 0.3 to 1.0 s, then a pause and the question. The detector fires 60 ms after the phrase's
    # end (the 200 ms replay then holds its last 140 ms: enough for the VAD to open an utterance) or, at a low
    # threshold, while "Jarvis" is still being said; from a thread, its report may come ``late_by`` later.
    # Were the tail an utterance, it would take the first transcript.
    det = ScriptedWakeDetector([detected_at], late_by=late_by)
    rig = await _rig(
        speech=[(0.3, 1.0), (2.0, 3.0)],
        transcripts=["what color is the sky", "I'm not sure."],
        replies=[SHORT, SHORT],
        wake_detector=det,
        config=_cfg(wake_replay_ms=200),
    )
    await rig.run_until(7.0)
    assert [e.text for e in rig.of(UserFinal)] == ["what color is the sky"]
    started = rig.of(SpeechStarted)
    assert len(started) == 1
    assert started[0].at - rig.t0 >= 2.0  # the question's route
    await rig.stop()


@pytest.mark.parametrize("late_by", [0.0, 0.3, 0.7, 1.5])
async def test_a_request_in_the_same_breath_keeps_the_phrase_s_tail_in_its_one_utterance_however_late_the_detection_is_reported(
    late_by: float,
) -> None:
    det = ScriptedWakeDetector([1.06], late_by=late_by)  # "Hey Jarvis stop" in one breath, heard at 1.06 s
    rig = await _rig(speech=[(0.3, 1.0), (1.03, 1.4)], transcripts=["Jarvis, stop."], replies=[SHORT], wake_detector=det, config=_cfg())
    await rig.run_until(4.0)
    assert len(rig.of(SpeechStarted)) == 1
    assert [e.text for e in rig.of(UserFinal)] == ["Stop."]
    # the utterance starts in the replay, from the detection's own time: the phrase's last 140 ms and all of "stop"
    assert rig.asr.utterances[0][1] >= int((0.14 + 0.37) * RATE) * 2
    await rig.stop()


@pytest.mark.parametrize("late_by", [0.0, 0.3, 0.7])
async def test_a_request_after_a_short_pause_opens_its_own_utterance_without_the_phrase_s_tail(late_by: float) -> None:
    det = ScriptedWakeDetector([1.06], late_by=late_by)
    rig = await _rig(speech=[(0.3, 1.0), (1.3, 2.3)], transcripts=["what time is it"], replies=[SHORT], wake_detector=det, config=_cfg())
    await rig.run_until(5.0)
    started = rig.of(SpeechStarted)
    assert len(started) == 1 and started[0].at - rig.t0 >= 1.3
    assert [e.text for e in rig.of(UserFinal)] == ["what time is it"]
    await rig.stop()
