"""``audio/L16`` helpers: format, framing, channel mixing, resampling and time ↔ byte maths.

PCM in genx is little-endian signed 16-bit (``audio/L16; rate=…; channels=…``,
interleaved). A *frame* here is one sample per channel (``2 * channels`` bytes);
every helper keeps chunks frame-aligned so byte counts convert exactly to time:
``bytes_to_ms(bytes pulled so far)`` is how much of a response was heard.

Streaming classes keep state across chunks and accept any chunk sizes:
:class:`PCMFramer` (fixed-duration chunks), :class:`PCMResampler` (``soxr``
streaming resampler) and :class:`PCMConverter` (channels + rate). Zero-length
chunks give ``b""``; an incomplete frame (an odd byte, a partial stereo frame)
is carried into the next chunk, and dropped at ``flush()`` (it is not audio).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import soxr

from genx.errors import GenxError
from genx.mime import mime_essence, mime_params, normalize_mime

L16 = "audio/l16"
SAMPLE_BYTES = 2


class AudioFormatError(GenxError, ValueError):
    """A MIME or PCM buffer that the PCM helpers cannot handle."""


@dataclass(frozen=True, slots=True)
class PCMFormat:
    rate: int
    channels: int = 1

    @property
    def frame_bytes(self) -> int:
        return SAMPLE_BYTES * self.channels

    @property
    def bytes_per_second(self) -> int:
        return self.rate * self.frame_bytes

    def mime(self) -> str:
        return l16_mime(self.rate, self.channels)


def l16_mime(rate: int, channels: int = 1) -> str:
    """``audio/l16; channels=1; rate=16000`` (normalised)."""
    return normalize_mime(f"audio/L16; rate={rate}; channels={channels}")


def is_l16(mime: str) -> bool:
    return mime_essence(mime) == L16


def pcm_format_from_mime(mime: str) -> tuple[int, int]:
    """``(rate, channels)`` of an ``audio/L16`` MIME (channels default 1).

    Raises :class:`AudioFormatError` for other or malformed MIMEs.
    """
    if not is_l16(mime):
        raise AudioFormatError(f"not a PCM MIME: {mime!r}; expected 'audio/L16; rate=<Hz>[; channels=<n>]'")
    params = mime_params(mime)
    try:
        rate = int(params["rate"])
    except KeyError:
        raise AudioFormatError(f"{mime!r} has no rate parameter; add e.g. 'rate=16000'") from None
    except ValueError:
        raise AudioFormatError(f"{mime!r}: rate {params['rate']!r} is not an integer") from None
    try:
        channels = int(params.get("channels", "1"))
    except ValueError:
        raise AudioFormatError(f"{mime!r}: channels {params['channels']!r} is not an integer") from None
    if rate <= 0 or channels <= 0:
        raise AudioFormatError(f"{mime!r}: rate and channels must be positive")
    return rate, channels


def pcm_format(mime: str) -> PCMFormat:
    rate, channels = pcm_format_from_mime(mime)
    return PCMFormat(rate, channels)


# -- time ↔ bytes -----------------------------------------------------------------
def samples_to_bytes(samples: int, channels: int = 1) -> int:
    """Bytes of ``samples`` frames (one sample per channel each)."""
    return samples * SAMPLE_BYTES * channels


def bytes_to_samples(n: int, channels: int = 1) -> int:
    """Whole frames in ``n`` bytes (a trailing partial frame does not count)."""
    return n // (SAMPLE_BYTES * channels)


def bytes_to_ms(n: int, rate: int, channels: int = 1) -> float:
    """Duration of ``n`` bytes of PCM in milliseconds (whole frames only)."""
    return bytes_to_samples(n, channels) * 1000.0 / rate


def ms_to_samples(ms: float, rate: int) -> int:
    """Whole frames in ``ms`` milliseconds (rounded down)."""
    return int(ms * rate // 1000)


def ms_to_bytes(ms: float, rate: int, channels: int = 1) -> int:
    """Frame-aligned byte count of ``ms`` milliseconds (rounded down to a whole frame)."""
    return samples_to_bytes(ms_to_samples(ms, rate), channels)


# -- framing --------------------------------------------------------------------------
def frame_pcm(data: bytes, rate: int, ms: float, channels: int = 1) -> list[bytes]:
    """Split ``data`` into chunks of ``ms`` milliseconds; the last one may be shorter.

    Raises :class:`AudioFormatError` when ``data`` is not frame-aligned (use
    :class:`PCMFramer` for streams whose chunks split frames).
    """
    fb = SAMPLE_BYTES * channels
    if len(data) % fb:
        raise AudioFormatError(f"{len(data)} bytes is not a whole number of {channels}-channel 16-bit frames ({fb} bytes each)")
    step = ms_to_bytes(ms, rate, channels)
    if step <= 0:
        raise AudioFormatError(f"{ms} ms at {rate} Hz is shorter than one frame")
    return _pieces(data, len(data), step)


def _pieces(buf: bytes, usable: int, step: int) -> list[bytes]:
    """``buf[:usable]`` in pieces of ``step`` bytes (the last one shorter)."""
    return [buf[i : min(i + step, usable)] for i in range(0, usable, step)]


class PCMFramer:
    """Re-chunks a PCM stream into frame-aligned chunks of at most ``ms`` milliseconds.

    With ``exact=True`` it emits only full ``ms`` chunks and carries the rest;
    otherwise each input chunk is split and only a partial frame is carried.
    """

    __slots__ = ("_carry", "_exact", "_fb", "_step")

    def __init__(self, rate: int, ms: float, channels: int = 1, *, exact: bool = False) -> None:
        self._fb = SAMPLE_BYTES * channels
        self._step = ms_to_bytes(ms, rate, channels)
        if self._step <= 0:
            raise AudioFormatError(f"{ms} ms at {rate} Hz is shorter than one frame")
        self._exact = exact
        self._carry = b""

    def push(self, data: bytes) -> list[bytes]:
        buf = self._carry + data if self._carry else data
        usable = len(buf) - len(buf) % (self._step if self._exact else self._fb)
        self._carry = buf[usable:]
        return _pieces(buf, usable, self._step)

    def flush(self) -> list[bytes]:
        """The carried rest, cut to whole frames (a partial frame is dropped)."""
        buf, self._carry = self._carry, b""
        usable = len(buf) - len(buf) % self._fb
        return _pieces(buf, usable, self._step)

    @property
    def carried(self) -> int:
        return len(self._carry)


# -- channels ---------------------------------------------------------------------------
def mix_channels(data: bytes, src: int, dst: int) -> bytes:
    """Convert interleaved int16 PCM from ``src`` to ``dst`` channels.

    N → 1 averages the channels; 1 → N copies the mono signal to each channel;
    N → N is a no-op. Other conversions raise :class:`AudioFormatError`.
    """
    if src == dst:
        return data
    fb = SAMPLE_BYTES * src
    if len(data) % fb:
        raise AudioFormatError(f"{len(data)} bytes is not a whole number of {src}-channel frames")
    if not data:
        return b""
    a = np.frombuffer(data, dtype="<i2")
    if dst == 1:
        frames = a.reshape(-1, src).astype(np.int32)
        return bytes(np.round(frames.mean(axis=1)).astype("<i2").tobytes())
    if src == 1:
        return np.repeat(a, dst).astype("<i2").tobytes()
    raise AudioFormatError(f"cannot convert {src} channels to {dst}; only N→1 and 1→N are supported")


# -- rate ---------------------------------------------------------------------------------
def resample(data: bytes, src_rate: int, dst_rate: int, channels: int = 1, quality: str = "HQ") -> bytes:
    """One-shot rate conversion of a whole frame-aligned int16 buffer (``soxr``)."""
    if src_rate == dst_rate or not data:
        return data
    fb = SAMPLE_BYTES * channels
    if len(data) % fb:
        raise AudioFormatError(f"{len(data)} bytes is not a whole number of {channels}-channel frames")
    a = np.frombuffer(data, dtype="<i2").reshape(-1, channels) if channels > 1 else np.frombuffer(data, dtype="<i2")
    out = soxr.resample(a, src_rate, dst_rate, quality=quality)
    return bytes(np.ascontiguousarray(out, dtype="<i2").tobytes())


class PCMResampler:
    """Streaming int16 rate converter (``soxr.ResampleStream``); state carries across chunks."""

    __slots__ = ("_carry", "_channels", "_done", "_fb", "_passthrough", "_stream")

    def __init__(self, src_rate: int, dst_rate: int, channels: int = 1, quality: str = "HQ") -> None:
        if src_rate <= 0 or dst_rate <= 0 or channels <= 0:
            raise AudioFormatError(f"invalid resampler settings: {src_rate} Hz → {dst_rate} Hz, {channels} channels")
        self._channels = channels
        self._fb = SAMPLE_BYTES * channels
        self._passthrough = src_rate == dst_rate
        self._stream = None if self._passthrough else soxr.ResampleStream(src_rate, dst_rate, channels, dtype="int16", quality=quality)
        self._carry = b""
        self._done = False

    def process(self, data: bytes) -> bytes:
        """Resample the next chunk (any length; a partial frame is carried)."""
        if self._done:
            raise AudioFormatError("resampler already flushed; create a new one for a new stream")
        buf = self._carry + data if self._carry else data
        usable = len(buf) - len(buf) % self._fb
        self._carry = buf[usable:]
        if usable == 0:
            return b""
        return self._run(buf[:usable], last=False)

    def flush(self) -> bytes:
        """The resampler's tail; a carried partial frame is dropped."""
        if self._done:
            return b""
        self._done = True
        self._carry = b""
        if self._passthrough:
            return b""
        return self._run(b"", last=True)

    def _run(self, data: bytes, last: bool) -> bytes:
        if self._stream is None:
            return data
        a = np.frombuffer(data, dtype="<i2")
        if self._channels > 1:
            a = a.reshape(-1, self._channels)
        out = self._stream.resample_chunk(a, last=last)
        return bytes(np.ascontiguousarray(out, dtype="<i2").tobytes())


class PCMConverter:
    """Streaming ``audio/L16`` → ``audio/L16`` conversion: channels first, then rate."""

    __slots__ = ("_carry", "_resampler", "dst", "src")

    def __init__(self, src_mime: str, dst_mime: str, quality: str = "HQ") -> None:
        self.src = pcm_format(src_mime)
        self.dst = pcm_format(dst_mime)
        if self.src.channels != self.dst.channels and 1 not in (self.src.channels, self.dst.channels):
            raise AudioFormatError(f"cannot convert {self.src.channels} channels to {self.dst.channels}")
        self._resampler = PCMResampler(self.src.rate, self.dst.rate, self.dst.channels, quality)
        self._carry = b""

    def process(self, data: bytes) -> bytes:
        buf = self._carry + data if self._carry else data
        fb = self.src.frame_bytes
        usable = len(buf) - len(buf) % fb
        self._carry = buf[usable:]
        if usable == 0:
            return b""
        return self._resampler.process(mix_channels(buf[:usable], self.src.channels, self.dst.channels))

    def flush(self) -> bytes:
        self._carry = b""
        return self._resampler.flush()


__all__ = [
    "L16",
    "SAMPLE_BYTES",
    "AudioFormatError",
    "PCMConverter",
    "PCMFormat",
    "PCMFramer",
    "PCMResampler",
    "bytes_to_ms",
    "bytes_to_samples",
    "frame_pcm",
    "is_l16",
    "l16_mime",
    "mix_channels",
    "ms_to_bytes",
    "ms_to_samples",
    "pcm_format",
    "pcm_format_from_mime",
    "resample",
    "samples_to_bytes",
]
