"""Audio byte-stream utilities for transformers (``genx.transformers.audiostream``).

Owns: the MIME-driven :class:`Normalizer` (MP3 ID3v1/ID3v2 removal across chunk
boundaries; every other MIME passes through unchanged), ``audio/L16`` helpers
(format parsing, framing, channel mixing, ``soxr`` resampling, time ↔ byte
maths) and :class:`PulledAudioMeter` (audio pulled per route).

Does not own: codecs (no decoding or encoding; codec, rate and MIME of encoded
audio are never changed), audio devices (``app.audio``), route termination
(``streamkit``).
"""

from genx.transformers.audiostream.meter import PulledAudioMeter, RouteAudio
from genx.transformers.audiostream.normalizer import HOLD_BACK, MP3_MIMES, Normalizer, id3v2_tag_size
from genx.transformers.audiostream.pcm import (
    L16,
    SAMPLE_BYTES,
    AudioFormatError,
    PCMConverter,
    PCMFormat,
    PCMFramer,
    PCMResampler,
    bytes_to_ms,
    bytes_to_samples,
    frame_pcm,
    is_l16,
    l16_mime,
    mix_channels,
    ms_to_bytes,
    ms_to_samples,
    pcm_format,
    pcm_format_from_mime,
    resample,
    samples_to_bytes,
)

__all__ = [
    "HOLD_BACK",
    "L16",
    "MP3_MIMES",
    "SAMPLE_BYTES",
    "AudioFormatError",
    "Normalizer",
    "PCMConverter",
    "PCMFormat",
    "PCMFramer",
    "PCMResampler",
    "PulledAudioMeter",
    "RouteAudio",
    "bytes_to_ms",
    "bytes_to_samples",
    "frame_pcm",
    "id3v2_tag_size",
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
