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


def wake_settings(engine: str) -> Settings:
    s = Settings()
    s.loop.wake_word = True
    s.loop.wake_word_engine = engine  # type: ignore[assignment]
    return s


def test_the_default_engine_is_microwakeword_alone() -> None:
    pytest.importorskip("pymicro_wakeword")
    assert Settings().loop.wake_word_engine == "micro"
    det, warning = build_wake_detector(wake_settings("micro").loop)
    from genx.local.wakeword import WakeWordDetector

    assert warning == "" and isinstance(det, WakeWordDetector)
    det.close()


def test_the_openwakeword_engine_runs_on_a_thread_of_its_own_confirmed_by_whisper_at_its_model_s_threshold() -> None:
    pytest.importorskip("pyopen_wakeword")
    from genx.local.openwakeword import OpenWakeWordDetector
    from genx.local.wake_confirm import ConfirmedDetector
    from genx.local.wake_ensemble import BackgroundDetector

    det, warning = build_wake_detector(wake_settings("openwakeword").loop)
    assert warning == "" and isinstance(det, BackgroundDetector)
    assert det.phrases == ["Hey Jarvis"]
    assert isinstance(det.inner, ConfirmedDetector) and isinstance(det.inner.inner, OpenWakeWordDetector)
    assert det.inner.inner.thresholds == [0.5]  # openWakeWord's own default; unconfirmed it would be 0.95
    det.close()


def test_with_the_check_off_openwakeword_keeps_its_stricter_measured_threshold() -> None:
    pytest.importorskip("pyopen_wakeword")
    from genx.local.openwakeword import OpenWakeWordDetector

    s = wake_settings("openwakeword")
    s.loop.wake_word_confirm = False
    det, warning = build_wake_detector(s.loop)
    assert warning == "" and isinstance(det.inner, OpenWakeWordDetector)
    assert det.inner.thresholds == [0.95]
    det.close()


def test_a_whisper_model_that_cannot_load_leaves_openwakeword_unconfirmed_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyopen_wakeword")
    from genx.local import whisper
    from genx.local.models import ModelNotFoundError
    from genx.local.openwakeword import OpenWakeWordDetector

    def missing(*_a: object, **_k: object) -> None:
        raise ModelNotFoundError("Whisper model", path="/nowhere/tiny.en")

    monkeypatch.setattr(whisper.WhisperDecoder, "__init__", missing)
    det, warning = build_wake_detector(wake_settings("openwakeword").loop)
    assert isinstance(det.inner, OpenWakeWordDetector) and det.inner.thresholds == [0.95]
    assert warning.startswith("openWakeWord's detections are not confirmed by Whisper") and "/nowhere/tiny.en" in warning
    det.close()


def test_both_engines_listen_for_one_phrase_microwakeword_stricter_beside_a_confirmed_openwakeword() -> None:
    pytest.importorskip("pyopen_wakeword")
    pytest.importorskip("pymicro_wakeword")
    from genx.local.wake_ensemble import AnyOfDetector

    det, warning = build_wake_detector(wake_settings("both").loop)
    assert warning == "" and isinstance(det, AnyOfDetector)
    assert det.phrases == ["Hey Jarvis"]
    micro, oww = det.detectors
    assert micro.thresholds == [0.8]  # alone it listens at 0.6
    assert oww.inner.inner.thresholds == [0.5]
    assert det.process(b"\x00\x00" * 320) == []
    det.close()


def test_both_engines_with_the_check_off_keep_each_engine_s_own_measured_threshold() -> None:
    pytest.importorskip("pyopen_wakeword")
    pytest.importorskip("pymicro_wakeword")
    s = wake_settings("both")
    s.loop.wake_word_confirm = False
    det, warning = build_wake_detector(s.loop)
    micro, oww = det.detectors
    assert warning == "" and (micro.thresholds, oww.inner.thresholds) == ([0.6], [0.95])
    det.close()


def test_a_threshold_set_for_both_engines_is_microwakeword_s() -> None:
    pytest.importorskip("pyopen_wakeword")
    pytest.importorskip("pymicro_wakeword")
    s = wake_settings("both")
    s.loop.wake_word_threshold = 0.7
    det, _ = build_wake_detector(s.loop)
    micro, oww = det.detectors
    assert (micro.thresholds, oww.inner.inner.thresholds) == ([0.7], [0.5])
    det.close()


def test_both_engines_without_openwakeword_installed_leave_microwakeword_listening_and_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pymicro_wakeword")
    import importlib.util

    from genx.local.wakeword import WakeWordDetector

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyopen_wakeword" else real(name, *a))
    det, warning = build_wake_detector(wake_settings("both").loop)
    assert isinstance(det, WakeWordDetector)
    assert warning.startswith("wake word engine openWakeWord off, microWakeWord alone listens")
    assert "pip install pyopen-wakeword" in warning
    det.close()


def test_the_spotter_engine_is_microwakeword_stricter_beside_the_phrase_spotter_confirmed_by_whisper_on_its_own_thread() -> None:
    pytest.importorskip("pymicro_wakeword")
    from genx.local.wake_confirm import ConfirmedDetector
    from genx.local.wake_ensemble import AnyOfDetector, BackgroundDetector
    from genx.local.wake_spotter import PhraseSpotter

    det, warning = build_wake_detector(wake_settings("spotter").loop)
    assert warning == "" and isinstance(det, AnyOfDetector)
    assert det.phrases == ["Hey Jarvis"]
    micro, spotter = det.detectors
    assert micro.thresholds == [0.8]  # alone it listens at 0.6
    assert isinstance(spotter, BackgroundDetector) and isinstance(spotter.inner, ConfirmedDetector)
    assert isinstance(spotter.inner.inner, PhraseSpotter) and spotter.inner.inner.phrases == ["Hey Jarvis"]
    assert det.process(b"\x00\x00" * 320) == []
    det.close()


def test_the_spotter_engine_without_whisper_leaves_microwakeword_alone_at_its_own_threshold_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("pymicro_wakeword")
    import genx.local.whisper
    from genx.errors import GenxError
    from genx.local.wakeword import WakeWordDetector

    def no_whisper(*a: object, **k: object) -> None:
        raise GenxError("faster-whisper is not installed")

    monkeypatch.setattr(genx.local.whisper, "WhisperDecoder", no_whisper)
    det, warning = build_wake_detector(wake_settings("spotter").loop)
    assert isinstance(det, WakeWordDetector) and det.thresholds == [0.6]
    assert warning.startswith("the wake phrase spotter is off, microWakeWord alone listens") and "faster-whisper" in warning
    det.close()


def test_an_unknown_engine_is_a_settings_error_naming_the_choices() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as e:
        Settings.model_validate({"loop": {"wake_word_engine": "porcupine"}})
    assert "micro" in str(e.value) and "openwakeword" in str(e.value)
