"""OpenWakeWordDetector's bad input and its shape: unknown models, missing or corrupt files, settings out of
range, no package; one TensorFlow Lite runtime and one thread per interpreter.

A corrupt ``.tflite`` must come back as a typed error: the native interpreter does not check a model it failed
to read, so a crash of the test process is what a missing check looks like.
"""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pytest

from genx.local import openwakeword as oww
from genx.local.models import MissingPackageError, ModelLoadError, ModelNotFoundError, resource_path
from genx.local.openwakeword import OpenWakeWordDetector, phrase_of
from genx.local.wakeword import WakeWordConfigError, WakeWordLoadError

pytest.importorskip("pyopen_wakeword", reason="pip install pyopen-wakeword (./dev setup installs it)")


def copy_model(tmp_path: Path, name: str = "hey_jarvis", as_name: str | None = None) -> Path:
    dest = tmp_path / f"{as_name or name}.tflite"
    shutil.copyfile(resource_path("pyopen_wakeword", f"models/{name}.tflite"), dest)
    return dest


def test_an_unknown_model_name_is_a_config_error_listing_the_builtin_ones() -> None:
    with pytest.raises(WakeWordConfigError) as e:
        OpenWakeWordDetector(["hey_computer"])
    assert "hey_computer" in str(e.value) and "hey_rhasspy" in str(e.value)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -0.2, 1.5])
def test_a_threshold_outside_zero_to_one_is_a_config_error(threshold: float) -> None:
    with pytest.raises(WakeWordConfigError, match="between 0 and 1"):
        OpenWakeWordDetector(threshold=threshold)


def test_no_models_and_a_negative_refractory_time_are_config_errors() -> None:
    with pytest.raises(WakeWordConfigError):
        OpenWakeWordDetector([])
    with pytest.raises(WakeWordConfigError):
        OpenWakeWordDetector(refractory_s=-1.0)


def test_a_missing_model_file_is_model_not_found_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError) as e:
        OpenWakeWordDetector([tmp_path / "mine.tflite"])
    assert "mine.tflite" in str(e.value)


@pytest.mark.parametrize("content", [b"", b"\x00" * 64, b"garbage that is not a model at all" * 10])
def test_a_corrupt_model_file_is_a_load_error_not_a_crash(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "mine.tflite").write_bytes(content)
    with pytest.raises(WakeWordLoadError) as e:
        OpenWakeWordDetector([tmp_path / "mine.tflite"])
    assert "mine.tflite" in str(e.value) and isinstance(e.value, ModelLoadError)


def test_a_truncated_model_file_is_a_load_error_not_a_crash(tmp_path: Path) -> None:
    model = copy_model(tmp_path)
    model.write_bytes(model.read_bytes()[:4000])
    with pytest.raises(WakeWordLoadError):
        OpenWakeWordDetector([model])


def test_a_custom_model_file_loads_and_takes_its_phrase_from_the_file_name(tmp_path: Path) -> None:
    with OpenWakeWordDetector([copy_model(tmp_path, as_name="hey_computer_v0.1")]) as det:
        assert det.phrases == ["Hey Computer"]
        assert det.process(b"\x00\x00" * 1600) == []
        assert det.stream_s == pytest.approx(0.1)


def test_phrases_of_builtin_models_are_their_wake_words() -> None:
    assert [phrase_of(m) for m in ("hey_jarvis", "okay_nabu", "hey_rhasspy")] == ["Hey Jarvis", "Okay Nabu", "Hey Rhasspy"]
    assert phrase_of("/x/alexa-house.tflite") == "Alexa House"
    assert phrase_of("/x/hey_victor_v2.tflite") == "Hey Victor"  # a version tag is no word; a word with a v is


def test_without_the_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyopen_wakeword" else real(name, *a))
    with pytest.raises(MissingPackageError, match="pip install pyopen-wakeword"):
        OpenWakeWordDetector()


def test_it_uses_the_tflite_runtime_of_pymicro_wakeword_when_that_is_installed() -> None:
    pytest.importorskip("pymicro_wakeword")
    assert oww._library() == resource_path("pymicro_wakeword", "lib/libtensorflowlite_c.so")


def test_the_front_end_interpreters_are_rebuilt_with_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real = oww._one_thread

    def spy(features: object) -> None:
        lib = features.lib  # type: ignore[attr-defined]
        set_threads = lib.TfLiteInterpreterOptionsSetNumThreads
        set_threads.argtypes = [ctypes.c_void_p, ctypes.c_int32]  # the code under test sets them on the spy instead

        def record(opts: object, n: int) -> None:
            asked.append(n)
            set_threads(opts, n)

        monkeypatch.setattr(lib, "TfLiteInterpreterOptionsSetNumThreads", record)
        real(features)

    monkeypatch.setattr(oww, "_one_thread", spy)
    with OpenWakeWordDetector() as det:
        assert det.process(b"\x00\x00" * 16000) == []  # the rebuilt interpreters run
    assert asked == [1]
