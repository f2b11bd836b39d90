"""Microphones that come and go on the PulseAudio test server: the default stands in for a chosen one until it is
there; "System default" follows the desktop's default; the settings list shows devices plugged in meanwhile.

The "headset" is a PulseAudio source loaded and unloaded with pactl (as a USB headset appears and disappears),
reachable through its own ALSA PCM; the system default is the test server's parley_mic. Speech-like tones are
played into the headset's sink and into the default microphone's, so each phase checks which one is heard.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import MIC_SINK, PulseServer, tone

from app.audio import AudioEvent, Capture, rescan
from genx.chunk import Blob, MessageChunk

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.timeout(120)]

HEADSET = "parley_headset"  # the ALSA PCM name Parley is told to use
HEADSET_SINK = "parley_headset_sink"  # what plays "into" the headset
HEADSET_SOURCE = "parley_headset_src"


@pytest.fixture
def headset(pulse_env: PulseServer) -> Iterator[Callable[[bool], None]]:
    """``plug(True)`` loads the headset's sink and source, ``plug(False)`` unloads them; its ALSA PCM always exists."""
    conf = pulse_env.alsa_conf
    original = conf.read_text()
    conf.write_text(original + f'pcm.{HEADSET} {{\n    type pulse\n    device "{HEADSET_SOURCE}"\n}}\n')
    rescan()  # PortAudio reads the ALSA configuration when it scans (no stream is open here)
    modules: list[str] = []

    def plug(on: bool) -> None:
        if on:
            modules.append(pulse_env.pactl("load-module", "module-null-sink", f"sink_name={HEADSET_SINK}", "rate=48000 channels=1").strip())
            modules.append(
                pulse_env.pactl(
                    "load-module", "module-remap-source", f"source_name={HEADSET_SOURCE}", f"master={HEADSET_SINK}.monitor", "channels=1"
                ).strip()
            )
        else:
            while modules:
                pulse_env.pactl("unload-module", modules.pop())

    try:
        yield plug
    finally:
        plug(False)
        conf.write_text(original)
        rescan()


async def _collect(cap: Capture, into: list[MessageChunk]) -> None:
    async for c in cap.stream:
        into.append(c)


def _peak(chunks: list[MessageChunk]) -> int:
    data = b"".join(c.part.data for c in chunks if isinstance(c.part, Blob))
    return int(np.abs(np.frombuffer(data, dtype="<i2").astype(np.int32)).max()) if data else 0


async def _wait_event(events: list[AudioEvent], kind: str, limit_s: float) -> AudioEvent:
    deadline = time.monotonic() + limit_s
    while True:
        hit = next((e for e in events if e.kind == kind), None)
        if hit is not None:
            return hit
        assert time.monotonic() < deadline, f"no {kind!r} event; events: {[(e.kind, e.message) for e in events]}"
        await asyncio.sleep(0.05)


async def _heard_from(pulse_env: PulseServer, sink: str, chunks: list[MessageChunk]) -> int:
    """Play a tone into ``sink``; the capture's peak level over it."""
    before = len(chunks)
    pb = pulse_env.play_into(sink, tone(600, 0.4))
    await asyncio.to_thread(pb.wait)
    await asyncio.sleep(0.3)
    return _peak(chunks[before:])


async def test_a_headset_plugged_in_while_parley_runs_replaces_the_default_microphone_it_stood_in_for(
    pulse_env: PulseServer, headset: Callable[[bool], None]
) -> None:
    events: list[AudioEvent] = []
    chunks: list[MessageChunk] = []
    cap = Capture(HEADSET, backoff=(0.2, 0.5))  # chosen in the settings, not plugged in yet
    cap.add_listener(events.append)
    await cap.start()
    assert cap._link is not None
    cap._link.return_interval = 0.5
    reader = asyncio.create_task(_collect(cap, chunks))
    try:
        fallback = await _wait_event(events, "fallback", 5)
        assert f"{HEADSET} is not available" in fallback.message and "system default microphone" in fallback.message
        assert cap.device is not None and cap.device.name == "default"
        assert await _heard_from(pulse_env, MIC_SINK, chunks) > 3000  # the default microphone is heard meanwhile

        headset(True)  # plugged in
        returned = await _wait_event(events, "returned", 15)
        assert HEADSET in returned.message
        assert cap.device is not None and cap.device.name == HEADSET
        assert await _heard_from(pulse_env, HEADSET_SINK, chunks) > 3000
        assert await _heard_from(pulse_env, MIC_SINK, chunks) < 300  # ... and no longer the default

        # Unplugged while in use: PulseAudio itself moves the recording to the default source (no loss reaches
        # PortAudio), so the microphone keeps working; Parley's own fallback covers devices whose loss it sees.
        headset(False)
        await asyncio.sleep(1.0)
        assert await _heard_from(pulse_env, MIC_SINK, chunks) > 3000
    finally:
        await cap.stop()
        await reader


async def test_the_settings_list_shows_a_device_that_appeared_after_portaudio_started_while_the_microphone_is_open(
    pulse_env: PulseServer,
) -> None:
    from app.audio import list_devices
    from app.ui.audio_tools import RealAudioTools

    conf = pulse_env.alsa_conf
    original = conf.read_text()
    cap = Capture(None)
    await cap.start()  # a stream is open: this process's PortAudio cannot re-scan now
    try:
        conf.write_text(original + 'pcm.parley_new_headset {\n    type pulse\n    device "parley_mic"\n}\n')  # plugged in
        tools = RealAudioTools()
        assert "parley_new_headset" not in {d.name for d in list_devices("input")}  # the list PortAudio scanned at start
        assert "parley_new_headset" in await asyncio.to_thread(tools.list_devices, "input")
        conf.write_text(original)  # unplugged again
        assert "parley_new_headset" not in await asyncio.to_thread(tools.list_devices, "input")
        assert cap.state == "running"
    finally:
        conf.write_text(original)
        await cap.stop()


async def test_following_the_system_default_switches_when_the_default_microphone_changes(
    pulse_env: PulseServer, headset: Callable[[bool], None]
) -> None:
    headset(True)
    chunks: list[MessageChunk] = []
    cap = Capture(None)  # "System default" in the settings
    await cap.start()
    reader = asyncio.create_task(_collect(cap, chunks))
    try:
        assert await _heard_from(pulse_env, MIC_SINK, chunks) > 3000
        pulse_env.pactl("set-default-source", HEADSET_SOURCE)  # the user picks the headset in the desktop's sound settings
        levels = [await _heard_from(pulse_env, HEADSET_SINK, chunks)]
        while levels[-1] <= 3000 and len(levels) < 5:  # the server moves the stream within a moment
            levels.append(await _heard_from(pulse_env, HEADSET_SINK, chunks))
        assert levels[-1] > 3000, levels
        assert await _heard_from(pulse_env, MIC_SINK, chunks) < 300
    finally:
        pulse_env.pactl("set-default-source", "parley_mic")
        await cap.stop()
        await reader
