"""Whisper tiny.en confirming openWakeWord's detections on synthesized speech: the wake phrase is confirmed in the
neural voice and in espeak-ng's formant voices (which Whisper misreads, "Hey, Daravist."), while a near miss that
fires openWakeWord at its own threshold and ordinary sentences are not.

Speech is Piper's joe voice and espeak-ng (``conftest.py``), 16 kHz. The check reads the 1.5 s before where the
engine fired; the expected verdicts come from what was said, not from the check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from genx.local.wake_confirm import ConfirmedDetector, WhisperWakeCheck
from genx.local.whisper import WhisperDecoder
from tests.integration.conftest import SENTENCES, silence
from tests.integration.test_wakeword_speech import feed

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def check() -> Iterator[WhisperWakeCheck]:
    pytest.importorskip("faster_whisper")
    yield WhisperWakeCheck(WhisperDecoder())


def last(pcm: bytes, seconds: float = 1.5) -> bytes:
    return pcm[-int(seconds * 16000) * 2 :]


def test_hey_jarvis_in_the_piper_voice_is_confirmed(check: WhisperWakeCheck, say_piper: Callable[[str], bytes]) -> None:
    ok, reason = check.verdict(last(silence(1000) + say_piper("Hey Jarvis.") + silence(100)), "Hey Jarvis")
    assert ok, reason


@pytest.mark.parametrize(("voice", "wpm"), [("en-us", 170), ("en-us+m3", 170), ("en-gb", 140)])
def test_hey_jarvis_in_espeak_formant_voices_is_confirmed_however_whisper_spells_it(
    check: WhisperWakeCheck, say_espeak: Callable[..., bytes], voice: str, wpm: int
) -> None:
    ok, reason = check.verdict(last(silence(1000) + say_espeak("hey jarvis", voice, wpm) + silence(100)), "Hey Jarvis")
    assert ok, reason


@pytest.mark.parametrize("sentence", SENTENCES[:6])
def test_the_end_of_an_ordinary_sentence_is_not_confirmed(
    check: WhisperWakeCheck, say_piper: Callable[[str], bytes], sentence: str
) -> None:
    ok, reason = check.verdict(last(say_piper(sentence) + silence(100)), "Hey Jarvis")
    assert not ok, reason


def test_a_near_miss_that_fires_openwakeword_is_dropped_and_the_phrase_after_it_kept(check: WhisperWakeCheck) -> None:
    pytest.importorskip("pyopen_wakeword")
    from bench.wake_word import espeak  # the bench's run-together espeak speech, where openWakeWord fired on this near miss
    from genx.local.openwakeword import OpenWakeWordDetector

    near_miss = espeak("Hey, just a minute, please.", "en-us", 140)
    phrase = espeak("hey jarvis", "en-us", 170)
    pcm = silence(1000) + near_miss + silence(2000) + phrase + silence(1500)
    with ConfirmedDetector(OpenWakeWordDetector(["hey_jarvis"], threshold=0.5), check) as det:
        found = feed(det, pcm, chunk_ms=20)
        phrase_at = (1000 + 2000) / 1000 + len(near_miss) / 32000
        assert [round(d.at_s - phrase_at, 1) >= 0 for d in found] == [True]  # the phrase's detection alone
        verdicts = [c.confirmed for c in det.checked]
        assert verdicts == [False, True], [c.reason for c in det.checked]  # openWakeWord fired on the near miss too
