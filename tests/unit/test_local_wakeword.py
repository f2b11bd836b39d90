"""WakeWordDetector's bad input: unknown models, missing or corrupt files, settings out of range, no runtime.

The native TensorFlow Lite interpreter does not check a model it failed to read (it dereferences it): every
corrupt file here must come back as a typed error, not a crash of the test process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from genx.local import wakeword as ww
from genx.local.models import MissingPackageError, ModelLoadError, ModelNotFoundError, resource_path
from genx.local.wakeword import WakeWordConfigError, WakeWordDetector, WakeWordLoadError

pytest.importorskip("pymicro_wakeword", reason="pip install pymicro-wakeword")


def copy_model(tmp_path: Path, name: str = "hey_jarvis") -> Path:
    """A built-in model's manifest and .tflite copied to ``tmp_path``; the manifest's path."""
    for ext in ("json", "tflite"):
        shutil.copyfile(resource_path("pymicro_wakeword", f"models/{name}.{ext}"), tmp_path / f"{name}.{ext}")
    return tmp_path / f"{name}.json"


def test_an_unknown_model_name_is_a_config_error_listing_the_builtin_ones() -> None:
    with pytest.raises(WakeWordConfigError) as e:
        WakeWordDetector(["hey_computer"])
    assert "hey_computer" in str(e.value) and "hey_jarvis" in str(e.value) and "okay_nabu" in str(e.value)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -0.5, 2.0])
def test_a_threshold_outside_zero_to_one_is_a_config_error(threshold: float) -> None:
    with pytest.raises(WakeWordConfigError, match="threshold"):
        WakeWordDetector(threshold=threshold)


def test_no_models_and_a_negative_refractory_time_are_config_errors() -> None:
    with pytest.raises(WakeWordConfigError):
        WakeWordDetector([])
    with pytest.raises(WakeWordConfigError, match="refractory"):
        WakeWordDetector(refractory_s=-1)


def test_a_missing_manifest_is_model_not_found_naming_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(ModelNotFoundError) as e:
        WakeWordDetector([missing])
    assert str(missing) in str(e.value)


def test_a_manifest_whose_tflite_is_missing_is_model_not_found_naming_the_tflite(tmp_path: Path) -> None:
    manifest = copy_model(tmp_path)
    (tmp_path / "hey_jarvis.tflite").unlink()
    with pytest.raises(ModelNotFoundError) as e:
        WakeWordDetector([manifest])
    assert "hey_jarvis.tflite" in str(e.value)


@pytest.mark.parametrize("text", ["{not json", json.dumps({"model": "hey_jarvis.tflite"}), json.dumps([1, 2])])
def test_a_corrupt_or_incomplete_manifest_is_a_load_error(tmp_path: Path, text: str) -> None:
    manifest = copy_model(tmp_path)
    manifest.write_text(text, encoding="utf-8")
    with pytest.raises(WakeWordLoadError) as e:
        WakeWordDetector([manifest])
    assert isinstance(e.value, ModelLoadError) and str(manifest) in str(e.value)


@pytest.mark.parametrize(
    "content",
    [
        b"",  # empty
        b"\x00" * 64,  # no TensorFlow Lite identifier
        b"\x1c\x00\x00\x00TFL3" + b"\xff" * 200,  # the identifier, then garbage
    ],
    ids=["empty", "not-tflite", "garbage-after-header"],
)
def test_a_corrupt_tflite_is_a_load_error_not_a_crash(tmp_path: Path, content: bytes) -> None:
    manifest = copy_model(tmp_path)
    (tmp_path / "hey_jarvis.tflite").write_bytes(content)
    with pytest.raises(WakeWordLoadError) as e:
        WakeWordDetector([manifest])
    assert "hey_jarvis.tflite" in str(e.value)


def test_a_truncated_tflite_is_a_load_error_not_a_crash(tmp_path: Path) -> None:
    manifest = copy_model(tmp_path)
    model = tmp_path / "hey_jarvis.tflite"
    model.write_bytes(model.read_bytes()[:4000])
    with pytest.raises(WakeWordLoadError):
        WakeWordDetector([manifest])


def test_a_custom_manifest_path_loads_like_the_builtin_model(tmp_path: Path) -> None:
    with WakeWordDetector([copy_model(tmp_path)]) as det:
        assert det.phrases == ["Hey Jarvis"]
        assert det.process(b"\x00\x00" * 1600) == []
        assert det.stream_s == pytest.approx(0.1)


def test_without_the_runtime_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pymicro_wakeword" else real(name, *a))
    with pytest.raises(MissingPackageError, match="pip install pymicro-wakeword"):
        WakeWordDetector()


def test_a_tflite_runtime_that_cannot_be_loaded_is_a_load_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    broken = tmp_path / "libtensorflowlite_c.so"
    broken.write_bytes(b"not a shared library")
    monkeypatch.setattr(ww, "_tflite_library", lambda: broken)
    with pytest.raises(WakeWordLoadError, match="TensorFlow Lite runtime"):
        WakeWordDetector()


class ScriptedModel:
    """Stands in for the TFLite model: like it, answers 0.0 between inferences (every ``stride``-th frame)."""

    stride = 3

    def __init__(self, probs: list[float]) -> None:
        self.probs = probs
        self.calls = 0

    def process_streaming_prob(self, features: object) -> float:
        self.calls += 1
        if self.calls % self.stride:
            return 0.0
        i = self.calls // self.stride - 1
        return self.probs[i] if i < len(self.probs) else 0.0

    def close(self) -> None:
        pass


def test_a_probability_that_stays_high_for_seconds_is_one_detection_and_a_later_rise_is_another() -> None:
    # one inference per 30 ms: 2 s high, 0.3 s low, 0.6 s high again
    probs = [0.0] * 10 + [0.99] * 66 + [0.1] * 10 + [0.99] * 20
    with WakeWordDetector(["hey_jarvis"], refractory_s=1.0) as det:
        det._models[0].mww = ScriptedModel(probs)  # type: ignore[assignment]
        hits = [h for _ in range(400) for h in det.process(b"\x00\x00" * 160)]
    assert [round(h.at_s, 1) for h in hits] == [0.3, 2.6], hits
