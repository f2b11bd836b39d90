"""The voice hint: a few voiced frames duck the answer ahead of the VAD's onset, and the volume comes back
when no onset follows (the VAD on scripted frames; the turn manager on a scripted timeline)."""

from __future__ import annotations

from genx.agentkit.over_answer import HINT_FRAMES
from genx.local.vad_segment import HINT, IDLE, START, SpeechEvent, UtteranceDetector
from genx.stream import collect, stream_of
from tests.unit.test_agentkit_turn_manager import Timeline, _speaking
from tests.unit.test_local_vad import FRAME_MS, audio_chunks, feed, make_vad, script, settings


# -- the VAD ---------------------------------------------------------------------------------------
def test_two_voiced_frames_in_a_row_are_a_hint_before_the_onset_and_only_once() -> None:
    det = UtteranceDetector(settings(hint_frames=2))  # onset: 3 voiced of a 5-frame window
    assert feed(det, "v....vv") == [IDLE] * 6 + [HINT]  # a lone voiced frame is no hint
    assert feed(det, "v") == [START]


def test_voiced_frames_that_never_reach_an_onset_give_a_hint_per_run() -> None:
    det = UtteranceDetector(settings(hint_frames=2, onset_ratio=1.0))  # onset: 5 voiced in a row
    assert feed(det, "vv..vv..") == [IDLE, HINT, IDLE, IDLE, IDLE, HINT, IDLE, IDLE]
    assert not det.in_speech


def test_without_hint_frames_there_is_no_hint() -> None:
    det = UtteranceDetector(settings())
    assert HINT not in feed(det, "vv..vv..vvvvv")


async def test_the_vad_reports_a_hint_at_the_first_voiced_frame_before_the_start_event() -> None:
    events: list[SpeechEvent] = []
    frames = stream_of(*audio_chunks(script("....vvvvv" + "." * 12)))
    await collect(await make_vad(hint_frames=2).transform(frames, on_speech=events.append))
    assert [e.kind for e in events] == ["voice", "start", "end"]
    assert events[0].position_ms == 4 * FRAME_MS  # the first frame of the voiced run
    assert events[0].stream_id == ""  # a hint opens no route


def test_the_loop_asks_for_a_hint_sooner_than_the_onset() -> None:
    det = UtteranceDetector(settings(hint_frames=HINT_FRAMES))
    assert HINT_FRAMES < det.onset_frames_needed


# -- the turn manager ------------------------------------------------------------------------------
def ducking_timeline() -> Timeline:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    return tl


def test_a_hint_while_the_answer_is_heard_ducks_it_and_without_an_onset_the_volume_comes_back() -> None:
    tl = ducking_timeline()
    story = _speaking(tl)
    hint = tl.at(3.0).turns.voice_hint(3.0)
    assert hint is not None
    tl.at(3.25).turns.hint_expired(hint)
    assert [c[0] for c in tl.answers.calls] == ["launch", "duck", "unduck"]
    assert story.answer is not None and not story.answer.interrupted


def test_an_onset_after_the_hint_keeps_the_answer_ducked_as_speech_over_it() -> None:
    tl = ducking_timeline()
    _speaking(tl)
    hint = tl.turns.voice_hint(3.0)
    assert hint is not None
    assert tl.at(3.1).turns.admit_speech(3.0, "speech onset") is True
    tl.speech("v2")
    tl.at(3.25).turns.hint_expired(hint)  # the onset took over: no unduck here
    assert [c[0] for c in tl.answers.calls] == ["launch", "duck", "duck"]
    assert tl.turns.candidate is not None


def test_a_second_hint_extends_the_duck_and_only_the_last_one_expires_it() -> None:
    tl = ducking_timeline()
    _speaking(tl)
    first = tl.turns.voice_hint(3.0)
    second = tl.turns.voice_hint(3.2)
    assert first is not None and second is not None
    tl.turns.hint_expired(first)
    assert [c[0] for c in tl.answers.calls] == ["launch", "duck", "duck"]
    tl.turns.hint_expired(second)
    assert [c[0] for c in tl.answers.calls][-1] == "unduck"


def test_no_hint_duck_without_ducking_before_the_answer_is_heard_or_over_a_candidate() -> None:
    off = Timeline(preemptive_generation=False, backchannel_ducking=False)
    off.answers.can_duck = True
    _speaking(off)
    assert off.turns.voice_hint(3.0) is None

    quiet = ducking_timeline()
    story = _speaking(quiet)
    assert story.answer is not None
    story.answer.started_playing = False  # generated, nothing heard yet
    assert quiet.turns.voice_hint(3.0) is None

    over = ducking_timeline()
    _speaking(over)
    over.turns.admit_speech(3.0, "speech onset")
    over.speech("v2")
    assert over.turns.voice_hint(3.3) is None  # already speech over the answer: judged as it goes on
    assert [c[0] for c in off.answers.calls + quiet.answers.calls] == ["launch", "launch"]
