"""The wake phrase spotter (genx.local.wake_spotter): a short stretch of speech, then a pause, is one candidate.

The speech decision is scripted here (loud frames are speech), so the timings are exact; webrtcvad on real speech
is in tests/integration/test_wake_spotter_speech.py."""

from __future__ import annotations

import numpy as np
import pytest

from genx.agentkit.testing import tone
from genx.local.wake_spotter import PhraseSpotter
from genx.local.wakeword import WakeWordConfigError

RATE = 16000


def _loud(frame: bytes) -> bool:
    return max(np.abs(np.frombuffer(frame, dtype="<i2")), default=0) > 1000


def _spotter() -> PhraseSpotter:
    return PhraseSpotter("Hey Jarvis", is_speech=_loud)


def _silence(s: float) -> bytes:
    return bytes(2 * int(RATE * s))


def _voice(s: float) -> bytes:
    return tone(int(RATE * s), 8000, 0)


def _feed(spotter: PhraseSpotter, pcm: bytes, step: int = 640) -> list[float]:
    out = []
    for i in range(0, len(pcm), step):
        out += [d.at_s for d in spotter.process(pcm[i : i + step])]
    return out


def test_a_phrase_length_stretch_then_a_pause_is_one_candidate_stamped_near_its_end() -> None:
    s = _spotter()
    (at,) = _feed(s, _silence(1.0) + _voice(0.7) + _silence(1.0))
    assert at == pytest.approx(1.71)  # the end of the 30 ms frame that held the stretch's last sound (at 1.7 s)
    assert s.phrases == ["Hey Jarvis"]


def test_a_click_and_a_sentence_are_no_candidates() -> None:
    s = _spotter()
    assert _feed(s, _silence(1.0) + _voice(0.15) + _silence(1.0)) == []  # shorter than the phrase said fast
    assert _feed(s, _voice(2.5) + _silence(1.0)) == []  # longer than the phrase said slowly


def test_nothing_is_proposed_until_the_pause_after_the_stretch() -> None:
    s = _spotter()
    assert _feed(s, _silence(0.5) + _voice(0.7)) == []
    assert _feed(s, _silence(0.09)) == []  # a comma's pause: the request may follow in the same breath
    assert len(_feed(s, _silence(0.5))) == 1


def test_each_stretch_after_a_pause_is_its_own_candidate() -> None:
    s = _spotter()
    got = _feed(s, _silence(0.5) + _voice(0.6) + _silence(0.8) + _voice(0.8) + _silence(0.8))
    assert len(got) == 2 and got[1] - got[0] > 1.0


def test_how_the_audio_is_split_into_chunks_changes_nothing() -> None:
    pcm = _silence(0.73) + _voice(0.66) + _silence(0.6) + _voice(0.5) + _silence(0.6)
    assert _feed(_spotter(), pcm, 7) == _feed(_spotter(), pcm, 640)


def test_reset_forgets_a_stretch_in_progress_and_the_clock() -> None:
    s = _spotter()
    _feed(s, _silence(0.3) + _voice(0.5))
    s.reset()
    (at,) = _feed(s, _silence(0.2) + _voice(0.6) + _silence(0.5))
    assert at < 1.0  # stamped on the new stream's clock, for the new stretch only


def test_an_empty_phrase_is_a_typed_error() -> None:
    with pytest.raises(WakeWordConfigError, match="phrase"):
        PhraseSpotter("  ", is_speech=_loud)
