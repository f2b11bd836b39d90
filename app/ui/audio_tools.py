"""Device listing, a test tone and a microphone check for the settings dialog, over ``app.audio``.

Imports ``app.audio`` lazily: PortAudio is loaded the first time a device is listed, never at window start.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from genx.chunk import MessageChunk
from genx.deadline import within
from genx.ids import new_stream_id
from genx.stream import stream_of

log = logging.getLogger(__name__)

TONE_HZ = 660.0
TONE_RATE = 24000


def tone_pcm(seconds: float = 0.6, hz: float = TONE_HZ, rate: int = TONE_RATE, volume: float = 0.25) -> bytes:
    """A sine with 20 ms fades (no clicks), little-endian int16 mono."""
    import numpy as np

    n = int(seconds * rate)
    t = np.arange(n) / rate
    wave = np.sin(2 * math.pi * hz * t) * volume
    fade = min(n // 2, int(0.02 * rate))
    if fade:
        ramp = np.linspace(0.0, 1.0, fade)
        wave[:fade] *= ramp
        wave[-fade:] *= ramp[::-1]
    return (wave * 32767).astype("<i2").tobytes()


class RealAudioTools:
    """The settings dialog's :class:`~app.ui.settings_dialog.AudioTools` on real devices."""

    def list_devices(self, direction: str) -> list[str]:
        """The devices there are now (a child process's fresh PortAudio scan: hot-plugged ones included), else
        this process's PortAudio list (scanned at start)."""
        from app.audio import AudioError, list_devices
        from app.audio.fresh import fresh_device_names

        assert direction in ("input", "output")
        try:
            return fresh_device_names(direction)  # type: ignore[arg-type]
        except AudioError as e:
            log.info("%s; listing PortAudio's devices from its start", e)
        names: list[str] = []
        for d in list_devices(direction):  # type: ignore[arg-type]
            if d.name not in names:
                names.append(d.name)
        return names

    async def test_tone(self, device: str | None) -> None:
        from app.audio import Player

        sid = new_stream_id()
        mime = f"audio/L16; rate={TONE_RATE}; channels=1"
        player = Player(device)
        await player.start()
        try:
            player.play(stream_of(MessageChunk.bos(sid), MessageChunk.blob(mime, tone_pcm(), stream_id=sid), MessageChunk.eos(sid)))
            await within(player.drain(), 5.0)
        finally:
            await player.close()

    async def mic_check(self, device: str | None, on_level: Callable[[float], None], seconds: float) -> float:
        from app.audio import Capture
        from app.ui.presenter import level_from_dbfs

        capture = Capture(device)
        stream = await capture.start()
        peak = 0.0
        deadline = time.monotonic() + seconds
        try:
            while (left := deadline - time.monotonic()) > 0:
                try:
                    await within(stream.next(), min(left, 0.5))
                except TimeoutError:
                    continue
                level = level_from_dbfs(capture.level_dbfs)
                peak = max(peak, level)
                on_level(level)
        finally:
            await capture.stop()
        return peak
