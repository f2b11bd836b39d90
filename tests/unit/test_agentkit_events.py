"""Event bus, modes and the echo helpers of the voice loop."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import shutil
import subprocess
import wave

import numpy as np
import pytest

from genx.agentkit.echo import EchoCanceller, FarEndTimeline, LevelMeter, Resampler16k, VadEchoFallback, try_echo_canceller
from genx.agentkit.events import (
    AssistantDone,
    Event,
    EventBus,
    InputLevel,
    LoopControl,
    LoopState,
    Mode,
    StateChanged,
    UserFinal,
)
from genx.agentkit.testing import energy_vad


def test_sync_subscribers_get_events_in_order_and_a_failing_one_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    got: list[Event] = []

    def bad(_e: Event) -> None:
        raise RuntimeError("subscriber bug")

    bus.subscribe(bad)
    unsub = bus.subscribe(got.append)
    e1 = UserFinal(turn_id="t1", text="hi")
    with caplog.at_level(logging.ERROR):
        bus.publish(e1)
    assert got == [e1]
    assert "subscriber" in caplog.text
    unsub()
    bus.publish(UserFinal(turn_id="t2", text="x"))
    assert got == [e1]


async def test_async_iteration_receives_later_events_and_ends_when_the_bus_closes() -> None:
    bus = EventBus()
    it = bus.events()
    received: list[Event] = []

    async def consume() -> None:
        async for e in it:
            received.append(e)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)
    bus.publish(StateChanged(state=LoopState.LISTENING, previous=LoopState.IDLE))
    bus.publish(InputLevel(dbfs=-30.0))
    bus.close()
    await asyncio.wait_for(task, 2)
    assert [type(e) for e in received] == [StateChanged, InputLevel]
    bus.publish(InputLevel(dbfs=-1.0))  # after close: dropped, no error


async def test_a_slow_async_consumer_loses_only_the_oldest_events_beyond_the_limit() -> None:
    bus = EventBus(max_queued=3)
    it = bus.events()
    for i in range(5):
        bus.publish(InputLevel(dbfs=float(-i)))
    bus.close()
    got = [e async for e in it]
    assert [e.dbfs for e in got if isinstance(e, InputLevel)] == [-2.0, -3.0, -4.0]


def test_events_are_frozen_slotted_dataclasses() -> None:
    e = AssistantDone(turn_id="t1", text="a b", interrupted=True, spoken_text="a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.text = "x"  # type: ignore[misc]
    assert not hasattr(e, "__dict__")


def test_mode_parse_accepts_common_spellings_and_names_the_valid_ones() -> None:
    assert Mode.parse("hands_free") is Mode.HANDS_FREE
    assert Mode.parse("PTT") is Mode.PUSH_TO_TALK
    with pytest.raises(ValueError, match="hands-free"):
        Mode.parse("loud")


def test_the_voice_loop_implements_loop_control() -> None:
    from genx.agentkit.loop import VoiceLoop
    from genx.agentkit.testing import Rig

    rig = Rig()
    assert isinstance(rig.loop, LoopControl)
    assert isinstance(rig.loop, VoiceLoop)


def test_far_end_timeline_places_samples_by_time_and_reads_zeros_elsewhere() -> None:
    tl = FarEndTimeline(keep=1.0)
    x = np.arange(1, 161, dtype=np.int16)
    tl.write(x, 10.0)
    assert np.array_equal(tl.read(10.0, 160), x)
    assert not tl.read(9.0, 160).any()
    part = tl.read(10.005, 160)  # 80 samples later
    assert np.array_equal(part[:80], x[80:]) and not part[80:].any()
    tl.write(np.full(16000, 7, dtype=np.int16), 10.01)  # pushes the start out of the 1 s window
    assert tl.read(10.0, 160)[:80].sum() == 0


def _speech_16k() -> np.ndarray:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    out = subprocess.run(
        ["espeak-ng", "--stdout", "-s", "170", "The quick brown fox jumps over the lazy dog, and then it runs far away into the forest."],
        capture_output=True,
        check=True,
    ).stdout
    w = wave.open(io.BytesIO(out))
    x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    rs = Resampler16k(w.getframerate())
    return rs(x.tobytes())


def test_echo_canceller_removes_a_delayed_echo_of_the_played_signal() -> None:
    ec = try_echo_canceller()
    if ec is None:
        pytest.skip("pywebrtc_audio unavailable")
    far = _speech_16k()
    delay = int(0.08 * 16000)  # acoustic + device delay beyond what the timeline says
    near = np.zeros(far.size + delay, dtype=np.float32)
    near[delay:] = far * 0.5
    near += np.random.default_rng(1).normal(0, 20, near.size).astype(np.float32)
    near16 = near.clip(-32768, 32767).astype(np.int16)
    block = 320
    out = []
    for i in range(0, near16.size - block, block):
        j = i + 1600  # the player hands audio out ~100 ms before it is audible
        if j < far.size:
            ec.played(far[j : j + block], j / 16000)
        if i == 0:
            ec.played(far[:1600], 0.0)
        out.append(np.frombuffer(ec.process(near16[i : i + block].tobytes(), i / 16000), dtype="<i2"))
    y = np.concatenate(out).astype(np.float64)
    n = near16[: y.size].astype(np.float64)
    tail = slice(2 * 16000, y.size)  # after convergence
    erle = 10 * np.log10((n[tail] ** 2).sum() / ((y[tail] ** 2).sum() + 1.0))
    assert erle > 20.0
    assert ec.stats.frames_with_far > 0


def test_echo_canceller_passes_near_speech_when_nothing_is_played() -> None:
    ec = try_echo_canceller()
    if ec is None:
        pytest.skip("pywebrtc_audio unavailable")
    speech = (_speech_16k() * 0.5).astype(np.int16)
    out = np.frombuffer(ec.process(speech.tobytes(), 100.0), dtype="<i2").astype(np.float64)
    x = speech[: out.size].astype(np.float64)
    ratio = 10 * np.log10((x**2).sum() / ((out**2).sum() + 1.0))
    assert ratio < 6.0  # at most a little high-pass loss


def test_echo_canceller_reports_unavailability_as_a_typed_error() -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *a: object, **k: object) -> object:
        if name == "pywebrtc_audio":
            raise ImportError("no module named pywebrtc_audio")
        return real_import(name, *a, **k)  # type: ignore[arg-type]

    builtins.__import__ = fake_import  # type: ignore[assignment]
    try:
        assert try_echo_canceller() is None
        from genx.agentkit.echo import EchoUnavailableError

        with pytest.raises(EchoUnavailableError, match="pywebrtc-audio"):
            EchoCanceller()
    finally:
        builtins.__import__ = real_import


def test_vad_fallback_makes_the_vad_stricter_while_speaking_and_restores_it() -> None:
    vad = energy_vad(300)
    before = vad.settings
    fb = VadEchoFallback(vad)
    fb.speaking(True)
    assert vad.settings.aggressiveness == 3 and vad.settings.min_energy_dbfs == -30.0 and vad.settings.onset_ratio == 0.8
    fb.speaking(False)
    assert vad.settings == before


def test_level_meter_publishes_the_peak_level_at_most_at_its_rate() -> None:
    m = LevelMeter(rate_hz=10)
    loud = (np.ones(160) * 16384).astype("<i2").tobytes()
    quiet = bytes(320)
    assert m.feed(quiet, 0.0) == -120.0
    assert m.feed(loud, 0.05) is None
    assert m.feed(quiet, 0.11) == pytest.approx(-6.0, abs=0.1)


def test_far_end_timeline_keeps_jittery_reports_continuous_and_follows_real_gaps() -> None:
    from genx.agentkit.echo import FRAME

    tl = FarEndTimeline(keep=5.0)
    rng = np.random.default_rng(3)
    blocks = [np.full(FRAME, k + 1, dtype=np.int16) for k in range(50)]
    t = 100.0
    for b in blocks:
        tl.played(b, t + float(rng.uniform(-0.02, 0.02)))  # reported times jitter by ±20 ms
        t += FRAME / 16000
    x = tl.read(100.0 - 0.1, 50 * FRAME + 3200)
    nz = x[x != 0]
    assert np.array_equal(nz, np.repeat(np.arange(1, 51, dtype=np.int16), FRAME))  # every block once, in order, no holes
    tl.played(np.full(FRAME, 99, dtype=np.int16), t + 0.5)  # a real gap (half a second later) re-anchors
    assert tl.read(t + 0.5, FRAME).tolist() == [99] * FRAME


def test_delay_estimator_finds_how_far_the_echo_lags_the_timeline() -> None:
    from genx.agentkit.echo import DelayEstimator

    far_sig = _speech_16k()
    tl = FarEndTimeline(keep=5.0)
    tl.write(far_sig[: 16000 * 4], 10.0)
    est = DelayEstimator(tl)
    d = int(0.12 * 16000)
    near = np.zeros(16000 * 4, dtype=np.int16)
    near[d:] = (far_sig[: 16000 * 4 - d] * 0.4).astype(np.int16)
    for i in range(0, near.size, 320):
        est.feed(near[i : i + 320], 10.0 + i / 16000)
        est.update()
    assert est.delay is not None and abs(est.delay - 0.12) < 0.003


def _gate_run(gate: object, far: FarEndTimeline, near: np.ndarray, t0: float, raw: np.ndarray | None = None) -> np.ndarray:
    out = []
    for i in range(0, near.size, 320):
        kw = {} if raw is None else {"raw": raw[i : i + 320].tobytes()}
        out.append(np.frombuffer(gate.process(near[i : i + 320].tobytes(), t0 + i / 16000, **kw), dtype="<i2"))  # type: ignore[attr-defined]
    return np.concatenate(out)


def _far_timeline(sig: np.ndarray, t0: float) -> FarEndTimeline:
    tl = FarEndTimeline(keep=30.0)
    tl.write(sig, t0)
    return tl


def test_echo_gate_silences_an_echo_and_lets_a_louder_user_through() -> None:
    from genx.agentkit.echo import EchoGate

    far_sig = np.tile(_speech_16k(), 2)
    tl = _far_timeline(far_sig, 0.0)
    gate = EchoGate(tl, confirm_s=0.4)
    echo = (far_sig * 0.3).astype(np.int16)  # about -10 dB
    n_learn = 16000 * 4
    y = _gate_run(gate, tl, echo[:n_learn], 0.0)
    assert gate.offset_db == pytest.approx(-10.5, abs=2.5)
    assert np.abs(y[16000 * 2 :]).max() == 0  # the echo alone never reaches the VAD
    user = (np.sin(np.arange(16000) * 2 * np.pi * 300 / 16000) * 20000).astype(np.int16)  # ~ -7 dBFS
    mix = (echo[n_learn : n_learn + 16000].astype(np.int32) + user).clip(-32768, 32767).astype(np.int16)
    y2 = _gate_run(gate, tl, mix, n_learn / 16000)
    first = y2[: int(0.35 * 16000)]  # before the gate would learn the (unconfirmed) user as echo
    assert np.count_nonzero(first) > 0.9 * first.size


def test_echo_gate_does_not_learn_the_audio_of_a_barge_in() -> None:
    from genx.agentkit.echo import EchoGate

    far_sig = np.tile(_speech_16k(), 2)
    tl = _far_timeline(far_sig, 0.0)
    gate = EchoGate(tl, confirm_s=0.4)
    _gate_run(gate, tl, (far_sig[: 16000 * 3] * 0.3).astype(np.int16), 0.0)
    before = gate.offset_db
    loud = (far_sig[16000 * 3 : 16000 * 3 + 6400].astype(np.int32) * 3).clip(-32768, 32767).astype(np.int16)  # the user, +10 dB
    _gate_run(gate, tl, loud, 3.0)
    gate.forget_recent()  # the loop calls this when that audio barged in
    _gate_run(gate, tl, (far_sig[16000 * 3 + 6400 : 16000 * 4] * 0.3).astype(np.int16), 3.4)
    assert gate.offset_db == pytest.approx(before, abs=1.0)


def test_echo_gate_raw_path_keeps_a_user_the_canceller_suppressed() -> None:
    from genx.agentkit.echo import EchoGate

    far_sig = np.tile(_speech_16k(), 2)
    tl = _far_timeline(far_sig, 0.0)
    gate = EchoGate(tl, confirm_s=0.4)
    n = 16000 * 3
    silent = np.zeros(n, dtype=np.int16)
    _gate_run(gate, tl, silent, 0.0, raw=silent)  # no echo at all
    user = (np.sin(np.arange(16000) * 2 * np.pi * 300 / 16000) * 8000).astype(np.int16)
    suppressed = (user * 0.001).astype(np.int16)  # what a suppressing canceller left of the user
    y = _gate_run(gate, tl, suppressed, 3.0, raw=user)
    first = y[: int(0.35 * 16000)]
    assert gate.passed_raw >= 30
    # the user's own level (about -15 dBFS) reached the VAD, not the canceller's -75 dBFS remains
    from genx.agentkit.echo import frame_db

    assert frame_db(first) > -20.0


def test_far_end_truncate_forgets_audio_that_playback_discarded() -> None:
    tl = FarEndTimeline()
    tl.write(np.full(1600, 5, dtype=np.int16), 1.0)  # 100 ms from t = 1.0
    tl.truncate(1.05)
    x = tl.read(1.0, 1600)
    assert (x[:800] == 5).all() and not x[800:].any()


def test_echo_gate_learns_nothing_while_held_and_learns_the_echo_again_after() -> None:
    from genx.agentkit.echo import EchoGate

    far_sig = np.tile(_speech_16k(), 3)
    tl = _far_timeline(far_sig, 0.0)
    gate = EchoGate(tl, confirm_s=0.4)
    _gate_run(gate, tl, (far_sig[: 16000 * 3] * 0.3).astype(np.int16), 0.0)  # the echo, about -10 dB
    before = gate.offset_db
    gate.hold_learning(True)  # the user talks over the (ducked) answer for 2 s, +10 dB over the far end
    loud = (far_sig[16000 * 3 : 16000 * 5].astype(np.int32) * 3).clip(-32768, 32767).astype(np.int16)
    _gate_run(gate, tl, loud, 3.0)
    assert gate.offset_db == pytest.approx(before, abs=1.0)
    gate.hold_learning(False)
    _gate_run(gate, tl, (far_sig[16000 * 5 : 16000 * 7] * 0.9).astype(np.int16), 5.0)  # a louder echo, -1 dB
    assert gate.offset_db > before + 5.0  # learning is back: the new echo level is learned
