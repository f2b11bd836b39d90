"""audiostream: MP3 ID3 normaliser and audio/L16 helpers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genx.chunk import MessageChunk
from genx.transformers.audiostream import (
    HOLD_BACK,
    AudioFormatError,
    Normalizer,
    PCMConverter,
    PCMFramer,
    PCMResampler,
    PulledAudioMeter,
    bytes_to_ms,
    bytes_to_samples,
    frame_pcm,
    id3v2_tag_size,
    l16_mime,
    mix_channels,
    ms_to_bytes,
    pcm_format_from_mime,
    resample,
    samples_to_bytes,
)


def syncsafe(n: int) -> bytes:
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def id3v2(body: bytes, footer: bool = False) -> bytes:
    flags = 0x10 if footer else 0
    tag = b"ID3\x04\x00" + bytes([flags]) + syncsafe(len(body)) + body
    return tag + (b"3DI\x04\x00" + bytes([flags]) + syncsafe(len(body)) if footer else b"")


def id3v1(title: bytes = b"song") -> bytes:
    return (b"TAG" + title).ljust(128, b"\x00")


def audio(n: int, seed: int = 1) -> bytes:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    return data.replace(b"ID3", b"IDX").replace(b"TAG", b"TAX")


def run(n: Normalizer, chunks: list[bytes]) -> bytes:
    return b"".join(n.normalize(c) for c in chunks) + n.flush()


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    pts = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(pts)]


# -- MP3 normaliser ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mime", ["audio/mpeg", "audio/MP3", "audio/x-mpeg", "audio/mpeg; layer=3"])
def test_mp3_mimes_strip_leading_id3v2_tag(mime: str) -> None:
    body = audio(1000)
    assert run(Normalizer(mime), [id3v2(b"\x00" * 50) + body]) == body


@pytest.mark.parametrize("mime", ["audio/l16; rate=16000", "audio/ogg; codecs=opus", "audio/wav", "", "garbage"])
def test_other_mimes_pass_through_unchanged(mime: str) -> None:
    data = id3v2(b"x" * 20) + audio(300) + id3v1()
    n = Normalizer(mime)
    assert not n.handles
    assert n.normalize(data) == data and n.flush() == b""
    assert n.mime == mime


def test_holds_back_last_130_bytes_while_streaming() -> None:
    n = Normalizer("audio/mpeg")
    body = audio(1000)
    assert n.normalize(body) == body[: 1000 - HOLD_BACK]
    assert n.flush() == body[1000 - HOLD_BACK :]


def test_tag_split_across_many_chunks_is_stripped() -> None:
    body = audio(600)
    data = audio(200, 2) + id3v2(b"\x01" * 300) + body
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    assert run(Normalizer("audio/mpeg"), chunks) == audio(200, 2) + body


def test_footer_flag_adds_10_bytes_to_the_tag() -> None:
    tag = id3v2(b"\x02" * 40, footer=True)
    assert id3v2_tag_size(tag) == (len(tag), True, True)
    body = audio(400)
    assert run(Normalizer("audio/mpeg"), [tag, body]) == body


def test_incomplete_tag_is_waited_for_then_dropped_at_flush() -> None:
    n = Normalizer("audio/mpeg")
    head = audio(300)
    truncated = id3v2(b"\x03" * 500)[:200]
    out = n.normalize(head + truncated)
    out += n.normalize(b"")  # zero-length chunk: nothing changes
    out += n.flush()
    assert out == head


def test_invalid_header_passes_through() -> None:
    bogus = b"ID3\x04\x00\x00\x80\x80\x80\x80" + audio(300)  # size bytes with the high bit set
    assert run(Normalizer("audio/mpeg"), [bogus]) == bogus
    assert id3v2_tag_size(bogus) == (0, False, False)


def test_short_id3_prefix_at_the_end_passes_through_at_flush() -> None:
    data = audio(50) + b"ID3\x04"
    assert run(Normalizer("audio/mpeg"), [data]) == data


def test_trailing_id3v1_removed_at_flush_only() -> None:
    body = audio(500)
    n = Normalizer("audio/mpeg")
    streamed = n.normalize(body + id3v1())
    assert len(streamed) == len(body) + 128 - HOLD_BACK
    assert streamed + n.flush() == body


def test_tag_both_ends_and_in_the_middle() -> None:
    a, b = audio(300, 3), audio(300, 4)
    data = id3v2(b"\x05" * 10) + a + id3v2(b"\x06" * 33) + b + id3v1()
    assert run(Normalizer("audio/mpeg"), [data]) == a + b


def test_tag_starting_just_before_the_holdback_boundary_is_not_leaked() -> None:
    # "ID" emitted and "3…" held back would leak the tag in the original.
    body = audio(400)
    tag = id3v2(b"\x07" * 200)
    data = body + tag + audio(50, 9)
    first = len(body) + 2 + HOLD_BACK - 1
    assert run(Normalizer("audio/mpeg"), [data[:first], data[first:]]) == body + audio(50, 9)


mp3_pieces = st.lists(
    st.one_of(
        st.binary(min_size=0, max_size=300).map(lambda b: b.replace(b"ID3", b"").replace(b"TAG", b"")),
        st.binary(max_size=60).map(id3v2),
        st.binary(max_size=60).map(lambda b: id3v2(b, footer=True)),
        st.just(b"ID3\x04\x00\x00\x80\x00\x00\x00"),  # invalid header
        st.just(b"ID3"),
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(pieces=mp3_pieces, tail=st.sampled_from([b"", id3v1()]), cuts=st.lists(st.integers(0, 3000), max_size=15))
def test_normaliser_output_is_identical_whatever_the_chunking(pieces: list[bytes], tail: bytes, cuts: list[int]) -> None:
    data = b"".join(pieces) + tail
    whole = run(Normalizer("audio/mpeg"), [data])
    assert run(Normalizer("audio/mpeg"), split(data, cuts)) == whole
    assert run(Normalizer("audio/mpeg"), [bytes([x]) for x in data]) == whole


# -- PCM format and maths ----------------------------------------------------------------------------
def test_pcm_format_from_mime_reads_rate_and_channels_with_default_mono() -> None:
    assert pcm_format_from_mime("audio/L16; rate=16000") == (16000, 1)
    assert pcm_format_from_mime("audio/l16;channels=2;rate=48000") == (48000, 2)
    assert l16_mime(22050) == "audio/l16; channels=1; rate=22050"


@pytest.mark.parametrize("mime", ["audio/mpeg", "audio/L16", "audio/L16; rate=abc", "audio/L16; rate=16000; channels=0", "", "text/plain"])
def test_pcm_format_rejects_non_l16_or_broken_mimes(mime: str) -> None:
    with pytest.raises(AudioFormatError):
        pcm_format_from_mime(mime)


def test_time_and_byte_conversions_round_trip() -> None:
    assert ms_to_bytes(20, 16000) == 640
    assert ms_to_bytes(10, 48000, 2) == 1920
    assert bytes_to_ms(640, 16000) == 20.0
    assert bytes_to_ms(641, 16000) == 20.0  # a partial sample is not time
    assert samples_to_bytes(160, 2) == 640
    assert bytes_to_samples(641, 1) == 320
    assert ms_to_bytes(1.5, 22050) == 2 * math.floor(1.5 * 22050 / 1000)


def test_frame_pcm_splits_into_ms_chunks_with_short_last() -> None:
    data = bytes(range(256)) * 5  # 1280 bytes = 40 ms at 16 kHz
    frames = frame_pcm(data[:1000], 16000, 20)
    assert [len(f) for f in frames] == [640, 360]
    assert b"".join(frames) == data[:1000]
    assert frame_pcm(b"", 16000, 20) == []


def test_frame_pcm_rejects_odd_length_and_too_short_duration() -> None:
    with pytest.raises(AudioFormatError, match="1001 bytes"):
        frame_pcm(b"\x00" * 1001, 16000, 20)
    with pytest.raises(AudioFormatError):
        frame_pcm(b"\x00" * 10, 8000, 0.01)


def test_framer_carries_odd_bytes_and_keeps_frames_aligned() -> None:
    f = PCMFramer(16000, 10)  # 320-byte frames
    out = f.push(b"\x01" * 333) + f.push(b"") + f.push(b"\x02" * 1)
    assert all(len(x) % 2 == 0 for x in out)
    assert sum(len(x) for x in out) == 334
    f.push(b"\x03")
    assert f.carried == 1
    assert f.flush() == []  # a lone half-sample is not audio


def test_exact_framer_emits_only_full_frames_until_flush() -> None:
    f = PCMFramer(16000, 10, exact=True)
    assert f.push(b"\x00" * 500) == [b"\x00" * 320]
    assert f.carried == 180
    assert f.flush() == [b"\x00" * 180]


def test_mix_channels_down_and_up() -> None:
    stereo = np.array([100, 300, -50, 50], dtype="<i2").tobytes()
    assert np.frombuffer(mix_channels(stereo, 2, 1), dtype="<i2").tolist() == [200, 0]
    mono = np.array([7, -8], dtype="<i2").tobytes()
    assert np.frombuffer(mix_channels(mono, 1, 2), dtype="<i2").tolist() == [7, 7, -8, -8]
    assert mix_channels(b"", 2, 1) == b""
    with pytest.raises(AudioFormatError):
        mix_channels(b"\x00" * 6, 2, 1)
    with pytest.raises(AudioFormatError):
        mix_channels(b"\x00" * 12, 2, 3)


def sine(rate: int, ms: int, freq: float = 440.0) -> bytes:
    t = np.arange(rate * ms // 1000) / rate
    return (np.sin(2 * np.pi * freq * t) * 12000).astype("<i2").tobytes()


def test_streaming_resampler_matches_length_and_keeps_state_across_odd_chunks() -> None:
    src = sine(48000, 500)
    r = PCMResampler(48000, 16000)
    out = b""
    pos = 0
    for size in [1, 0, 333, 4801, 7, 10000, 2]:  # odd sizes split samples
        out += r.process(src[pos : pos + size])
        pos += size
    out += r.process(src[pos:]) + r.flush()
    assert len(out) % 2 == 0
    assert abs(len(out) // 2 - 8000) <= 2
    one_shot = resample(src, 48000, 16000)
    a = np.frombuffer(out, dtype="<i2").astype(float)
    b = np.frombuffer(one_shot, dtype="<i2").astype(float)
    m = min(len(a), len(b))
    assert np.max(np.abs(a[100 : m - 100] - b[100 : m - 100])) < 200  # same signal, streaming or not
    with pytest.raises(AudioFormatError):
        r.process(b"\x00\x00")


def test_resampler_same_rate_is_passthrough() -> None:
    r = PCMResampler(16000, 16000)
    assert r.process(b"\x01\x02\x03") == b"\x01\x02"
    assert r.flush() == b""


def test_converter_stereo_48k_to_mono_16k_keeps_the_tone() -> None:
    mono = np.frombuffer(sine(48000, 200, 1000.0), dtype="<i2")
    stereo = np.repeat(mono, 2).astype("<i2").tobytes()
    conv = PCMConverter(l16_mime(48000, 2), l16_mime(16000, 1))
    out = conv.process(stereo[:1001]) + conv.process(stereo[1001:]) + conv.flush()
    y = np.frombuffer(out, dtype="<i2").astype(float)
    assert abs(len(y) - 3200) <= 2
    spectrum = np.abs(np.fft.rfft(y))
    peak_hz = np.argmax(spectrum) * 16000 / len(y)
    assert abs(peak_hz - 1000) < 20


def test_pulled_audio_meter_counts_bytes_and_ms_per_route() -> None:
    meter = PulledAudioMeter()
    pcm = l16_mime(16000)
    meter(MessageChunk.blob(pcm, b"\x00" * 640, stream_id="a"))
    meter(MessageChunk.blob(pcm, b"\x00" * 320, stream_id="a"))
    meter(MessageChunk.blob("audio/mpeg", b"\x00" * 99, stream_id="b"))
    meter(MessageChunk.text("ignored", stream_id="a"))
    assert meter.pulled_ms("a") == 30.0 and meter.pulled_bytes("a") == 960
    assert meter.pulled_ms("b") is None and meter.pulled_bytes("b") == 99
    assert meter.pulled_ms("none") == 0.0
