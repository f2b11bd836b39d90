"""What the local speech models read: 16 kHz mono ``audio/L16``, and loudness of a clip (its quietest and loudest moments).

Conversion from other rates / channel counts uses the shared streaming
:class:`~genx.transformers.audiostream.pcm.PCMConverter`; a MIME it cannot read
(not ``audio/L16``, no ``rate``) raises its typed
:class:`~genx.transformers.audiostream.pcm.AudioFormatError`.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from genx.transformers.audiostream.pcm import AudioFormatError, PCMConverter, l16_mime

TARGET_RATE = 16000
L16_16K_MONO = l16_mime(TARGET_RATE, 1)


def is_audio(mime: str) -> bool:
    return mime.startswith("audio/")


def converter_to_16k_mono(mime: str) -> PCMConverter:
    """A streaming converter from ``mime`` (any ``audio/L16``) to :data:`L16_16K_MONO`."""
    return PCMConverter(mime, L16_16K_MONO)


def dbfs(pcm: bytes | np.ndarray) -> float:  # type: ignore[type-arg]
    """RMS level of int16 PCM in dBFS (-120 for silence or no samples)."""
    x = np.frombuffer(pcm, dtype="<i2") if isinstance(pcm, bytes | bytearray) else pcm
    if x.size == 0:
        return -120.0
    f = x.astype(np.float32)
    rms = float(np.sqrt(np.mean(f * f)))
    return -120.0 if rms < 1e-3 else 20.0 * math.log10(rms / 32768.0)


def loudest_frame_dbfs(buf: bytearray, start: int, frame: int = 960) -> float:
    """Level of the loudest 30 ms frame of ``buf[start:]`` (int16 bytes)."""
    start -= start % 2
    x = np.frombuffer(bytes(buf[start : len(buf) - (len(buf) - start) % 2]), dtype="<i2")
    n = x.size // (frame // 2) * (frame // 2)
    if n == 0:
        return dbfs(x)
    f = x[:n].astype(np.float32).reshape(-1, frame // 2)
    peak = float(np.sqrt(np.max(np.mean(f * f, axis=1))))
    return -120.0 if peak < 1e-3 else 20.0 * math.log10(peak / 32768.0)


def quietest_cut(samples: npt.NDArray[np.int16], search: int, hop: int = 800) -> int:
    """Sample index, within the last ``search`` samples, at the centre of the quietest 50 ms."""
    n = samples.size
    lo = max(hop, n - search)
    best, best_e = n, math.inf
    for start in range(lo, n - hop + 1, hop // 2):
        w = samples[start : start + hop].astype(np.float32)
        e = float(np.mean(w * w))
        if e < best_e:
            best, best_e = start + hop // 2, e
    return best


def whole_samples(carry: bytes, pcm: bytes) -> tuple[bytes, bytes]:
    """``carry + pcm`` cut to whole int16 samples, and the odd byte left for the next chunk (or ``b""``)."""
    data = carry + pcm
    cut = len(data) - len(data) % 2
    return data[:cut], data[cut:]


__all__ = [
    "L16_16K_MONO",
    "TARGET_RATE",
    "AudioFormatError",
    "converter_to_16k_mono",
    "dbfs",
    "is_audio",
    "loudest_frame_dbfs",
    "quietest_cut",
    "whole_samples",
]
