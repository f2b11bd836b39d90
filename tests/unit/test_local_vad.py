"""VAD state machines and the VadTransformer, driven by scripted voiced/unvoiced frames (no webrtcvad)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from genx.chunk import Blob, MessageChunk, StreamCtrl, Text
from genx.errors import Done
from genx.local.pcm import L16_16K_MONO
from genx.local.vad import END_UTTERANCE, VadTransformer, from_config
from genx.local.vad_segment import END, IDLE, SPEECH, START, SpeechEvent, SpeechTrimmer, UtteranceDetector, VadConfigError, VadSettings
from genx.stream import StreamBuilder, collect, stream_of
from genx.transformers.audiostream.pcm import AudioFormatError
from tests.contract.transformer_contract import ContractCase, check_transformer_contract

FRAME_MS = 30
FRAME_BYTES = 16 * FRAME_MS * 2
VOICED = (1000).to_bytes(2, "little", signed=True) * (FRAME_BYTES // 2)
SILENT = b"\x00\x00" * (FRAME_BYTES // 2)


class LevelClassifier:
    """Voiced iff the frame's mean absolute level is above 300 (so scripted frames decide)."""

    def __init__(self, settings: VadSettings) -> None:
        self.levels: list[int] = [settings.aggressiveness]

    def is_speech(self, frame: bytes) -> bool:
        return float(np.abs(np.frombuffer(frame, dtype="<i2").astype(np.int32)).mean()) > 300

    def set_aggressiveness(self, level: int) -> None:
        self.levels.append(level)


def script(pattern: str) -> bytes:
    """'v' = a voiced 30 ms frame, '.' = a silent one."""
    return b"".join(VOICED if ch == "v" else SILENT for ch in pattern)


def feed(det: UtteranceDetector, pattern: str) -> list[int]:
    return [det.feed(VOICED if ch == "v" else SILENT, ch == "v")[0] for ch in pattern]


def settings(**kw: object) -> VadSettings:
    base: dict[str, object] = {"frame_ms": FRAME_MS, "onset_window_ms": 150, "onset_ratio": 0.6, "end_silence_ms": 300, "preroll_ms": 150}
    base.update(kw)
    return VadSettings(**base).validate()  # type: ignore[arg-type]


# -- UtteranceDetector -------------------------------------------------------------


def test_a_single_voiced_click_does_not_open_an_utterance() -> None:
    det = UtteranceDetector(settings())
    kinds = feed(det, "....v....v....v....")
    assert set(kinds) == {IDLE}
    assert not det.in_speech


def test_onset_needs_the_voiced_share_of_the_window_and_returns_the_preroll() -> None:
    det = UtteranceDetector(settings())  # window 5 frames, 60 % → 3 voiced
    kinds = [det.feed(SILENT, False)[0] for _ in range(10)]
    assert set(kinds) == {IDLE}
    assert det.feed(VOICED, True)[0] == IDLE
    assert det.feed(VOICED, True)[0] == IDLE
    kind, audio = det.feed(VOICED, True)
    assert kind == START
    # pre-roll: the last max(preroll, window) = 5 frames, including the 3 voiced ones
    assert audio == script("..vvv")


def test_utterance_ends_after_the_end_silence_and_not_during_a_short_pause() -> None:
    det = UtteranceDetector(settings(end_silence_ms=300, end_ratio=0.0))  # 10 silent frames end it
    feed(det, "vvv")
    assert det.in_speech
    kinds = feed(det, "vvvv.....vvvv")  # a 150 ms pause keeps the utterance open
    assert END not in kinds
    kinds = feed(det, "..........")
    assert kinds[-1] == END and kinds[:-1] == [SPEECH] * 9
    assert not det.in_speech


def test_end_ratio_tolerates_a_voiced_flicker_in_the_trailing_silence() -> None:
    det = UtteranceDetector(settings(end_silence_ms=300, end_ratio=0.1))  # at most 1 voiced frame of 10
    feed(det, "vvvvv")
    kinds = feed(det, "....v.....")
    assert kinds[-1] == END


def test_max_utterance_splits_a_long_utterance_and_the_next_one_reopens() -> None:
    det = UtteranceDetector(settings(max_utterance_ms=600))
    kinds = feed(det, "v" * 30)  # 600 ms = 20 frames per utterance, 3 to reopen
    assert kinds.count(START) == 2
    assert kinds.count(END) == 1


def test_retune_to_a_stricter_onset_ratio_applies_to_the_next_frames() -> None:
    det = UtteranceDetector(settings())
    det.retune(settings(onset_ratio=1.0))
    kinds = feed(det, "vvvv.vvvv.")
    assert START not in kinds
    assert feed(det, "vvvvv")[-1] == START


def test_invalid_settings_name_the_field() -> None:
    with pytest.raises(VadConfigError, match="frame_ms"):
        VadSettings(frame_ms=25).validate()
    with pytest.raises(VadConfigError, match="aggressiveness"):
        VadSettings(aggressiveness=4).validate()
    with pytest.raises(VadConfigError, match="onset_ratio"):
        VadSettings(onset_ratio=0).validate()
    with pytest.raises(VadConfigError, match="bogus"):
        from_config({"bogus": 1})


# -- SpeechTrimmer -------------------------------------------------------------------


def trim(t: SpeechTrimmer, pattern: str) -> bytes:
    out = b""
    for ch in pattern:
        audio, _ = t.feed(VOICED if ch == "v" else SILENT, ch == "v")
        out += audio
    return out + t.finish()


def test_trimmer_drops_leading_silence_but_keeps_the_preroll_and_trims_trailing_silence() -> None:
    t = SpeechTrimmer(settings(preroll_ms=90, trailing_keep_ms=60))
    out = trim(t, "." * 20 + "vvvvvv" + ".." + "vv" + "." * 20)
    # pre-roll of max(preroll, onset window)=5 frames, inner pause kept, 2 trailing frames kept
    assert out == script("..vvv" + "vvv" + ".." + "vv" + "..")


def test_trimmer_of_silence_only_returns_nothing() -> None:
    assert trim(SpeechTrimmer(settings()), "." * 30) == b""


# -- VadTransformer ----------------------------------------------------------------------


def make_vad(**kw: object) -> VadTransformer:
    return VadTransformer(settings(**kw), classifier_factory=LevelClassifier)


def audio_chunks(pcm: bytes, mime: str = "audio/L16; rate=16000", size: int = 640, stream_id: str = "") -> list[MessageChunk]:
    return [MessageChunk.blob(mime, pcm[i : i + size], stream_id=stream_id) for i in range(0, len(pcm), size)]


def routes(chunks: list[MessageChunk]) -> dict[str, list[MessageChunk]]:
    out: dict[str, list[MessageChunk]] = {}
    for c in chunks:
        out.setdefault(c.stream_id, []).append(c)
    return out


def route_audio(chunks: list[MessageChunk]) -> bytes:
    return b"".join(c.part.data for c in chunks if isinstance(c.part, Blob))


async def test_two_utterances_separated_by_silence_become_two_routes_with_bos_audio_eos() -> None:
    pcm = script("." * 10 + "v" * 20 + "." * 20 + "v" * 15 + "." * 20)
    out = await collect(await make_vad().transform(stream_of(*audio_chunks(pcm))))
    by_route = routes(out)
    assert len(by_route) == 2 and "" not in by_route
    for chunks in by_route.values():
        assert chunks[0].is_begin_of_stream() and chunks[0].is_control_only() and chunks[0].label == "utterance"
        assert chunks[-1].is_end_of_stream() and chunks[-1].is_control_only() and not chunks[-1].error
        assert all(c.mime() == L16_16K_MONO for c in chunks[1:-1])
    first, second = (route_audio(c) for c in by_route.values())
    # pre-roll (5 frames: 2 silent + 3 voiced) + rest of speech + trailing silence (10 frames)
    assert first.startswith(script("..vvv")) and VOICED * 20 in first
    assert len(second) < len(first)


async def test_speech_callback_fires_before_the_bos_is_readable_with_the_route_id() -> None:
    events: list[SpeechEvent] = []
    src = StreamBuilder()
    out = await make_vad().transform(src.stream, on_speech=events.append)
    src.push_many(audio_chunks(script("....vvv")))
    bos = await asyncio.wait_for(out.next(), 5)
    assert bos.is_begin_of_stream()
    assert [e.kind for e in events] == ["start"] and events[0].stream_id == bos.stream_id
    assert events[0].position_ms == 2 * FRAME_MS  # the pre-roll starts 2 frames before the first voiced one
    await out.close()


async def test_speech_end_event_and_timestamps_follow_the_input_clock() -> None:
    events: list[SpeechEvent] = []
    chunks = audio_chunks(script("...vvvvv" + "." * 12), size=FRAME_BYTES)
    for i, c in enumerate(chunks):
        c.ensure_ctrl().timestamp = 10_000 + i * FRAME_MS
    out = await collect(await make_vad().transform(stream_of(*chunks), on_speech=events.append))
    assert [e.kind for e in events] == ["start", "end"]
    assert out[0].timestamp == 10_000 + FRAME_MS  # the pre-roll's first frame
    assert events[1].timestamp == out[-1].timestamp > events[0].timestamp


async def test_44k1_stereo_input_is_converted_not_rejected() -> None:
    mono16 = script("." * 10 + "v" * 20 + "." * 20)
    x = np.frombuffer(mono16, dtype="<i2").astype(np.float32)
    up = np.interp(np.arange(int(len(x) * 44100 / 16000)) * 16000 / 44100, np.arange(len(x)), x).astype("<i2")
    stereo = np.repeat(up, 2).tobytes()
    out = await collect(await make_vad().transform(stream_of(*audio_chunks(stereo, "audio/L16; rate=44100; channels=2", 1764))))
    by_route = routes(out)
    assert len(by_route) == 1
    audio = route_audio(next(iter(by_route.values())))
    # pre-roll (2 silent + 3 voiced frames) + the other 17 voiced + 10 frames of end silence, at 16 kHz
    assert abs(len(audio) / 32 - (5 + 17 + 10) * FRAME_MS) <= 2 * FRAME_MS


async def test_tune_raises_the_threshold_of_a_running_call() -> None:
    vad = make_vad()
    src = StreamBuilder()
    out = await vad.transform(src.stream)
    vad.tune(onset_ratio=1.0, onset_window_ms=300, aggressiveness=3)
    src.push_many(audio_chunks(script("vvvv.vvvv.vvvv." + "." * 10)))  # would open at 60 %, not at 100 % of 10 frames
    src.push_many(audio_chunks(script("v" * 12 + "." * 12)))
    src.done()
    chunks = await collect(out)
    assert len(routes(chunks)) == 1
    first_audio = route_audio(chunks)
    assert first_audio.startswith(VOICED * 10)
    assert vad.settings.aggressiveness == 3


async def test_external_mode_makes_one_utterance_per_input_route_and_trims_silence() -> None:
    vad = make_vad(mode="external", preroll_ms=60, trailing_keep_ms=60)
    events: list[SpeechEvent] = []
    chunks = [
        MessageChunk.bos("ptt1"),
        *audio_chunks(script("." * 15 + "vvvv..vvvv" + "." * 15), stream_id="ptt1"),
        MessageChunk.eos("ptt1"),
        MessageChunk.bos("ptt2"),
        *audio_chunks(script("." * 10), stream_id="ptt2"),
        MessageChunk.eos("ptt2"),
    ]
    out = await collect(await vad.transform(stream_of(*chunks), on_speech=events.append))
    by_route = routes(out)
    assert len(by_route) == 2 and not ({"ptt1", "ptt2"} & set(by_route))
    first, second = by_route.values()
    assert route_audio(first) == script("..vvv" + "v..vvvv" + "..")
    assert route_audio(second) == b""  # silence only: an empty utterance, still BOS … EOS
    assert second[0].is_begin_of_stream() and second[-1].is_end_of_stream()
    assert [e.kind for e in events] == ["start", "end"]  # no speech on ptt2: no events


async def test_text_passes_through_and_non_pcm_audio_is_a_typed_error() -> None:
    out = await make_vad().transform(stream_of(MessageChunk.text("hi", stream_id="t"), MessageChunk.blob("audio/mpeg", b"\xff\xfb")))
    first = await out.next()
    assert isinstance(first.part, Text) and first.part.text == "hi"
    with pytest.raises(AudioFormatError, match="audio/mpeg"):
        await out.next()


async def test_input_error_closes_the_open_utterance_with_the_error_then_raises() -> None:
    src = StreamBuilder()
    out = await make_vad().transform(src.stream)
    src.push_many(audio_chunks(script("vvvvvv")))
    src.abort(ConnectionError("mic unplugged"))
    got: list[MessageChunk] = []
    with pytest.raises(ConnectionError):
        while True:
            got.append(await out.next())
    assert got[-1].is_end_of_stream() and "mic unplugged" in got[-1].error


async def test_closing_the_output_closes_the_input() -> None:
    src = StreamBuilder()
    closed = asyncio.Event()
    src.on_close(lambda _e: closed.set())
    out = await make_vad().transform(src.stream)
    await out.close()
    await asyncio.wait_for(closed.wait(), 5)
    with pytest.raises(Done):
        await out.next()


def contract_case() -> ContractCase:
    return ContractCase(
        make_transformer=make_vad,
        opening=lambda i: audio_chunks(script("..vvvvvvvv"), stream_id=f"mic{i}"),
        closing=lambda i: [*audio_chunks(script("vv" + "." * 12), stream_id=f"mic{i}"), MessageChunk.eos(f"mic{i}")],
        timeout=10,
    )


async def test_vad_transformer_meets_the_transformer_contract() -> None:
    await check_transformer_contract(contract_case())


async def test_an_end_utterance_control_ends_the_open_utterance_there_and_later_speech_opens_a_new_one() -> None:
    events: list[SpeechEvent] = []
    first = audio_chunks(script("..vvvvvvvv..."), size=FRAME_BYTES)  # a 3-frame pause: the 300 ms silence has not run out
    cut = MessageChunk(ctrl=StreamCtrl(stream_id="", label=END_UTTERANCE))
    more = audio_chunks(script("vvvvvv" + "." * 12), size=FRAME_BYTES)
    out = await collect(await make_vad().transform(stream_of(*first, cut, *more), on_speech=events.append))
    by_route = routes(out)
    assert len(by_route) == 2  # without the control the two stretches are one utterance (the pause is too short)
    one, two = by_route.values()
    assert one[-1].is_end_of_stream() and not one[-1].error
    assert VOICED * 8 in route_audio(one) and VOICED not in route_audio(one)[-3 * FRAME_BYTES :]
    assert VOICED * 3 in route_audio(two)
    assert [e.kind for e in events] == ["start", "end", "start", "end"]


async def test_without_the_control_a_short_pause_stays_inside_one_utterance() -> None:
    first = audio_chunks(script("..vvvvvvvv..."), size=FRAME_BYTES)
    more = audio_chunks(script("vvvvvv" + "." * 12), size=FRAME_BYTES)
    out = await collect(await make_vad().transform(stream_of(*first, *more)))
    assert len(routes(out)) == 1
