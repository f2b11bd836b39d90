"""Announcements in the voice loop: a chime and the words, spoken only when the floor is free, also while muted."""

from __future__ import annotations

import numpy as np

from genx.agentkit.announce import chime_pcm
from genx.agentkit.events import Announcement, AssistantDone, SpeechStarted
from genx.agentkit.testing import RATE, Reply, Rig, tone


def _phases(rig: Rig) -> list[tuple[str, str]]:
    return [(e.text, e.phase) for e in rig.of(Announcement)]


def _route_audio(rig: Rig) -> list[bytes]:
    return [bytes(r.audio) for r in rig.player._order]


async def test_an_announcement_plays_a_chime_then_the_words_and_is_shown_before_it_is_heard() -> None:
    rig = Rig()
    await rig.start()
    rig.loop.announce("Time's up: timer 1 for 10 minutes.")
    assert _phases(rig) == [("Time's up: timer 1 for 10 minutes.", "queued")]
    await rig.run_until(6.0)
    assert [p for _, p in _phases(rig)] == ["queued", "speaking", "done"]
    (played,) = _route_audio(rig)
    chime = chime_pcm(RATE)
    words = tone(len("Time's up: timer 1 for 10 minutes.") * 800)
    assert played[: len(chime)] == chime  # the chime first …
    assert len(played) - len(chime) >= len(words) * 0.9  # … then the synthesized sentence
    assert rig.synth.segments and "Time's up" in "".join(rig.synth.segments)
    assert rig.loop.history.turns() == []  # not a turn: nothing in history
    await rig.stop()


async def test_an_announcement_waits_for_the_answer_being_spoken_and_comes_after_it() -> None:
    rig = Rig(replies=[Reply([(0.1, "A long answer that takes a while to say out loud.")])])
    await rig.start()
    rig.loop.send_text("tell me something")
    await rig.run_until(0.5)
    rig.loop.announce("Reminder: call my sister.")
    await rig.run_until(2.0)
    assert [p for _, p in _phases(rig)] == ["queued"]  # Parley is answering: it waits
    await rig.run_until(12.0)
    done_at = rig.of(AssistantDone)[0].at
    speaking = [e for e in rig.of(Announcement) if e.phase == "speaking"]
    assert len(speaking) == 1 and speaking[0].at >= done_at
    assert [p for _, p in _phases(rig)] == ["queued", "speaking", "done"]
    await rig.stop()


async def test_an_announcement_waits_while_the_user_is_speaking() -> None:
    rig = Rig(speech=[(0.5, 3.0)], transcripts=["what about tomorrow"], replies=[Reply([(0.1, "Fine.")])])
    await rig.start()
    await rig.run_until(1.0)
    assert rig.of(SpeechStarted)
    rig.loop.announce("Time's up.")
    await rig.run_until(3.0)
    assert [p for _, p in _phases(rig)] == ["queued"]
    await rig.run_until(10.0)
    assert [p for _, p in _phases(rig)] == ["queued", "speaking", "done"]
    assert next(e for e in rig.of(Announcement) if e.phase == "speaking").at > rig.of(AssistantDone)[0].at
    await rig.stop()


async def test_a_muted_loop_still_announces_aloud() -> None:
    rig = Rig()
    await rig.start()
    rig.loop.mute(True)
    rig.loop.announce("Alarm: 7:00.")
    await rig.run_until(5.0)
    assert [p for _, p in _phases(rig)] == ["queued", "speaking", "done"]
    assert len(_route_audio(rig)[0]) > len(chime_pcm(RATE))
    await rig.stop()


async def test_two_announcements_are_spoken_one_after_the_other_and_stop_speaking_cuts_only_the_current_one() -> None:
    rig = Rig()
    await rig.start()
    rig.loop.announce("First reminder with quite a few words in it to say.")
    rig.loop.announce("Second.")
    await rig.run_until(0.6)
    assert _phases(rig)[-1] == ("First reminder with quite a few words in it to say.", "speaking")
    rig.loop.stop_speaking()
    await rig.run_until(6.0)
    assert _phases(rig) == [
        ("First reminder with quite a few words in it to say.", "queued"),
        ("Second.", "queued"),
        ("First reminder with quite a few words in it to say.", "speaking"),
        ("First reminder with quite a few words in it to say.", "done"),
        ("Second.", "speaking"),
        ("Second.", "done"),
    ]
    first, second = _route_audio(rig)
    assert len(first) < len(chime_pcm(RATE)) + len(tone(40 * 800))  # cut well before its end
    assert len(second) > len(chime_pcm(RATE))
    await rig.stop()


def test_the_chime_is_two_rising_notes_with_quiet_edges() -> None:
    x = np.frombuffer(chime_pcm(16000), dtype="<i2").astype(float)
    assert 0 < np.abs(x).max() < 32767 * 0.3
    assert abs(x[0]) < 200 and abs(x[-1]) < 1  # soft start, silent gap at the end
    first, second = x[: int(16000 * 0.13)], x[int(16000 * 0.13) : int(16000 * 0.33)]

    def peak_hz(y: np.ndarray) -> float:
        spec = np.abs(np.fft.rfft(y))
        return float(np.fft.rfftfreq(len(y), 1 / 16000)[spec.argmax()])

    assert abs(peak_hz(first) - 880) < 15 and abs(peak_hz(second) - 1318.5) < 15
