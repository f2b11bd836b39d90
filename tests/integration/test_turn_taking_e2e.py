"""Turn taking on real audio with the app defaults (smart end of turn, backchannel ducking): PulseAudio, offline models.

A question with a long pause mid-sentence is answered only after it ends; a
backchannel while Parley speaks does not stop the answer; a real interruption
does. Speech is espeak-ng into the virtual microphone; the speaker is recorded.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PulseServer, loud_span
from test_voice_loop_e2e import QUIET_DBFS, RATE, STORYTELLER, Live, first_quiet_ms, wait_until_mid_answer

from genx.agentkit.events import AssistantDone, BargeIn, LoopState, SpeechDismissed, UserFinal

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]

STORY_QUESTION = "Tell me a long story about a brave little dragon who lived in the mountains."


@pytest.fixture
def speak(say_espeak: Callable[[str], bytes]) -> Callable[[str], bytes]:
    return say_espeak


async def test_a_question_with_a_long_pause_mid_sentence_is_answered_only_after_it_ends(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    first, second = speak("Can you remind me what the"), speak("capital of Italy is?")
    pause = bytes(2 * RATE * 12 // 10)  # 1.2 s: a silence rule of 500 ms would answer the fragment
    async with Live(pulse_env, tmp_path) as live:
        await asyncio.sleep(0.5)
        _, q_end = live.say(first + pause + second)
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the answer")
        audio = await live.recording()
        assert live.rec is not None
        i_end = live.rec.index_at(q_end)
    finals = live.of(UserFinal)
    assert "italy" in finals[-1].text.lower(), finals[-1].text  # the answered words are the whole question
    assert len(live.of(AssistantDone)) == 1, live.timeline()  # one answer: the fragment was not answered on its own
    # nothing was played before the question ended (the first half was not answered)
    assert loud_span(audio[: i_end - RATE // 10], RATE, QUIET_DBFS) is None, "Parley spoke before the question ended:\n" + live.timeline()
    assert loud_span(audio[i_end:], RATE, QUIET_DBFS) is not None, "no answer on the speaker"


async def test_a_backchannel_while_parley_speaks_does_not_stop_the_answer(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path, system_prompt=STORYTELLER, backchannel_ducking=True) as live:
        await asyncio.sleep(0.5)
        live.say(speak(STORY_QUESTION))
        await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 120, "speech")
        await wait_until_mid_answer(live)
        onset, _ = live.say(speak("Okay."))  # (whisper hears espeak's "mm-hm" as words: a known limit)
        await live.wait_for(lambda: bool(live.of(SpeechDismissed)) or bool(live.of(BargeIn)), 30, "the backchannel to be judged")
        audio = await live.recording(1.5)
        assert live.rec is not None
        i_onset = live.rec.index_at(onset)
    assert live.of(BargeIn) == [], "the backchannel stopped the answer:\n" + live.timeline()
    assert len(live.of(UserFinal)) == 1
    # the answer went on: the speaker is still (or again) loud a second after the backchannel
    after = audio[i_onset + RATE : i_onset + RATE * 3 // 2]
    assert loud_span(after, RATE, QUIET_DBFS) is not None, "the speaker went silent after the backchannel:\n" + live.timeline()
    # and it was ducked meanwhile: somewhere in the 600 ms after the onset it is ≥ 15 dB under its level before
    before_db = 20 * np.log10(np.sqrt(np.mean(audio[i_onset - RATE // 2 : i_onset].astype(np.float64) ** 2)) / 32768 + 1e-9)
    win = RATE // 20
    ducked = audio[i_onset : i_onset + RATE * 6 // 10].astype(np.float64)
    levels = [20 * np.log10(np.sqrt(np.mean(ducked[i : i + win] ** 2)) / 32768 + 1e-9) for i in range(0, ducked.size - win, win)]
    assert min(levels) <= before_db - 15, (before_db, levels)


async def test_a_real_interruption_while_parley_speaks_stops_it(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path, system_prompt=STORYTELLER) as live:
        await asyncio.sleep(0.5)
        live.say(speak(STORY_QUESTION))
        await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 120, "speech")
        # with ducking the stop waits for the words (a partial transcript): leave enough answer to land on
        await wait_until_mid_answer(live, ahead_words=15)
        onset, _ = live.say(speak("Stop. Tell me about dogs instead."))  # a clear onset: the stricter VAD while speaking misses soft ones
        await live.wait_for(lambda: bool(live.of(BargeIn)), 30, "the barge-in")
        await live.wait_for(lambda: len(live.of(AssistantDone)) >= 1, 30, "the cut answer")
        audio = await live.recording(0.6)
        assert live.rec is not None
        i_onset = live.rec.index_at(onset)
    done = live.of(AssistantDone)[0]
    assert done.interrupted, live.timeline()
    quiet_ms = first_quiet_ms(audio, i_onset)
    assert quiet_ms is not None and quiet_ms < 2000, f"still playing {quiet_ms} ms after the interruption:\n{live.timeline()}"
