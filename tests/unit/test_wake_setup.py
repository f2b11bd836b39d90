"""Building the wake word detector from ``[loop]``: off by default; a model that cannot load is a warning, not a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.headless import build_wake_detector, loop_config
from app.settings import Settings


def test_no_detector_is_built_unless_the_wake_word_is_switched_on() -> None:
    s = Settings()
    assert s.loop.wake_word is False
    assert build_wake_detector(s.loop) == (None, "")


def test_an_unknown_model_leaves_hands_free_without_the_wake_word_and_says_so() -> None:
    s = Settings()
    s.loop.wake_word = True
    s.loop.wake_word_model = "hey_computer"
    det, warning = build_wake_detector(s.loop)
    assert det is None
    assert warning.startswith("wake word off, Parley listens to all speech")
    assert "hey_computer" in warning and "hey_jarvis" in warning  # names the bad value and the built-in ones


def test_a_corrupt_model_file_is_a_warning_naming_the_file(tmp_path: Path) -> None:
    pytest.importorskip("pymicro_wakeword")
    (tmp_path / "mine.tflite").write_bytes(b"\x00" * 64)
    manifest = tmp_path / "mine.json"
    manifest.write_text('{"wake_word": "Hey Mine", "model": "mine.tflite", "micro": {"probability_cutoff": 0.9, "sliding_window_size": 5}}')
    s = Settings()
    s.loop.wake_word = True
    s.loop.wake_word_model = str(manifest)
    det, warning = build_wake_detector(s.loop)
    assert det is None
    assert "mine.tflite" in warning


def test_the_built_in_model_loads_and_follow_up_reaches_the_loop_config() -> None:
    pytest.importorskip("pymicro_wakeword")
    s = Settings()
    s.loop.wake_word = True
    s.loop.follow_up_s = 5.0
    det, warning = build_wake_detector(s.loop)
    assert warning == ""
    assert det is not None and det.phrases == ["Hey Jarvis"]
    det.close()
    assert loop_config(s).follow_up_s == 5.0
