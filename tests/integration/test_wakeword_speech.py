"""The real microWakeWord models on synthesized speech: wake phrases trigger, other speech and noise do not.

Speech is Piper's joe voice and espeak-ng's formant voices (``conftest.py``), 16 kHz, fed in capture-sized
chunks. Expected timestamps come from where the test put the phrase in the stream, not from the detector.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import pytest

from genx.local import wakeword as ww
from genx.local.wakeword import WakeWordDetection, WakeWordDetector
from tests.integration.conftest import RATE, SENTENCES, noise_hum_and_tones, silence

pytest.importorskip("pymicro_wakeword", reason="pip install pymicro-wakeword")
pytestmark = pytest.mark.integration

LEAD_MS = 1000


class Detector(Protocol):
    def process(self, pcm: bytes) -> list[WakeWordDetection]: ...


def feed(det: Detector, pcm: bytes, chunk_ms: int = 10) -> list[WakeWordDetection]:
    step = RATE * chunk_ms // 1000 * 2
    out: list[WakeWordDetection] = []
    for i in range(0, len(pcm), step):
        out += det.process(pcm[i : i + step])
    return out


def spoken_end_s(pcm: bytes) -> float:
    """Where the speech in ``pcm`` ends: the last 10 ms frame above -45 dBFS."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    frames = x[: len(x) // 160 * 160].reshape(-1, 160)
    loud = np.flatnonzero(np.sqrt((frames**2).mean(axis=1)) > 32768 * 10 ** (-45 / 20))
    return float((loud[-1] + 1) * 160 / RATE)


def test_hey_jarvis_in_the_piper_voice_triggers_once_just_after_the_phrase(say_piper: Callable[[str], bytes]) -> None:
    phrase = say_piper("Hey Jarvis.")
    pcm = silence(LEAD_MS) + phrase + silence(2000)
    with WakeWordDetector(["hey_jarvis"]) as det:
        hits = feed(det, pcm)
    assert [h.model for h in hits] == ["hey_jarvis"], hits
    end = LEAD_MS / 1000 + spoken_end_s(phrase)
    start = LEAD_MS / 1000
    assert start < hits[0].at_s <= end + 1.0, (hits[0], start, end)
    assert hits[0].phrase == "Hey Jarvis" and hits[0].probability >= 0.6  # the documented hey_jarvis threshold


def test_hey_jarvis_in_a_female_espeak_voice_triggers(say_espeak: Callable[..., bytes]) -> None:
    pcm = silence(LEAD_MS) + say_espeak("hey jarvis", voice="en-us+f3", wpm=160) + silence(2000)
    with WakeWordDetector(["hey_jarvis"]) as det:
        assert [h.model for h in feed(det, pcm)] == ["hey_jarvis"]


def test_each_builtin_model_answers_to_its_own_phrase_and_not_to_the_others(say_piper: Callable[[str], bytes]) -> None:
    phrases = {"okay_nabu": "Okay Nabu.", "hey_jarvis": "Hey Jarvis.", "alexa": "Alexa.", "hey_mycroft": "Hey Mycroft."}
    with WakeWordDetector(list(phrases)) as det:
        for model, text in phrases.items():
            det.reset()
            hits = feed(det, silence(LEAD_MS) + say_piper(text) + silence(2000))
            assert [h.model for h in hits] == [model], (text, hits)


def test_ordinary_sentences_in_the_piper_voice_do_not_trigger(say_piper: Callable[[str], bytes]) -> None:
    pcm = b"".join(say_piper(s) + silence(400) for s in SENTENCES)
    with WakeWordDetector(list(ww.BUILTIN)) as det:
        assert feed(det, pcm, chunk_ms=20) == []
        assert det.stream_s == pytest.approx(len(pcm) / 2 / RATE)


def test_noise_hum_and_tones_do_not_trigger() -> None:
    pcm = noise_hum_and_tones()
    with WakeWordDetector(list(ww.BUILTIN)) as det:
        assert feed(det, pcm, chunk_ms=20) == []


def test_detections_do_not_depend_on_the_chunk_size(say_piper: Callable[[str], bytes]) -> None:
    pcm = silence(LEAD_MS) + say_piper("Hey Jarvis.") + silence(2000)
    times = {}
    for chunk_ms in (10, 20, 7):  # 7 ms: chunks that split feature frames (and odd byte counts at 16 kHz are impossible)
        with WakeWordDetector(["hey_jarvis"]) as det:
            hits = feed(det, pcm, chunk_ms)
        assert len(hits) == 1, (chunk_ms, hits)
        times[chunk_ms] = hits[0].at_s
    assert max(times.values()) - min(times.values()) <= 0.021, times


def test_a_chunk_with_an_odd_byte_count_keeps_the_last_byte_for_the_next_chunk(say_piper: Callable[[str], bytes]) -> None:
    pcm = silence(LEAD_MS) + say_piper("Hey Jarvis.") + silence(2000)
    with WakeWordDetector(["hey_jarvis"]) as det:
        hits: list[WakeWordDetection] = []
        for i in range(0, len(pcm), 321):
            hits += det.process(pcm[i : i + 321])
        assert det.stream_s == pytest.approx(len(pcm) / 2 / RATE)
    assert len(hits) == 1


def test_two_wake_phrases_three_seconds_apart_are_two_detections_unless_the_refractory_time_covers_both(
    say_piper: Callable[[str], bytes],
) -> None:
    phrase = say_piper("Hey Jarvis.")
    pcm = silence(LEAD_MS) + phrase + silence(3000) + phrase + silence(2000)
    with WakeWordDetector(["hey_jarvis"]) as det:
        two = feed(det, pcm)
    with WakeWordDetector(["hey_jarvis"], refractory_s=10.0) as det:
        one = feed(det, pcm)
    assert len(two) == 2 and len(one) == 1
    assert two[1].at_s - two[0].at_s == pytest.approx(len(phrase) / 2 / RATE + 3.0, abs=0.1)


def test_reset_restarts_the_stream_clock(say_piper: Callable[[str], bytes]) -> None:
    pcm = silence(LEAD_MS) + say_piper("Hey Jarvis.") + silence(1500)
    with WakeWordDetector(["hey_jarvis"]) as det:
        first = feed(det, pcm)
        det.reset()
        assert det.stream_s == 0.0
        second = feed(det, pcm)
    assert len(first) == len(second) == 1
    assert second[0].at_s == pytest.approx(first[0].at_s, abs=0.011)


async def test_aprocess_runs_inline_while_cheap_and_in_a_worker_thread_when_not(
    say_piper: Callable[[str], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    pcm = silence(LEAD_MS) + say_piper("Hey Jarvis.") + silence(1500)
    step = RATE * 20 // 1000 * 2
    for budget, inline in ((1.0, True), (0.0, False)):
        monkeypatch.setattr(ww, "INLINE_BUDGET_S", budget)
        threads: set[int] = set()
        with WakeWordDetector(["hey_jarvis"]) as det:
            real = det.process

            def spy(
                chunk: bytes, real: Callable[[bytes], list[WakeWordDetection]] = real, threads: set[int] = threads
            ) -> list[WakeWordDetection]:
                threads.add(threading.get_ident())
                return real(chunk)

            monkeypatch.setattr(det, "process", spy)
            hits = [h for i in range(0, len(pcm), step) for h in await det.aprocess(pcm[i : i + step])]
        assert len(hits) == 1
        loop_thread = threading.get_ident()
        assert (threads == {loop_thread}) is inline, (budget, threads, loop_thread)
