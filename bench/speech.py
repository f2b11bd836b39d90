"""Test speech and test noise for the detector benches (and the tests that share their material).

Speech: the Piper joe voice (:mod:`genx.local.piper_tts`, 22.05 kHz resampled) and
espeak-ng in several voices and speeds (``espeak-ng -w``), all as 16 kHz mono
int16 PCM bytes, with the engines' leading / trailing silence trimmed
(:func:`trim_silence`), so a caller decides how much silence follows.

Noise (16 kHz int16, seeded, at a given RMS level in dBFS): white noise, a fan
(hum at 50 Hz and harmonics with a broadband whoosh), a keyboard (clicks at
random intervals) and music (chords of harmonic tones with a beat); and a cough
burst (:func:`cough`, for the backchannel bench).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np

from genx.transformers.audiostream.pcm import resample

RATE = 16000

#: espeak-ng voices and speeds (words per minute) the benches rotate through.
ESPEAK_VOICES: tuple[tuple[str, int], ...] = (
    ("en-us", 160),
    ("en-gb", 175),
    ("en-us+f3", 145),
    ("en-gb-scotland", 165),
    ("en-us+m7", 185),
    ("en-gb-x-rp", 150),
)


def trim_silence(pcm: bytes, threshold_dbfs: float = -45.0, frame_ms: int = 10) -> bytes:
    """``pcm`` without the leading and trailing frames quieter than ``threshold_dbfs``."""
    x = np.frombuffer(pcm, dtype="<i2")
    n = RATE * frame_ms // 1000
    frames = x[: x.size // n * n].reshape(-1, n).astype(np.float64)
    rms = np.sqrt((frames**2).mean(axis=1)) / 32768.0
    loud = np.flatnonzero(rms > 10 ** (threshold_dbfs / 20))
    if loud.size == 0:
        return b""
    return x[loud[0] * n : (loud[-1] + 1) * n].tobytes()


def silence(ms: int) -> bytes:
    return b"\x00\x00" * (RATE * ms // 1000)


def piper_say(length_scale: float | None = None) -> Callable[[str], bytes]:
    """A text → speech function with the packaged Piper voice (loads it now); ``length_scale`` > 1 speaks slower."""
    from piper.config import SynthesisConfig

    from genx.local.piper_tts import PiperSynthesizer

    voice = PiperSynthesizer().voice.get()
    config = SynthesisConfig(length_scale=length_scale)

    def say(text: str) -> bytes:
        pcm = b"".join(c.audio_int16_bytes for c in voice.synthesize(text, syn_config=config))
        return trim_silence(resample(pcm, 22050, RATE))

    return say


def espeak_say(text: str, voice: str = "en-us", speed: int = 160) -> bytes:
    """``text`` spoken by espeak-ng (``voice``, ``speed`` wpm), 16 kHz, trimmed."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise FileNotFoundError("espeak-ng is not installed (apt-get install espeak-ng)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "say.wav"
        subprocess.run([exe, "-v", voice, "-s", str(speed), "-w", str(out), text], check=True, capture_output=True, timeout=30)
        with wave.open(str(out), "rb") as w:
            rate = w.getframerate()
            pcm = w.readframes(w.getnframes())
    return trim_silence(resample(pcm, rate, RATE))


# -- noise ------------------------------------------------------------------------


def _at_level(x: np.ndarray, dbfs: float) -> bytes:  # type: ignore[type-arg]
    rms = float(np.sqrt(np.mean(x * x))) or 1.0
    y = x * (10 ** (dbfs / 20) / rms) * 32768.0
    return np.clip(y, -32768, 32767).astype("<i2").tobytes()


def white_noise(ms: int, dbfs: float = -30.0, seed: int = 1) -> bytes:
    return _at_level(np.random.default_rng(seed).standard_normal(RATE * ms // 1000), dbfs)


def fan_noise(ms: int, dbfs: float = -30.0, seed: int = 2) -> bytes:
    """A fan: 50 Hz hum with harmonics, slightly wobbling, over low-passed broadband noise."""
    n = RATE * ms // 1000
    t = np.arange(n) / RATE
    rng = np.random.default_rng(seed)
    wobble = 1.0 + 0.01 * np.sin(2 * np.pi * 0.3 * t)
    hum = sum(np.sin(2 * np.pi * 50 * k * t * wobble) / k for k in range(1, 7))
    whoosh = np.convolve(rng.standard_normal(n), np.ones(16) / 16, mode="same")
    return _at_level(hum + 3.0 * whoosh, dbfs)


def keyboard_noise(ms: int, dbfs: float = -30.0, seed: int = 3) -> bytes:
    """Typing: 5-15 ms decaying clicks every 80-250 ms."""
    n = RATE * ms // 1000
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    pos = 0
    while pos < n:
        length = int(RATE * rng.uniform(0.005, 0.015))
        click = rng.standard_normal(length) * np.exp(-np.arange(length) / (length / 4))
        x[pos : pos + length] += click[: n - pos]
        pos += int(RATE * rng.uniform(0.08, 0.25))
    return _at_level(x + 0.01 * rng.standard_normal(n), dbfs)


def music_noise(ms: int, dbfs: float = -30.0, seed: int = 4) -> bytes:
    """Music-like: a chord of harmonic tones changing every 500 ms, with a beat."""
    n = RATE * ms // 1000
    t = np.arange(n) / RATE
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    step = RATE // 2
    for start in range(0, n, step):
        seg = slice(start, min(n, start + step))
        root = 110.0 * 2 ** (rng.integers(0, 12) / 12)
        for ratio in (1.0, 1.26, 1.5):
            for k in range(1, 5):
                x[seg] += np.sin(2 * np.pi * root * ratio * k * t[seg]) / k
    beat = 1.0 + 0.5 * (np.sin(2 * np.pi * 2 * t) > 0.9)
    return _at_level(x * beat, dbfs)


def cough(dbfs: float = -20.0, seed: int = 5) -> bytes:
    """A cough burst: two or three 120-250 ms bursts of shaped noise (sharp attack, fast decay), 16 kHz int16."""
    rng = np.random.default_rng(seed)
    parts: list[np.ndarray] = []  # type: ignore[type-arg]
    for _ in range(int(rng.integers(2, 4))):
        n = int(RATE * rng.uniform(0.12, 0.25))
        t = np.arange(n) / RATE
        env = np.minimum(1.0, t / 0.008) * np.exp(-t / rng.uniform(0.05, 0.09))
        body = np.convolve(rng.standard_normal(n), np.ones(4) / 4, mode="same")  # a throaty, duller hiss
        voiced = 0.3 * np.sin(2 * np.pi * rng.uniform(120, 220) * t)
        parts += [(body + voiced) * env, np.zeros(int(RATE * rng.uniform(0.06, 0.14)))]
    return trim_silence(_at_level(np.concatenate(parts[:-1]), dbfs))


NOISES: dict[str, Callable[[int, float], bytes]] = {
    "white": white_noise,
    "fan": fan_noise,
    "keyboard": keyboard_noise,
    "music": music_noise,
}


def mix(speech: bytes, noise: bytes) -> bytes:
    """``speech`` plus ``noise`` (repeated or cut to its length), clipped to int16."""
    s = np.frombuffer(speech, dtype="<i2").astype(np.int32)
    nz = np.frombuffer(noise, dtype="<i2").astype(np.int32)
    if nz.size == 0:
        return speech
    nz = np.resize(nz, s.size)
    return np.clip(s + nz, -32768, 32767).astype("<i2").tobytes()


__all__ = [
    "ESPEAK_VOICES",
    "NOISES",
    "RATE",
    "cough",
    "espeak_say",
    "fan_noise",
    "keyboard_noise",
    "mix",
    "music_noise",
    "piper_say",
    "silence",
    "trim_silence",
    "white_noise",
]
