"""Tools through the whole voice loop on real audio: PulseAudio virtual devices, the offline models, PortAudio.

A spoken "what time is it" is answered with the clock tool's time; a timer set by a
typed message rings aloud (a chime, then the words) while the microphone is muted.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from pulse import PulseServer, loud_span, write_wav
from test_voice_loop_e2e import QUIET_DBFS, RATE, Live, assert_heard, norm_words, transcribe

from genx.agentkit.events import Announcement, AssistantDone, ToolActivity, UserFinal

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture
def speak(say_espeak: Callable[[str], bytes]) -> Callable[[str], bytes]:
    return say_espeak


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Timers go to the test's own data dir, never the user's."""
    d = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(d))
    return d


def clock_words(t: dt.datetime) -> str:
    """How the clock tool says a time ("12:49 PM"), written here from the format, not taken from the tool."""
    return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"


async def test_a_spoken_what_time_is_it_is_answered_with_the_clock_tools_time(
    pulse_env: PulseServer, tmp_path: Path, speak: Callable[[str], bytes]
) -> None:
    async with Live(pulse_env, tmp_path / "conv") as live:
        await asyncio.sleep(0.5)
        before = dt.datetime.now().astimezone()
        _, q_end = live.say(speak("What time is it?"))
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the answer")
        after = dt.datetime.now().astimezone()
        done = live.of(AssistantDone)[0]
        audio = await live.recording()
        assert live.rec is not None
        heard = audio[live.rec.index_at(q_end) :]
        await live.loop.flush_store()
    assert "time" in norm_words(live.of(UserFinal)[0].text), live.timeline()
    calls = live.of(ToolActivity)
    assert [(c.name, c.status) for c in calls] == [("current_time", "running"), ("current_time", "ok")], live.timeline()
    times = {clock_words(before), clock_words(after)}  # the minute may turn during the turn
    assert any(t in done.text for t in times), (done.text, times)
    assert any(t in calls[-1].result for t in times)
    assert not done.interrupted and done.spoken_text == done.text
    write_wav(tmp_path / "answer.wav", heard, RATE)  # for a look after a failure
    await assert_heard(heard, done.spoken_text)
    (rec,) = live.store.load(live.loop.conversation_id)
    assert [m.role.value for m in rec.tool_messages] == ["assistant", "tool"]
    assert rec.tool_messages[0].tool_calls[0].name == "current_time" and json.loads(rec.tool_messages[0].tool_calls[0].arguments) == {}
    assert rec.tool_messages[1].tool_result is not None and rec.tool_messages[1].tool_result.content == calls[-1].result


def peak_hz(x: np.ndarray) -> float:
    spec = np.abs(np.fft.rfft(x.astype(np.float64) * np.hanning(x.size)))
    return float(np.fft.rfftfreq(x.size, 1 / RATE)[spec.argmax()])


def find_chime(x: np.ndarray) -> int | None:
    """Where the chime's first note starts in ``x``: a 60 ms window peaking at 880 Hz followed within 0.3 s by one at 1318.5 Hz."""
    win, step = int(0.06 * RATE), int(0.01 * RATE)
    peaks = [(i, peak_hz(x[i : i + win])) for i in range(0, x.size - win, step)]
    loud = {i for i, _ in peaks if loud_span(x[i : i + win], RATE, QUIET_DBFS) is not None}
    for i, f in peaks:
        if i in loud and abs(f - 880) < 30 and any(abs(g - 1318.5) < 30 and i < j <= i + int(0.3 * RATE) and j in loud for j, g in peaks):
            return i
    return None


async def test_a_timer_rings_aloud_with_a_chime_and_its_words_while_the_microphone_is_muted(pulse_env: PulseServer, tmp_path: Path) -> None:
    async with Live(pulse_env, tmp_path / "conv") as live:
        await asyncio.sleep(0.5)
        live.loop.mute(True)
        live.loop.send_text("Set a timer for 4 seconds.")
        await live.wait_for(lambda: bool(live.of(AssistantDone)), 120, "the timer's confirmation")
        confirm = live.of(AssistantDone)[0]
        assert "timer" in confirm.text.lower(), live.timeline()
        player = live.session.player
        underflows = player.device_underflows
        await live.wait_for(lambda: any(a.phase == "done" for a in live.of(Announcement)), 60, "the timer to ring")
        dropped_by_device = player.device_underflows > underflows
        handed_out = live.loop.announcer.last_played
        audio = await live.recording(0.8)
        assert live.rec is not None
        phases = [a.phase for a in live.of(Announcement)]
        assert phases == ["queued", "speaking", "done"], live.timeline()
        speaking = next(a for a in live.of(Announcement) if a.phase == "speaking")
        rang = audio[live.rec.index_at(speaking.at) - RATE // 2 :]  # may begin with the end of the confirmation
    text = live.of(Announcement)[0].text
    assert text.startswith("Time's up: timer 1"), text
    write_wav(tmp_path / "rang.wav", rang, RATE)  # for a look after a failure
    span = loud_span(rang, RATE, QUIET_DBFS)
    assert span is not None, "nothing was played when the timer rang"
    chime_at = find_chime(rang)
    assert chime_at is not None, "no chime (880 Hz, then 1318 Hz) when the timer rang"
    start = chime_at
    words = norm_words(await asyncio.to_thread(transcribe, rang[start + int(0.5 * RATE) : span[1]]))
    played_s = next(a for a in live.of(Announcement) if a.phase == "done").at - speaking.at
    # the player handed the whole route (chime and words) to the device, uninterrupted
    assert handed_out is not None and handed_out[0] == handed_out[1] > 0 and not handed_out[2], handed_out
    # what was heard is the announcement's words (any of them counts, as in assert_heard). On a loaded machine PortAudio
    # reports that the device ran dry, and PulseAudio then loses audio the player handed out (measured: a 2.9 s route
    # played in 1.7 s, its first words missing): the words are checked only when the device kept up.
    said = set(norm_words(text)) | {"four"}
    assert dropped_by_device or any(w in said for w in words), (words, f"{played_s:.1f} s from speaking to done", live.timeline())
