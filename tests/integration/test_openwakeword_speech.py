"""The real openWakeWord models on synthesized speech, alone and beside microWakeWord: wake phrases trigger,
in voices microWakeWord does not hear too; other speech and noise do not.

Speech is Piper's joe voice and espeak-ng's formant voices (``conftest.py``), 16 kHz, fed in capture-sized
chunks. Expected timestamps come from where the test put the phrase in the stream, not from the detector.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from genx.local.openwakeword import OpenWakeWordDetector
from genx.local.wake_ensemble import AnyOfDetector, BackgroundDetector
from genx.local.wakeword import WakeWordDetection, WakeWordDetector
from tests.integration.conftest import RATE, SENTENCES, noise_hum_and_tones, silence
from tests.integration.test_wakeword_speech import feed, spoken_end_s

pytest.importorskip("pyopen_wakeword", reason="pip install pyopen-wakeword (./dev setup installs it)")
pytest.importorskip("pymicro_wakeword", reason="pip install pymicro-wakeword")
pytestmark = pytest.mark.integration

LEAD_MS = 1000


def test_hey_jarvis_in_the_piper_voice_triggers_once_just_after_the_phrase(say_piper: Callable[[str], bytes]) -> None:
    phrase = say_piper("Hey Jarvis.")
    pcm = silence(LEAD_MS) + phrase + silence(2000)
    with OpenWakeWordDetector(["hey_jarvis"]) as det:
        hits = feed(det, pcm, chunk_ms=20)
    assert [(h.model, h.phrase) for h in hits] == [("hey_jarvis", "Hey Jarvis")], hits
    start, end = LEAD_MS / 1000, LEAD_MS / 1000 + spoken_end_s(phrase)
    assert start < hits[0].at_s <= end + 1.0, (hits[0], start, end)
    assert hits[0].probability >= 0.95  # the documented hey_jarvis threshold


@pytest.mark.parametrize("voice", ["en-us", "en-gb", "en-gb-x-rp"])
def test_hey_jarvis_in_espeak_male_voices_triggers_openwakeword_and_either_engine(say_espeak: Callable[..., bytes], voice: str) -> None:
    pcm = silence(LEAD_MS) + say_espeak("hey jarvis", voice=voice, wpm=150) + silence(2000)
    with OpenWakeWordDetector(["hey_jarvis"]) as det:
        assert [h.model for h in feed(det, pcm, chunk_ms=20)] == ["hey_jarvis"]
    background = BackgroundDetector(OpenWakeWordDetector(["hey_jarvis"]))
    either = AnyOfDetector([WakeWordDetector(["hey_jarvis"]), background])
    hits: list[WakeWordDetection] = feed(either, pcm, chunk_ms=20)
    hits += either.flush()
    either.close()
    assert [h.phrase for h in hits] == ["Hey Jarvis"], hits


def test_a_phrase_both_engines_hear_is_one_detection(say_piper: Callable[[str], bytes]) -> None:
    phrase = say_piper("Hey Jarvis.")
    pcm = silence(LEAD_MS) + phrase + silence(3000) + phrase + silence(2000)
    micro, background = WakeWordDetector(["hey_jarvis"]), BackgroundDetector(OpenWakeWordDetector(["hey_jarvis"]))
    either = AnyOfDetector([micro, background])
    hits: list[WakeWordDetection] = []
    step = RATE * 20 // 1000 * 2
    for i in range(0, len(pcm), step):
        hits += either.process(pcm[i : i + step])
    hits += either.flush()
    either.close()
    assert len(hits) == 2, hits  # two utterances, each heard by both engines
    assert hits[1].at_s - hits[0].at_s == pytest.approx(len(phrase) / 2 / RATE + 3.0, abs=0.25)


def test_ordinary_sentences_in_piper_and_espeak_voices_do_not_trigger(
    say_piper: Callable[[str], bytes], say_espeak: Callable[..., bytes]
) -> None:
    pcm = b"".join(say_piper(s) + silence(400) + say_espeak(s) + silence(400) for s in SENTENCES)
    with OpenWakeWordDetector(["hey_jarvis", "alexa", "hey_mycroft", "okay_nabu", "hey_rhasspy"]) as det:
        assert feed(det, pcm, chunk_ms=20) == []
        assert det.stream_s == pytest.approx(len(pcm) / 2 / RATE)


def test_noise_hum_and_tones_do_not_trigger() -> None:
    pcm = noise_hum_and_tones()
    with OpenWakeWordDetector(["hey_jarvis"]) as det:
        assert feed(det, pcm, chunk_ms=20) == []


def test_reset_restarts_the_stream_clock(say_piper: Callable[[str], bytes]) -> None:
    pcm = silence(LEAD_MS) + say_piper("Hey Jarvis.") + silence(1500)
    with OpenWakeWordDetector(["hey_jarvis"]) as det:
        first = feed(det, pcm, chunk_ms=20)
        det.reset()
        assert det.stream_s == 0.0
        second = feed(det, pcm, chunk_ms=20)
    assert len(first) == len(second) == 1
    assert second[0].at_s == pytest.approx(first[0].at_s, abs=0.021)
