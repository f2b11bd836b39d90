"""Typed errors of the audio edge; every message says what went wrong and what the user can do."""

from __future__ import annotations

from genx.errors import GenxError

PORTAUDIO_FIX = (
    "install the PortAudio library: 'sudo apt install libportaudio2' (Debian/Ubuntu), "
    "'sudo dnf install portaudio' (Fedora), 'sudo pacman -S portaudio' (Arch) or 'brew install portaudio' (macOS), "
    "then 'pip install --force-reinstall sounddevice'"
)


class AudioError(GenxError):
    """Base of the audio-edge errors."""


class AudioDeviceError(AudioError):
    """A device could not be found, opened or kept running."""


class NoAudioDeviceError(AudioDeviceError):
    """There is no input (or output) device at all."""

    def __init__(self, direction: str, detail: str = "") -> None:
        self.direction = direction
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"no audio {direction} device found{extra}: connect a {'microphone' if direction == 'input' else 'speaker or headphones'}, "
            "check that PulseAudio/PipeWire is running (pactl info) and that this user may use audio devices, "
            "then run 'parley --list-devices'"
        )


class PortAudioMissingError(AudioDeviceError):
    """sounddevice could not load the PortAudio shared library (or is not installed)."""

    def __init__(self, cause: BaseException | str = "") -> None:
        self.cause = cause
        super().__init__(f"PortAudio is not available ({cause}); {PORTAUDIO_FIX}")


class AudioFormatError(AudioError):
    """Audio of a MIME type the player cannot play (only ``audio/L16`` PCM is played)."""

    def __init__(self, mime: str, detail: str = "") -> None:
        self.mime = mime
        extra = f": {detail}" if detail else ""
        super().__init__(
            f"cannot play audio of type {mime!r}{extra}; the player takes 'audio/L16; rate=<Hz>; channels=<n>' "
            "(decode other formats before the player)"
        )
