"""Silero VAD v6 as the VAD's frame classifier: settings, streaming state, config kind (small real model, no speech)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from genx.local.vad import VadConfigError, VadSettings, VadTransformer
from genx.modelloader import ModelConfig

FRAME = 512


@pytest.fixture(scope="module")
def session() -> Any:
    pytest.importorskip("onnxruntime", reason="pip install onnxruntime")
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    from genx.local.silero_vad import silero_model

    return silero_model().get()


def test_the_faster_whisper_asset_takes_the_inputs_this_classifier_feeds(session: Any) -> None:
    # pinned against faster-whisper 1.2.1's assets/silero_vad_v6.onnx
    inputs = {i.name: i.shape for i in session.get_inputs()}
    assert inputs == {"input": ["seq_len", 576], "h": [1, 1, 128], "c": [1, 1, 128]}
    assert [o.name for o in session.get_outputs()] == ["speech_probs", "hn", "cn"]


def test_streaming_frame_by_frame_gives_faster_whispers_own_batch_probabilities(session: Any) -> None:
    from faster_whisper.vad import SileroVADModel

    from genx.local.silero_vad import DEFAULT_SILERO, SileroClassifier

    rng = np.random.default_rng(7)
    t = np.arange(40 * FRAME) / 16000
    voiced = (0.3 * np.sin(2 * np.pi * 180 * t) * (np.sin(2 * np.pi * 3 * t) > 0)).astype(np.float32)
    audio = np.clip(voiced + 0.01 * rng.standard_normal(t.size).astype(np.float32), -1, 1)
    pcm = (audio * 32768).clip(-32768, 32767).astype("<i2")
    reference = SileroVADModel(str(DEFAULT_SILERO.path()))(pcm.astype(np.float32) / 32768.0).reshape(-1)
    clf = SileroClassifier(session)
    streamed = [clf.speech_probability(pcm[i : i + FRAME].tobytes()) for i in range(0, pcm.size, FRAME)]
    # faster-whisper's batch call zeroes the last 64 samples of the last frame (its context slice is a view), so
    # its last probability is of slightly different audio; every other frame must agree
    np.testing.assert_allclose(streamed[:-1], reference[:-1], atol=1e-4)
    assert max(streamed) > 0.2 and streamed != sorted(streamed)  # not a constant: the state moved with the audio


class _CountingSession:
    def __init__(self, p: float) -> None:
        self.p = p
        self.runs = 0

    def run(self, outputs: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:  # type: ignore[type-arg]
        assert feeds["input"].shape == (1, 576)
        self.runs += 1
        return [np.array([self.p], dtype=np.float32), feeds["h"] + 1, feeds["c"]]


def test_the_energy_floor_silences_a_frame_after_the_model_saw_it_so_the_state_stays_continuous() -> None:
    from genx.local.silero_vad import SileroClassifier

    s = _CountingSession(0.9)
    clf = SileroClassifier(s, aggressiveness=2, min_energy_dbfs=-40.0)
    quiet = (np.full(FRAME, 30, dtype="<i2")).tobytes()  # about -60 dBFS
    loud = (np.full(FRAME, 8000, dtype="<i2")).tobytes()
    assert clf.is_speech(quiet) is False
    assert clf.is_speech(loud) is True
    assert s.runs == 2 and float(clf._h.mean()) == 2.0  # both frames advanced the recurrent state


def test_aggressiveness_raises_the_probability_a_frame_needs() -> None:
    from genx.local.silero_vad import THRESHOLDS, SileroClassifier

    clf = SileroClassifier(_CountingSession(0.55), aggressiveness=2)
    frame = (np.full(FRAME, 8000, dtype="<i2")).tobytes()
    assert clf.is_speech(frame)
    clf.set_aggressiveness(3)
    assert not clf.is_speech(frame)
    assert [THRESHOLDS[k] for k in range(4)] == sorted(THRESHOLDS.values())
    with pytest.raises(ValueError, match="512 samples"):
        clf.speech_probability(frame[:640])


def test_each_classifier_keeps_its_frame_sizes() -> None:
    assert VadSettings(classifier="silero", frame_ms=32).validate().frame_bytes == 1024
    with pytest.raises(VadConfigError, match="silero classifier takes 32 ms frames"):
        VadSettings(classifier="silero", frame_ms=20).validate()
    with pytest.raises(VadConfigError, match="webrtc classifier takes 10 or 20 or 30 ms frames"):
        VadSettings(frame_ms=32).validate()
    with pytest.raises(VadConfigError, match="classifier"):
        VadSettings(classifier="energy").validate()  # type: ignore[arg-type]


async def test_kind_silero_builds_a_vad_with_32_ms_frames_that_keeps_its_classifier(session: Any) -> None:
    from genx.generators.mux import GeneratorMux
    from genx.modelloader import load_into
    from genx.transformers.mux import TransformerMux

    cfg = ModelConfig.model_validate({"vad": [{"name": "vad/silero", "kind": "silero", "aggressiveness": 3}]})
    trs = TransformerMux()
    assert load_into(cfg, GeneratorMux(), trs).transformers == ["vad/silero"]
    vad = trs.resolve("vad/silero")
    assert isinstance(vad, VadTransformer)
    assert (vad.settings.classifier, vad.settings.frame_ms, vad.settings.aggressiveness) == ("silero", 32, 3)
    await vad.warm()
    vad.tune(aggressiveness=1, min_energy_dbfs=-50.0)  # the echo fallback's knobs work for Silero too
    with pytest.raises(VadConfigError, match="chosen when the VAD is built"):
        vad.tune(classifier="webrtc")
    ptt = VadTransformer(VadSettings(**{**_fields(vad.settings), "mode": "external"}))
    assert ptt.settings.classifier == "silero"  # what the app does for push-to-talk keeps the classifier


def test_kind_silero_rejects_a_frame_size_it_cannot_take(session: Any) -> None:
    from genx.local.silero_vad import from_config

    with pytest.raises(VadConfigError, match="32 ms"):
        from_config({"frame_ms": 30})


def _fields(s: VadSettings) -> dict[str, Any]:
    return {f: getattr(s, f) for f in s.__dataclass_fields__}
