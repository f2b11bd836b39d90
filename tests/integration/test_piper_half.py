"""The default Piper voice with float16-stored weights (what the release bundle carries, genx.local.onnx_half).

The copy runs in float32 like the original (onnxruntime folds the casts at load), so with the voice's noise off the
two synthesize the same number of samples and their audio differs only by the weights' rounding: far below the
signal (measured 34-42 dB; the voice's own noise, on by default, changes every rendition far more than that), and
Whisper hears the same words in both.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.integration.conftest import SENTENCES, normalize

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

pytest.importorskip("onnx", reason="pip install onnx (the package extra)")
pytest.importorskip("piper", reason="pip install piper-tts")


def _synthesize(model: Path, texts: tuple[str, ...]) -> list[np.ndarray]:
    from piper.config import SynthesisConfig

    from genx.local.piper_tts import PiperOptions, PiperSynthesizer

    voice = PiperSynthesizer(PiperOptions(voice=str(model))).voice.get()
    quiet = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    return [np.concatenate([c.audio_int16_array for c in voice.synthesize(t, syn_config=quiet)]) for t in texts]


def test_the_float16_stored_voice_is_half_the_size_and_speaks_the_same_audio_within_its_rounding(tmp_path: Path) -> None:
    from genx.local.models import ModelNotFoundError
    from genx.local.onnx_half import halve_file
    from genx.local.piper_tts import voice_paths
    from genx.local.whisper import WhisperDecoder
    from tests.integration.conftest import resample

    try:
        model, config = voice_paths(None)
    except ModelNotFoundError as e:
        pytest.skip(str(e))
    half = tmp_path / model.name
    halve_file(model, half)
    shutil.copy2(config, tmp_path / config.name)
    assert half.stat().st_size < 0.55 * model.stat().st_size

    texts = SENTENCES[:4]
    original, copy = _synthesize(model, texts), _synthesize(half, texts)
    decoder = WhisperDecoder()
    for text, a, b in zip(texts, original, copy, strict=True):
        assert a.size == b.size, text
        x, y = a.astype(np.float64), b.astype(np.float64)
        snr_db = 10 * np.log10(np.sum(x**2) / max(np.sum((x - y) ** 2), 1.0))
        assert snr_db > 25, (text, snr_db)
        heard = [
            normalize(decoder.decode(np.frombuffer(resample(s.astype("<i2").tobytes(), 22050, 16000), dtype="<i2") / 32768, final=True))
            for s in (a, b)
        ]
        assert heard[0] == heard[1], (text, heard)
        assert heard[0], text  # the reference was heard at all
