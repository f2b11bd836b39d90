"""The devices the system has *now*, while Parley's own PortAudio keeps the list it scanned at start.

PortAudio enumerates devices once, when it is initialised, and re-initialising it closes every open stream, so a
running Parley cannot re-scan without cutting its microphone and speaker. :func:`fresh_device_names` asks a short
child process instead (``parley --list-devices --json``: a PortAudio of its own, started and ended there), which
sees a headset plugged in a moment ago. Blocking (about a quarter of a second): call it from a worker thread.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

from app.audio.backend import Direction
from app.audio.errors import AudioError

log = logging.getLogger(__name__)

TIMEOUT_S = 10.0


def list_command() -> list[str]:
    """How to start ``parley --list-devices --json`` from this process (the PyInstaller bundle, or Python)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--list-devices", "--json"]
    return [sys.executable, "-m", "app", "--list-devices", "--json"]


def fresh_device_names(direction: Direction, *, command: list[str] | None = None) -> list[str]:
    """Names of the ``direction`` devices as a fresh PortAudio lists them (each once, in index order).

    Raises :class:`~app.audio.errors.AudioError` when the child fails (the caller falls back to its own list)."""
    cmd = command or list_command()
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, env=dict(os.environ), check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise AudioError(f"listing the audio devices in a child process failed: {e}") from e
    if res.returncode != 0:
        raise AudioError(f"listing the audio devices in a child process failed ({res.returncode}): {res.stderr.strip()[-300:]}")
    try:
        rows = json.loads(res.stdout)["devices"]
        names = [str(r["name"]) for r in rows if r["direction"] == direction]
    except (ValueError, KeyError, TypeError) as e:
        raise AudioError(f"the child's device list is not the expected JSON: {e}") from e
    return list(dict.fromkeys(names))


__all__ = ["fresh_device_names", "list_command"]
