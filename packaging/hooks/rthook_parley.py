"""PyInstaller runtime hook of Parley's bundle: runs before the app's first import.

1. PortAudio: sounddevice finds its library with ``ctypes.util.find_library("portaudio")``,
   which on Linux asks ``ldconfig``; the bundled ``libportaudio.so.2`` is not in its cache,
   so the lookup is pointed at the copy inside the bundle (a target machine needs no
   ``libportaudio2`` package). Other names keep the system lookup.
2. PyAV is not bundled (≈100 MB of FFmpeg): faster-whisper imports ``av`` at import time but
   uses it only to decode audio *files*; Parley always hands it PCM arrays. A stand-in module
   makes the import succeed and any use raise an error that says why.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
import types

_BUNDLE = getattr(sys, "_MEIPASS", os.path.dirname(os.path.abspath(sys.executable)))
_system_find_library = ctypes.util.find_library


def _bundled_portaudio() -> str | None:
    for name in ("libportaudio.so.2", *sorted(n for n in os.listdir(_BUNDLE) if n.startswith("libportaudio.so"))):
        path = os.path.join(_BUNDLE, name)
        if os.path.isfile(path):
            return path
    return None


def _find_library(name: str) -> str | None:
    if name == "portaudio":
        bundled = _bundled_portaudio()
        if bundled is not None:
            return bundled
    return _system_find_library(name)


ctypes.util.find_library = _find_library


class _NoPyAV(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ModuleNotFoundError(
            f"PyAV (av.{name}) is not part of the Parley bundle: decoding audio files is not supported here; "
            "Parley passes raw PCM to speech recognition. Install Parley with pip to use audio files.",
            name="av",
        )


if "av" not in sys.modules:
    sys.modules["av"] = _NoPyAV("av", "stand-in for PyAV in the Parley bundle (not included)")
