"""app.audio on real PortAudio devices: the private PulseAudio server's virtual speaker and microphone.

Measured numbers are printed (run with ``-s`` to see them); only generous bounds are asserted.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from pulse import MIC_SOURCE, PA_MIC, PA_SPEAKER, PA_SPEAKER_MONITOR, SPEAKER_MONITOR, PulseServer, loud_span, tone, window_rms_dbfs

from app.audio import AudioDeviceError, AudioEvent, Capture, PlayedPosition, Player, find_device, list_devices
from app.audio.pcm import l16_mime
from genx.chunk import Blob, MessageChunk
from genx.stream import StreamBuilder

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.timeout(120)]

TTS_RATE = 22050


def tts_stream(sid: str, pcm: np.ndarray, rate: int = TTS_RATE, chunk_s: float = 0.2) -> StreamBuilder:
    """A finished stream shaped like TTS output: BOS, audio chunks, EOS on one route."""
    b = StreamBuilder()
    mime = l16_mime(rate)
    b.push(MessageChunk.bos(sid, Blob(mime, b"")))
    data = pcm.astype("<i2").tobytes()
    step = int(rate * chunk_s) * 2
    for i in range(0, len(data), step):
        b.push(MessageChunk.blob(mime, data[i : i + step], stream_id=sid))
    b.push(MessageChunk.eos(sid, Blob(mime, b"")))
    b.done()
    return b


def dominant_hz(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x.astype(np.float64)))
    return float(np.argmax(spectrum) * rate / len(x))


async def collect_chunks(cap: Capture, into: list[MessageChunk]) -> None:
    async for c in cap.stream:
        into.append(c)


def pcm_of(chunks: list[MessageChunk]) -> np.ndarray:
    return np.frombuffer(b"".join(c.part.data for c in chunks if isinstance(c.part, Blob)), dtype="<i2")


def test_device_listing_shows_the_virtual_devices(pulse_env: PulseServer) -> None:
    names = {d.name for d in list_devices()}
    assert {PA_SPEAKER, PA_MIC, PA_SPEAKER_MONITOR, "default"} <= names
    assert find_device(PA_SPEAKER, "output").max_output_channels > 0
    assert find_device(None, "input").name == "default"  # the server default source is parley_mic
    assert MIC_SOURCE in pulse_env.pactl("get-default-source")


def test_unknown_device_name_error_names_the_virtual_devices(pulse_env: PulseServer) -> None:
    with pytest.raises(AudioDeviceError) as e:
        find_device("Studio Monitor 3000", "output")
    assert "'Studio Monitor 3000'" in str(e.value) and PA_SPEAKER in str(e.value)


async def test_unknown_device_in_player_start_is_a_typed_error(pulse_env: PulseServer) -> None:
    with pytest.raises(AudioDeviceError, match="no output device matches"):
        await Player("no such speaker").start()


async def test_tone_played_through_the_player_is_heard_on_the_speaker_monitor(pulse_env: PulseServer) -> None:
    rec = pulse_env.record(SPEAKER_MONITOR, rate=16000)
    ends: list[PlayedPosition] = []
    async with Player(PA_SPEAKER) as player:
        player.on_route_end(ends.append)
        await asyncio.sleep(0.2)
        t_play = time.monotonic()
        player.play(tts_stream("answer", tone(440, 1.0, TTS_RATE)).stream)
        await asyncio.wait_for(player.drain(), 10)
        await asyncio.sleep(0.2)
        latency = player.latency
    x = rec.stop()
    span = loud_span(x, 16000)
    assert span is not None, "nothing audible on the speaker monitor"
    onset = rec.time_of(span[0]) - t_play
    duration = (span[1] - span[0]) / 16000
    print(f"\n[player→monitor] onset after play(): {onset * 1000:.0f} ms, loud {duration * 1000:.0f} ms, latency {latency * 1000:.0f} ms")
    assert 0.9 <= duration <= 1.1
    assert abs(dominant_hz(x[span[0] : span[1]], 16000) - 440) < 5
    assert -0.05 < onset < 0.5
    assert [(e.stream_id, e.samples_played, e.interrupted) for e in ends] == [("answer", TTS_RATE, False)]


async def test_speech_played_into_the_mic_arrives_through_capture(pulse_env: PulseServer, tmp_path: Path) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (apt-get install espeak-ng)")
    wav = tmp_path / "question.wav"
    await asyncio.to_thread(subprocess.run, ["espeak-ng", "-w", str(wav), "What is the weather like tomorrow in Lisbon?"], check=True)
    with wave.open(str(wav)) as w:
        rate = w.getframerate()
        sent = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    chunks: list[MessageChunk] = []
    async with Capture(PA_MIC) as cap:
        reader = asyncio.create_task(collect_chunks(cap, chunks))
        await asyncio.sleep(0.3)
        playback = pulse_env.play_into_mic(wav)
        await asyncio.to_thread(playback.wait)
        await asyncio.sleep(0.4)
    await asyncio.wait_for(reader, 5)
    got = pcm_of(chunks)
    assert {c.content_size() for c in chunks} == {640}
    # Energy envelopes (10 ms windows) of what was sent and what the mic heard, aligned by cross-correlation.
    env_sent = window_rms_dbfs(sent, rate)
    env_got = window_rms_dbfs(got, 16000)
    a = np.maximum(env_sent, -60.0)
    a -= a.mean()
    b = np.maximum(env_got, -60.0)
    b -= b.mean()
    corr = np.correlate(b, a, mode="valid")
    lag = int(np.argmax(corr))
    match = float(corr[lag] / (np.linalg.norm(a) * np.linalg.norm(b[lag : lag + len(a)]) + 1e-9))
    t_first_chunk = chunks[0].timestamp / 1000
    onset = t_first_chunk + lag * 0.010 - playback.started_at
    gaps = sum(1 for c in chunks if c.meta)
    print(
        f"\n[paplay→capture] envelope match {match:.2f}, speech onset {onset * 1000:.0f} ms after paplay started, "
        f"overflows {cap.overflows}, discontinuities {gaps}"
    )
    assert match > 0.75
    assert -0.05 < onset < 0.6
    assert np.max(np.abs(got)) > 3000


async def test_stop_silences_the_speaker_quickly_and_heard_matches_the_recording(pulse_env: PulseServer) -> None:
    results = []
    for mode in ("abort", "zeros"):
        rec = pulse_env.record(SPEAKER_MONITOR, rate=16000)
        events: list[AudioEvent] = []
        async with Player(PA_SPEAKER, stop_mode=mode) as player:  # type: ignore[arg-type]
            player.add_listener(events.append)
            await asyncio.sleep(0.2)
            player.play(tts_stream("long", tone(300, 3.0, TTS_RATE)).stream)
            await asyncio.sleep(0.7)
            t_stop = time.monotonic()
            positions = await player.stop(discard=True)
            await asyncio.sleep(0.4)
        x = rec.stop()
        span = loud_span(x, 16000, threshold_dbfs=-50)
        assert span is not None
        silent_after = rec.time_of(span[1]) - t_stop
        loud_ms = 10.0 * float(np.sum(window_rms_dbfs(x, 16000) > -50))  # audible time (underrun gaps excluded)
        pos = positions["long"]
        results.append((mode, silent_after, loud_ms, pos))
        print(
            f"\n[stop/{mode}] silent {silent_after * 1000:.0f} ms after stop(); loud {loud_ms:.0f} ms; "
            f"played {pos.played_ms:.0f} ms, heard estimate {pos.heard_ms:.0f} ms"
        )
        assert silent_after < 0.5
        assert [e.kind for e in events if e.kind in ("device_lost", "reopened")] == []  # our own abort is not a device loss
        assert pos.interrupted and pos.samples_heard <= pos.samples_played < TTS_RATE * 3
        assert abs(pos.heard_ms - loud_ms) < 150
        assert window_rms_dbfs(x[span[1] :], 16000).max(initial=-100) < -50  # and it stays silent


async def test_loopback_round_trip_from_player_to_capture(pulse_env: PulseServer) -> None:
    trips = []
    chunks: list[MessageChunk] = []
    async with Capture(PA_SPEAKER_MONITOR, chunk_ms=10) as cap, Player(PA_SPEAKER) as player:
        reader = asyncio.create_task(collect_chunks(cap, chunks))
        firsts: list[PlayedPosition] = []
        player.on_played(lambda p: firsts.append(p) if p.samples_played and not firsts else None)
        await asyncio.sleep(0.3)
        for i in range(5):
            firsts.clear()
            start = len(chunks)
            t_play = time.monotonic()
            player.play(tts_stream(f"click{i}", tone(1000, 0.1, TTS_RATE)).stream)
            await asyncio.wait_for(player.drain(), 5)
            await asyncio.sleep(0.25)
            loud = [c for c in chunks[start:] if isinstance(c.part, Blob) and np.abs(np.frombuffer(c.part.data, dtype="<i2")).max() > 3000]
            assert loud, f"click {i} not captured"
            trips.append((loud[0].timestamp / 1000 - t_play, firsts[0].audible_at - t_play))
        capture_latency = cap.latency
        await cap.stop()
        await reader
    rt = sorted(t for t, _ in trips)
    est = sorted(e for _, e in trips)
    print(
        f"\n[loopback] play() → captured onset: median {np.median(rt) * 1000:.0f} ms (min {rt[0] * 1000:.0f}, max {rt[-1] * 1000:.0f}); "
        f"player's audible_at estimate: median {np.median(est) * 1000:.0f} ms; capture latency {capture_latency * 1000:.0f} ms"
    )
    assert 0 < np.median(rt) < 0.5


async def test_capture_reports_device_loss_and_reopens_after_the_server_restarts(pulse_env: PulseServer) -> None:
    events: list[AudioEvent] = []
    chunks: list[MessageChunk] = []
    cap = Capture(PA_MIC, backoff=(0.2, 1.0))
    cap.add_listener(events.append)
    await cap.start()
    reader = asyncio.create_task(collect_chunks(cap, chunks))
    try:
        await asyncio.sleep(0.3)
        assert chunks, "no audio before the loss"
        n_at_kill = len(chunks)
        pulse_env.kill()
        t_kill = time.monotonic()
        while not any(e.kind == "device_lost" for e in events):
            assert time.monotonic() - t_kill < 5, "device loss not reported"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        assert cap.state == "lost"
        t_restart = time.monotonic()
        await asyncio.to_thread(pulse_env.start)
        # the chosen microphone opens again: at once ("reopened"), or after a stretch on the system default while
        # the restarted server had not yet loaded it ("fallback", then "returned")
        back = ("reopened", "returned")
        while cap.state != "running" or not any(e.kind in back for e in events):
            assert time.monotonic() - t_restart < 20, f"capture not reopened; events: {[e.kind for e in events]}"
            await asyncio.sleep(0.05)
        lost_at = next(e.at for e in events if e.kind == "device_lost")
        reopened_at = next(e.at for e in events if e.kind in back)
        print(
            f"\n[device loss] reported {(lost_at - t_kill) * 1000:.0f} ms after the kill; "
            f"reopened {reopened_at - t_restart:.2f} s after the server restart began"
        )
        before = len(chunks)
        playback = pulse_env.play_into_mic(tone(700, 0.5))
        await asyncio.to_thread(playback.wait)
        await asyncio.sleep(0.3)
        after = pcm_of(chunks[before:])
        assert np.abs(after).max() > 3000, "audio after the reopen did not arrive"
        assert chunks[n_at_kill:] and chunks[n_at_kill].meta == {"discontinuity": True}  # the first chunk after the gap
    finally:
        await cap.stop()
        await reader
        if not pulse_env.running:
            pulse_env.start()
