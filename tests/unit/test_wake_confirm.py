"""``ConfirmedDetector`` on a scripted engine and a scripted check: which audio the check reads (the window up to the
detection's own stream time, on sample boundaries, however the stream was chunked and however late the engine
reported), and what comes out when the check says yes or no."""

from __future__ import annotations

import numpy as np
import pytest

from genx.local.wake_confirm import ConfirmedDetector
from genx.local.wakeword import WakeWordDetection

RATE = 16000


def ramp(start: int, n: int) -> bytes:
    """Samples whose values are their own stream index (mod 30000): a window says where it came from."""
    return (np.arange(start, start + n) % 30000).astype("<i2").tobytes()


def indices(pcm: bytes) -> list[int]:
    return np.frombuffer(pcm, dtype="<i2").astype(int).tolist()


def span(start: int, stop: int) -> list[int]:
    return [i % 30000 for i in range(start, stop)]


class Engine:
    """Fires at the scripted stream times, reported ``late_by`` seconds of stream later."""

    def __init__(self, fire_at: list[float], late_by: float = 0.0) -> None:
        self.pending = sorted(fire_at)
        self.late_by = late_by
        self.samples = 0
        self.closed = False
        self.resets = 0

    @property
    def phrases(self) -> list[str]:
        return ["Hey Jarvis"]

    def process(self, pcm: bytes) -> list[WakeWordDetection]:
        self.samples += len(pcm) // 2
        t = self.samples / RATE
        due = [at for at in self.pending if at + self.late_by <= t + 1e-9]
        self.pending = [at for at in self.pending if at not in due]
        return [WakeWordDetection("hey_jarvis", "Hey Jarvis", at, 0.97) for at in due]

    def reset(self) -> None:
        self.resets += 1
        self.samples = 0

    def close(self) -> None:
        self.closed = True


class Check:
    def __init__(self, answers: list[bool]) -> None:
        self.prepared = False
        self.answers = list(answers)
        self.read: list[tuple[bytes, str]] = []

    def prepare(self) -> None:
        self.prepared = True

    def verdict(self, pcm: bytes, phrase: str) -> tuple[bool, str]:
        self.read.append((pcm, phrase))
        if not self.answers:
            raise RuntimeError("the model fell over")
        return self.answers.pop(0), "scripted"


def feed(det: ConfirmedDetector, seconds: float, chunk_bytes: int = 640, start: int = 0) -> list[WakeWordDetection]:
    pcm = ramp(start, int(seconds * RATE))
    return [d for i in range(0, len(pcm), chunk_bytes) for d in det.process(pcm[i : i + chunk_bytes])]


@pytest.mark.parametrize("late_by", [0.0, 0.04, 0.5])
def test_the_check_reads_the_window_before_the_detection_s_own_time_however_late_it_was_reported(late_by: float) -> None:
    check = Check([True])
    det = ConfirmedDetector(Engine([2.0], late_by=late_by), check, window_s=1.5)
    found = feed(det, 3.0)
    assert [d.at_s for d in found] == [2.0]
    assert indices(check.read[0][0]) == span(8000, 32000)  # 0.5 s to 2.0 s
    assert check.read[0][1] == "Hey Jarvis"


@pytest.mark.parametrize("chunk_bytes", [321, 640, 1001])
def test_chunks_with_odd_byte_counts_keep_the_window_on_sample_boundaries(chunk_bytes: int) -> None:
    check = Check([True])
    det = ConfirmedDetector(Engine([1.0], late_by=0.1), check, window_s=0.5)
    feed(det, 1.5, chunk_bytes=chunk_bytes)
    assert indices(check.read[0][0]) == span(8000, 16000)


def test_a_detection_near_the_stream_s_start_reads_what_there_is() -> None:
    check = Check([True])
    det = ConfirmedDetector(Engine([0.4]), check, window_s=1.5)
    feed(det, 1.0)
    assert indices(check.read[0][0]) == span(0, 6400)


def test_a_detection_the_check_does_not_confirm_is_dropped_and_each_check_is_kept_with_what_it_read() -> None:
    check = Check([False, True])
    det = ConfirmedDetector(Engine([1.0, 3.0]), check)
    found = feed(det, 4.0)
    assert [d.at_s for d in found] == [3.0]
    assert (det.confirmed, det.rejected) == (1, 1)
    assert [(c.detection.at_s, c.confirmed, c.reason) for c in det.checked] == [(1.0, False, "scripted"), (3.0, True, "scripted")]


def test_reset_forgets_the_audio_before_it_and_restarts_the_window_s_clock() -> None:
    check = Check([True])
    engine = Engine([])
    det = ConfirmedDetector(engine, check, window_s=1.5)
    feed(det, 2.0)
    det.reset()
    engine.pending = [0.5]
    feed(det, 1.0, start=20000)
    assert engine.resets == 1
    assert indices(check.read[0][0]) == span(20000, 28000)  # only audio after the reset, up to 0.5 s into it


def test_phrases_and_close_are_the_engine_s() -> None:
    engine = Engine([])
    det = ConfirmedDetector(engine, Check([]))
    assert det.phrases == ["Hey Jarvis"]
    det.close()
    assert engine.closed


def test_a_check_that_fails_drops_the_detection_and_the_stream_goes_on() -> None:
    check = Check([])  # raises on every call
    det = ConfirmedDetector(Engine([1.0, 2.0]), check)
    assert feed(det, 3.0) == []
    assert det.rejected == 2 and all(c.reason.startswith("the check failed") for c in det.checked)


def test_on_a_background_thread_the_check_is_prepared_before_the_first_chunk() -> None:
    from genx.local.wake_ensemble import BackgroundDetector

    check = Check([True])
    bg = BackgroundDetector(ConfirmedDetector(Engine([0.5]), check))
    try:
        pcm = ramp(0, 16000)
        for i in range(0, len(pcm), 640):
            bg.process(pcm[i : i + 640])
        assert [d.at_s for d in bg.flush()] == [0.5]
        assert check.prepared
    finally:
        bg.close()
