"""Audio devices at the edges of Parley: sounddevice/PortAudio capture and playback.

Owns: listing and choosing input/output devices (:mod:`app.audio.devices`),
opening them with rate/channel negotiation and soxr resampling, the microphone
capture that turns PortAudio blocks into a genx Stream of ``audio/L16`` chunks
(:mod:`app.audio.capture`), the pull-based player that plays genx audio routes
and reports how many samples of each route reached the device
(:mod:`app.audio.player`, its parts in ``app.audio.player_*``), reopening a device that vanished or standing the default in for it
(:mod:`app.audio.link`, its events in :mod:`app.audio.events`), the devices there are now
(:mod:`app.audio.fresh`, a child process's scan),
the typed errors of all that (:mod:`app.audio.errors`), ``parley --list-devices``
(:mod:`app.audio.cli`) and keeping libasound's own error lines off the terminal
(:mod:`app.audio.alsa`).

Does not own: VAD, ASR, TTS, turn-taking, barge-in decisions or history: those
are the device-free voice loop in ``genx``. ``import app.audio`` never loads
PortAudio; the library is loaded on first use (:func:`app.audio.backend.load_backend`).
"""

from app.audio.capture import Capture
from app.audio.devices import DeviceInfo, find_device, list_devices, rescan
from app.audio.errors import AudioDeviceError, AudioError, AudioFormatError, NoAudioDeviceError, PortAudioMissingError
from app.audio.link import AudioEvent
from app.audio.player import PlayedPosition, Player

__all__ = [
    "AudioDeviceError",
    "AudioError",
    "AudioEvent",
    "AudioFormatError",
    "Capture",
    "DeviceInfo",
    "NoAudioDeviceError",
    "PlayedPosition",
    "Player",
    "PortAudioMissingError",
    "find_device",
    "list_devices",
    "rescan",
]
