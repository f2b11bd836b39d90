"""libasound's own error lines (``ALSA lib …``) never reach the user's terminal once PortAudio is loaded."""

from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or ctypes.util.find_library("asound") is None, reason="libasound is Linux-only"
)

# Opens a PCM that does not exist: libasound reports it through its error handler ("Unknown PCM …").
_PROBE = """
import ctypes, sys
if sys.argv[1] == "parley":
    from app.audio.backend import load_backend
    load_backend()
lib = ctypes.CDLL("libasound.so.2")
pcm = ctypes.c_void_p()
rc = lib.snd_pcm_open(ctypes.byref(pcm), b"parley_no_such_pcm", 0, 0)
from app.audio.alsa import suppressed_count
print("rc", rc, "suppressed", suppressed_count())
"""


def _probe(mode: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "PARLEY_ALSA_DEBUG"}
    full.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, timeout=60, env=full, cwd=ROOT)


def test_without_parley_the_probe_makes_libasound_print_an_error_line() -> None:
    res = _probe("bare")
    assert res.returncode == 0, res.stderr
    assert "ALSA lib" in res.stderr and "parley_no_such_pcm" in res.stderr  # the probe really triggers ALSA's handler


def test_loading_the_audio_backend_silences_libasound_error_lines() -> None:
    pytest.importorskip("sounddevice")
    res = _probe("parley")
    assert res.returncode == 0, res.stderr
    assert "ALSA lib" not in res.stderr, res.stderr
    rc, count = res.stdout.split()[1], int(res.stdout.split()[3])
    assert int(rc) < 0 and count >= 1  # the open failed and its message was counted, not printed


def test_parley_alsa_debug_keeps_libasound_error_lines() -> None:
    pytest.importorskip("sounddevice")
    res = _probe("parley", PARLEY_ALSA_DEBUG="1")
    assert "ALSA lib" in res.stderr and "parley_no_such_pcm" in res.stderr
