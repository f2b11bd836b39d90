"""Push-to-talk on real audio: the same stack and devices as test_voice_loop_e2e.py, in push-to-talk mode.

The key is pressed and released through the loop's commands while espeak-ng speaks
into the virtual microphone in real time; the speaker is recorded from its monitor
and transcribed back.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PulseServer, loud_span
from test_voice_loop_e2e import (
    LONG_QUESTION,
    QUIET_DBFS,
    RATE,
    SKY_QUESTION,
    STORYTELLER,
    Live,
    assert_heard,
    assert_played_up_to_the_cut,
    assert_stored_cut_is_a_strict_prefix,
    first_quiet_ms,
    norm_words,
    wait_until_mid_answer,
)

from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    BargeIn,
    InputLevel,
    LoopState,
    Mode,
    SpeechStarted,
    UserFinal,
)

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]

PTT = "push-to-talk"
RELEASE_AFTER_S = 0.6  # key up this long after the last voiced sample was played (device and paplay latency)


async def sleep_until(when: float) -> None:
    """Sleep until monotonic time ``when`` (the clock of pulse.Recorder and of the loop's events)."""
    await asyncio.sleep(max(0.0, when - time.monotonic()))


async def ask_holding_the_key(live: Live, pcm: bytes) -> float:
    """Press, play ``pcm`` into the microphone, release after it was played; returns the time of its last voiced sample."""
    live.loop.push_to_talk_down()
    assert live.loop.push_to_talk_open, "the key press was refused:\n" + live.timeline()
    _, end = live.say(pcm)
    await sleep_until(end + RELEASE_AFTER_S)
    live.loop.push_to_talk_up()
    return end


async def test_push_to_talk_a_question_spoken_while_the_key_is_held_is_answered_on_the_speaker(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path, mode=PTT) as live:
        assert live.loop.mode is Mode.PUSH_TO_TALK
        await asyncio.sleep(0.5)
        q_end = await ask_holding_the_key(live, say_espeak(SKY_QUESTION))
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the answer")
        done = live.of(AssistantDone)[0]
        audio = await live.recording()
        assert live.rec is not None
        heard = audio[live.rec.index_at(q_end) :]
        await live.wait_for(lambda: live.loop.state is LoopState.LISTENING, 30, "listening again")
        await live.loop.flush_store()
    finals = live.of(UserFinal)
    assert len(finals) == 1, live.timeline()
    # the trimmed push-to-talk audio carried the question: most of its content words were transcribed
    user_words = set(norm_words(finals[0].text))
    assert len(user_words & {"color", "sky", "clear", "day"}) >= 2, finals[0].text
    assert not done.interrupted and done.spoken_text, live.timeline()
    await assert_heard(heard, done.spoken_text)
    recs = live.store.load(live.loop.conversation_id)
    assert len(recs) == 1, recs
    assert recs[0].user_text == finals[0].text and recs[0].assistant_text == done.spoken_text and not recs[0].interrupted


async def test_push_to_talk_ignores_speech_while_the_key_is_up(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path, mode=PTT) as live:
        await asyncio.sleep(0.5)
        onset, end = live.say(say_espeak(SKY_QUESTION))
        await sleep_until(end + 6.0)  # hands-free would have answered (or at least transcribed) by now
        audio = await live.recording(0.0)
        assert live.rec is not None
        after_onset = audio[live.rec.index_at(onset) :]
    # the microphone did hear the question (so the silence below is the mode's doing)
    levels = [e.dbfs for e in live.of(InputLevel) if onset <= e.at <= end + 0.5]
    assert levels and max(levels) > -35.0, f"the microphone did not hear the question (max {max(levels, default=-120):.0f} dBFS)"
    for kind in (SpeechStarted, UserFinal, AssistantDelta, AssistantDone):
        assert not live.of(kind), f"{kind.__name__} without the key:\n{live.timeline()}"
    assert not any(live.reached(s) for s in (LoopState.HEARING, LoopState.THINKING, LoopState.SPEAKING)), live.timeline()
    assert loud_span(after_onset, RATE, QUIET_DBFS) is None, "something was played on the speaker"
    assert live.store.load(live.loop.conversation_id) == []


async def test_pressing_the_key_during_a_long_answer_silences_the_speaker_and_history_keeps_only_what_was_played(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path, mode=PTT, system_prompt=STORYTELLER) as live:
        await asyncio.sleep(0.5)
        await ask_holding_the_key(live, say_espeak(LONG_QUESTION))
        await live.wait_for(lambda: live.reached(LoopState.SPEAKING), 120, "the answer to start")
        await wait_until_mid_answer(live)
        pressed = time.monotonic()
        live.loop.push_to_talk_down()
        await live.wait_for(lambda: bool(live.of(BargeIn)), 30, "the barge-in")
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 30, "the cut answer")
        audio = await live.recording(0.6)
        live.loop.push_to_talk_up()  # nothing was said while the key was down: no new turn is answered
        assert live.rec is not None
        i_pressed = live.rec.index_at(pressed)
        await live.wait_for(lambda: live.loop.state is LoopState.LISTENING, 60, "listening again")
        await live.loop.flush_store()
    done = live.of(AssistantDone)[0]
    assert done.interrupted and live.of(BargeIn)[0].turn_id == done.turn_id, live.timeline()
    assert loud_span(audio[i_pressed - RATE : i_pressed], RATE, QUIET_DBFS) is not None, "the answer was not playing when the key went down"
    quiet_ms = first_quiet_ms(audio, i_pressed)
    assert quiet_ms is not None, "the speaker never went quiet after the key went down:\n" + live.timeline()
    assert quiet_ms < 1500, f"still playing {quiet_ms} ms after the key went down:\n{live.timeline()}"
    cut = assert_stored_cut_is_a_strict_prefix(live, done)
    await assert_played_up_to_the_cut(audio[: i_pressed + quiet_ms * RATE // 1000], cut, live.timeline(), tmp_path)
    assert len(live.of(AssistantDone)) == 1, live.timeline()
