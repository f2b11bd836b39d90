"""PauseTracker on synthetic audio: a tone is voiced, silence after it is a pause, sound ends the pause."""

from __future__ import annotations

import numpy as np

from genx.agentkit.pauses import PauseTracker

RATE = 16000


def tone(ms: int, dbfs: float = -12.0) -> bytes:
    t = np.arange(RATE * ms // 1000) / RATE
    amp = 32767 * 10 ** (dbfs / 20)
    return (amp * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes()


def silence(ms: int) -> bytes:
    return bytes(2 * RATE * ms // 1000)


def test_voiced_audio_is_counted_and_silence_after_it_grows_the_pause() -> None:
    p = PauseTracker()
    assert p.feed(tone(200)) is True
    assert p.voiced_ms == 200.0 and p.quiet_ms == 0.0
    assert p.feed(silence(150)) is False
    assert p.quiet_ms == 150.0 and p.voiced_ms == 200.0


def test_audio_far_below_the_peak_counts_as_pause_even_when_not_silent() -> None:
    p = PauseTracker()
    p.feed(tone(100, -6.0))
    assert p.feed(tone(100, -40.0)) is False  # 34 dB under the peak: a pause with background noise
    assert p.quiet_ms == 100.0


def test_sound_after_a_pause_ends_it_and_mark_restarts_the_voiced_count() -> None:
    p = PauseTracker()
    p.feed(tone(300))
    p.feed(silence(200))
    p.mark()
    assert p.voiced_ms == 0.0
    assert p.feed(tone(50)) is True
    assert p.quiet_ms == 0.0 and p.voiced_ms == 50.0
