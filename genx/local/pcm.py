"""What the local speech models read: 16 kHz mono ``audio/L16``, and loudness of a clip.

Conversion from other rates / channel counts uses the shared streaming
:class:`~genx.transformers.audiostream.pcm.PCMConverter`; a MIME it cannot read
(not ``audio/L16``, no ``rate``) raises its typed
:class:`~genx.transformers.audiostream.pcm.AudioFormatError`.
"""

from __future__ import annotations

import math

import numpy as np

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


__all__ = ["L16_16K_MONO", "TARGET_RATE", "AudioFormatError", "converter_to_16k_mono", "dbfs", "is_audio"]
