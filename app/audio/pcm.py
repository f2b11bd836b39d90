"""PCM helpers for the audio edge: L16 MIME types, levels, channel mixing and streaming resampling.

Samples are little-endian int16 (the genx ``audio/L16`` convention). Functions here run on
the asyncio loop thread, never inside PortAudio callbacks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import soxr

from app.audio.errors import AudioFormatError
from genx.mime import mime_essence, mime_params, normalize_mime

SILENCE_DBFS = -100.0
L16_ESSENCE = "audio/l16"


@dataclass(frozen=True, slots=True)
class PcmFormat:
    rate: int
    channels: int


@lru_cache(maxsize=64)
def l16_mime(rate: int, channels: int = 1) -> str:
    return normalize_mime(f"audio/L16; rate={rate}; channels={channels}")


@lru_cache(maxsize=256)
def parse_l16(mime: str) -> PcmFormat:
    """Rate and channels of an ``audio/L16`` MIME; :class:`AudioFormatError` for anything else."""
    if mime_essence(mime) != L16_ESSENCE:
        raise AudioFormatError(mime, "not 16-bit linear PCM")
    params = mime_params(mime)
    try:
        rate = int(params.get("rate", ""))
    except ValueError:
        raise AudioFormatError(mime, "missing or invalid rate parameter") from None
    try:
        channels = int(params.get("channels", "1"))
    except ValueError:
        raise AudioFormatError(mime, "invalid channels parameter") from None
    if not 1000 <= rate <= 384000 or not 1 <= channels <= 32:
        raise AudioFormatError(mime, f"rate {rate} Hz / {channels} channels out of range")
    return PcmFormat(rate, channels)


def rms_dbfs(samples: bytes | np.ndarray) -> float:
    """RMS level in dBFS (full scale int16 = 0 dB), floored at :data:`SILENCE_DBFS`."""
    x = np.frombuffer(samples, dtype="<i2") if isinstance(samples, bytes | bytearray | memoryview) else samples
    if x.size == 0:
        return SILENCE_DBFS
    ms = float(np.mean(np.square(x, dtype=np.float64)))
    if ms <= 0.0:
        return SILENCE_DBFS
    return max(SILENCE_DBFS, 10.0 * math.log10(ms / (32768.0 * 32768.0)))


def downmix(data: bytes, channels: int) -> np.ndarray:
    """Interleaved int16 ``channels`` → mono int16 (mean of the channels)."""
    x = np.frombuffer(data, dtype="<i2")
    if channels == 1:
        return x
    frames = x.size // channels
    mixed: np.ndarray = x[: frames * channels].reshape(frames, channels).mean(axis=1).astype(np.int16)
    return mixed


def upmix(mono: np.ndarray, channels: int) -> np.ndarray:
    """Mono int16 → interleaved int16 with the signal on every channel."""
    if channels == 1:
        return mono
    return np.repeat(mono, channels)


class Resampler:
    """Streaming int16 mono resampler (soxr); identity when the rates are equal.

    ``process`` may return fewer samples than a plain ratio suggests (filter delay);
    ``flush`` returns the tail at the end of a stream and resets for the next one.
    Quality "LQ" is the default: a few ms of filter delay and smooth output sizes
    ("HQ" delays ~30 ms and emits in bursts, too late for a voice loop).
    """

    __slots__ = ("_rs", "in_rate", "out_rate")

    def __init__(self, in_rate: int, out_rate: int, quality: str = "LQ") -> None:
        self.in_rate = in_rate
        self.out_rate = out_rate
        self._rs = None if in_rate == out_rate else soxr.ResampleStream(in_rate, out_rate, 1, dtype="int16", quality=quality)

    @property
    def identity(self) -> bool:
        return self._rs is None

    def process(self, x: np.ndarray) -> np.ndarray:
        if self._rs is None or x.size == 0:
            return x
        return np.asarray(self._rs.resample_chunk(x, last=False), dtype=np.int16)

    def flush(self) -> np.ndarray:
        if self._rs is None:
            return np.zeros(0, dtype=np.int16)
        tail = np.asarray(self._rs.resample_chunk(np.zeros(0, dtype=np.int16), last=True), dtype=np.int16)
        self._rs.clear()
        return tail
