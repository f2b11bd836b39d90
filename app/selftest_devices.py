"""The self-test's audio device checks: the sound library loads, the microphone and the speaker open and run.

No device at all is a skip with the reason (:class:`~app.selftest_runner.CheckSkipped`), not a failure.
Does not own: the other checks and the run (:mod:`app.selftest`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from app.selftest_runner import CheckSkipped
from genx.deadline import within


class DeviceChecks:
    """The device checks of :class:`app.selftest.SelfTest` (a mixin: it uses the run's arguments and settings)."""

    args: argparse.Namespace
    audio_backend: Any
    settings: Any

    async def check_portaudio(self) -> str:
        if self.audio_backend is not None:
            return "test backend"
        from app.audio.backend import load_backend

        await asyncio.to_thread(load_backend)
        sd = sys.modules["sounddevice"]
        version = sd.get_portaudio_version()[1]
        return f"{version} from {getattr(sd, '_libname', '?')}"

    async def check_audio_input(self) -> str:
        from app.audio import Capture, NoAudioDeviceError, PortAudioMissingError
        from genx.errors import Done

        spec = getattr(self.args, "input_device", None) or (self.settings.audio.input_device if self.settings else None)
        cap = Capture(spec, rate=16000, reopen=False, backend=self.audio_backend)
        try:
            stream = await cap.start()
            got = 0
            while got < 10:  # 200 ms of audio
                await within(stream.next(), 3.0)
                got += 1
        except NoAudioDeviceError as e:
            raise CheckSkipped(f"no device: {e}") from e
        except PortAudioMissingError:
            raise
        except Done as e:
            raise RuntimeError("the microphone stream ended at once") from e
        finally:
            await cap.stop()
        dev = cap.device
        fmt = cap.device_format
        return f"{dev.label() if dev else spec}: {got * 20} ms read" + (f" ({fmt.describe()})" if fmt else "")

    async def check_audio_output(self) -> str:
        from app.audio import NoAudioDeviceError, Player

        spec = getattr(self.args, "output_device", None) or (self.settings.audio.output_device if self.settings else None)
        player = Player(spec, reopen=False, backend=self.audio_backend)
        try:
            await player.start()
            await asyncio.sleep(0.2)  # the device runs (plays silence) for a moment
        except NoAudioDeviceError as e:
            raise CheckSkipped(f"no device: {e}") from e
        finally:
            await player.close()
        dev = player.device
        fmt = player.device_format
        return f"{dev.label() if dev else spec}: opened" + (f" ({fmt.describe()})" if fmt else "")


__all__ = ["DeviceChecks"]
