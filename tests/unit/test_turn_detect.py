"""End-of-turn detectors without the big models: the contract, the Smart Turn input, the text rules, the combination."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from genx.errors import GenxError
from genx.generators.llamacpp import LlamaBusyError
from genx.local.models import SharedModel
from genx.model import ModelContext
from genx.turn.combined import CombinationRule, CombinationRuleError, CombinedDetector
from genx.turn.detector import NO_TRANSCRIPT, SilenceRule, TurnAudioError, TurnModelBusyError, TurnModelError, TurnVerdict, pcm_to_float
from genx.turn.text import TextTurnDetector, strip_final_punctuation

RATE = 16000


def tone(seconds: float, hz: float = 440.0, amplitude: float = 0.3) -> np.ndarray:  # type: ignore[type-arg]
    t = np.arange(int(seconds * RATE)) / RATE
    return (amplitude * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def pcm(x: np.ndarray) -> bytes:  # type: ignore[type-arg]
    return (np.clip(x, -1, 1) * 32767).astype("<i2").tobytes()


# -- the contract ---------------------------------------------------------------------


async def test_the_silence_rule_calls_every_pause_complete_at_no_cost() -> None:
    v = await SilenceRule().check(b"\x00\x00" * 1600, "Can you remind me what the")
    assert (v.complete, v.probability, v.detector, v.cost_ms) == (True, 1.0, "silence", 0.0)


def test_audio_that_is_not_int16_pcm_is_a_typed_error() -> None:
    with pytest.raises(TurnAudioError, match="whole number of int16 samples"):
        pcm_to_float(b"\x00\x01\x02")
    with pytest.raises(TurnAudioError, match="expected bytes"):
        pcm_to_float([1, 2])  # type: ignore[arg-type]
    assert issubclass(TurnAudioError, GenxError)
    np.testing.assert_allclose(pcm_to_float((16384).to_bytes(2, "little", signed=True)), [0.5])


# -- Smart Turn: input and errors (the packaged model itself is in tests/integration) ----


@pytest.fixture
def features() -> Any:
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    from genx.turn.smart_turn import smart_turn_input

    return smart_turn_input


def test_smart_turn_input_is_the_whisper_log_mel_of_the_normalised_last_8_s_padded_at_the_front(features: Any) -> None:
    from faster_whisper.feature_extractor import FeatureExtractor

    x = tone(2.0) + 0.05 * np.random.default_rng(0).standard_normal(2 * RATE).astype(np.float32)
    got = features(x)
    assert got.shape == (1, 80, 800) and got.dtype == np.float32
    # what the model was trained on, written out: zeros in front up to 8 s, zero mean and unit variance, then
    # faster-whisper's 80-bin log-mel without its 160-sample tail padding (8 s → 801 STFT frames, the last dropped)
    padded = np.concatenate([np.zeros(6 * RATE, dtype=np.float32), x])
    normalised = (padded - padded.mean()) / np.sqrt(padded.var() + 1e-7)
    expected = FeatureExtractor(feature_size=80)(normalised, padding=0)
    np.testing.assert_allclose(got[0], expected, atol=1e-5)
    # the speech is at the end: the last 2 s are louder than the padded front
    assert got[0, :, -150:].mean() > got[0, :, :550].mean() + 0.3


def test_smart_turn_input_ignores_loudness_and_everything_before_the_last_8_s(features: Any) -> None:
    x = tone(8.0, 300.0) * np.linspace(0.2, 1.0, 8 * RATE, dtype=np.float32)
    base = features(x)
    np.testing.assert_allclose(features(0.1 * x), base, atol=1e-4)
    older = np.concatenate([tone(3.0, 1200.0, 0.9), x])
    np.testing.assert_allclose(features(older), base, atol=1e-6)


def test_a_missing_smart_turn_file_is_a_turn_model_error_that_says_what_to_do(tmp_path: Path) -> None:
    from genx.turn.smart_turn import SmartTurnDetector

    with pytest.raises(TurnModelError) as ei:
        SmartTurnDetector(tmp_path / "nope.onnx")
    assert isinstance(ei.value, GenxError)
    assert "nope.onnx" in str(ei.value) and 'turn_detection = "silence"' in str(ei.value)


async def test_a_corrupt_smart_turn_file_is_a_turn_model_error_when_it_loads(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="pip install onnxruntime")
    from genx.turn.smart_turn import SmartTurnDetector

    bad = tmp_path / "smart-turn-v3.2-cpu.onnx"
    bad.write_bytes(b"\x08\x07not a protobuf at all" * 100)
    det = SmartTurnDetector(bad)
    with pytest.raises(TurnModelError, match=r"onnxruntime cannot load it.*pip install --no-deps --force-reinstall pipecat-ai"):
        await det.warm()
    with pytest.raises(TurnModelError):  # a failed load is not cached as a success: a check fails the same way
        await det.check(pcm(tone(1.0)))


class _BlockingSession:
    """A Smart Turn session stand-in: each run waits until ``n`` runs are inside at once (no detector-wide lock)."""

    def __init__(self, n: int) -> None:
        self.barrier = threading.Barrier(n, timeout=5)
        self.threads: list[str] = []

    def run(self, outputs: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:  # type: ignore[type-arg]
        assert feeds["input_features"].shape == (1, 80, 800)
        self.threads.append(threading.current_thread().name)
        self.barrier.wait()
        return [np.array([[0.9]], dtype=np.float32)]


async def test_smart_turn_checks_run_on_worker_threads_and_overlapping_checks_do_not_wait_for_each_other(features: Any) -> None:
    from genx.turn.smart_turn import DEFAULT_SMART_TURN, SmartTurnDetector

    try:
        DEFAULT_SMART_TURN.path()
    except GenxError as exc:
        pytest.skip(str(exc))
    det = SmartTurnDetector(threshold=0.8)
    session = _BlockingSession(2)
    det.model = SharedModel(("fake-smart-turn", id(session)), lambda: session, "fake")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    t = asyncio.create_task(ticker())
    a, b = await asyncio.gather(det.check(pcm(tone(1.0))), det.check(pcm(tone(3.0))))
    t.cancel()
    assert a.complete and b.complete and a.probability == pytest.approx(0.9)
    assert threading.main_thread().name not in session.threads and len(session.threads) == 2
    assert ticks > 2  # the event loop kept running while both checks scored
    assert a.cost_ms > 0 and a.elapsed_ms >= a.cost_ms


# -- the text signal --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heard", "scored"),
    [
        ("What time is it?", "What time is it"),
        ("Can you remind me what the...", "Can you remind me what the"),
        ("  Book a table for four.  ", "  Book a table for four"),
        ('He said "stop!"', 'He said "stop'),  # closing quotes go with the punctuation
        ("I'm", "I'm"),
        ("?!", ""),
    ],
)
def test_the_final_punctuation_is_removed_before_the_next_token_is_scored(heard: str, scored: str) -> None:
    assert strip_final_punctuation(heard) == scored


class _Generator:
    """A llama.cpp generator stand-in: ``run_exclusive`` either answers with ``llm`` or is busy."""

    system_prompt = "Be brief."

    def __init__(self, busy: bool = False) -> None:
        self.busy = busy
        self.calls = 0

    async def warm(self) -> None:
        pass

    async def run_exclusive(self, fn: Any, *, wait_s: float) -> Any:
        self.calls += 1
        if self.busy:
            raise LlamaBusyError(wait_s)
        raise AssertionError("this fake has no model")


async def test_the_text_signal_without_a_transcript_is_unfinished_and_does_not_touch_the_model() -> None:
    gen = _Generator()
    v = await TextTurnDetector(gen).check(b"", "  ... ")  # type: ignore[arg-type]
    assert (v.complete, v.probability, v.note, gen.calls) == (False, 0.0, "no transcript", 0)


async def test_a_busy_model_makes_the_text_check_a_typed_busy_error() -> None:
    det = TextTurnDetector(_Generator(busy=True), wait_ms=40)  # type: ignore[arg-type]
    with pytest.raises(TurnModelBusyError, match="busy for 40 ms"):
        await det.check(b"", "What time is it")


# -- the combination ---------------------------------------------------------------------


def v(detector: str, p: float, note: str = "") -> TurnVerdict:
    return TurnVerdict(p >= 0.5, p, detector, 10.0, 12.0, note=note)


@pytest.mark.parametrize(
    ("audio", "text", "complete", "why"),
    [
        (0.1, 0.30, True, "text: clearly complete"),  # the text outweighs a flat synthetic intonation
        (0.97, 0.0004, False, "text: clearly unfinished"),  # "Could you tell me how to" said with a final fall
        (0.7, 0.015, True, "smart-turn decides (text uncertain)"),
        (0.3, 0.015, False, "smart-turn decides (text uncertain)"),
    ],
)
def test_the_text_decides_where_it_is_clear_and_smart_turn_in_between(audio: float, text: float, complete: bool, why: str) -> None:
    rule = CombinationRule(text_complete=0.03, text_incomplete=0.01, audio_threshold=0.5)
    assert rule.decide(v("smart-turn", audio), v("text", text)) == (complete, pytest.approx(text if "text:" in why else audio), why)


def test_without_a_transcript_smart_turn_decides_alone() -> None:
    rule = CombinationRule()
    assert rule.decide(v("smart-turn", 0.8), v("text", 0.0, NO_TRANSCRIPT))[:2] == (True, 0.8)
    assert rule.decide(v("smart-turn", 0.2), None)[:2] == (False, 0.2)


def test_an_inverted_or_out_of_range_rule_is_a_typed_error() -> None:
    with pytest.raises(CombinationRuleError, match="text_incomplete"):
        CombinationRule(text_complete=0.01, text_incomplete=0.05).validate()
    with pytest.raises(CombinationRuleError, match="audio_threshold"):
        CombinationRule(audio_threshold=1.5).validate()


class _Fixed:
    def __init__(self, name: str, verdict: TurnVerdict | BaseException) -> None:
        self._name = name
        self.verdict = verdict
        self.calls = 0

    @property
    def name(self) -> str:
        return self._name

    async def warm(self) -> None:
        pass

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdict:
        self.calls += 1
        if isinstance(self.verdict, BaseException):
            raise self.verdict
        return self.verdict


async def test_a_clear_text_verdict_ends_the_check_without_running_smart_turn() -> None:
    audio = _Fixed("smart-turn", v("smart-turn", 0.97))
    text = _Fixed("text", v("text", 0.0005))
    got = await CombinedDetector(audio, text).check(b"", "Could you tell me how to")
    assert (got.complete, got.probability, got.detector, got.note) == (False, 0.0005, "combined", "text: clearly unfinished")
    assert [p.detector for p in got.parts] == ["text"] and audio.calls == 0
    assert got.cost_ms == 10.0


async def test_an_uncertain_text_verdict_asks_smart_turn_and_keeps_both_parts() -> None:
    audio = _Fixed("smart-turn", v("smart-turn", 0.8))
    got = await CombinedDetector(audio, _Fixed("text", v("text", 0.02))).check(b"", "Is that the one")
    assert (got.complete, got.probability, got.note) == (True, 0.8, "smart-turn decides (text uncertain)")
    assert [p.detector for p in got.parts] == ["text", "smart-turn"] and got.cost_ms == 20.0


async def test_when_the_llm_is_busy_the_combined_check_falls_back_to_smart_turn_and_says_so() -> None:
    audio = _Fixed("smart-turn", v("smart-turn", 0.8))
    text = _Fixed("text", TurnModelBusyError("the llama.cpp model", 150))
    got = await CombinedDetector(audio, text).check(b"", "What time is it")
    assert got.complete and got.probability == 0.8
    assert "no text verdict" in got.note and "busy for 150 ms" in got.note
    assert [p.detector for p in got.parts] == ["smart-turn"]


async def test_a_broken_audio_model_is_not_hidden_by_the_combination() -> None:
    audio = _Fixed("smart-turn", TurnModelError("Smart Turn model x.onnx", "corrupt", "reinstall"))
    with pytest.raises(TurnModelError, match="corrupt"):
        await CombinedDetector(audio, _Fixed("text", v("text", 0.0, NO_TRANSCRIPT))).check(b"", None)
