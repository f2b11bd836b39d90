"""The tray icon on a real X server with a tray host (Xvfb + trayer, an XEmbed system tray), and without one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def xvfb() -> Iterator[str]:
    if shutil.which("Xvfb") is None:
        pytest.skip("needs Xvfb (apt-get install xvfb)")
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "800x600x24", "-nolisten", "tcp"], pass_fds=(w,))
    os.close(w)
    with os.fdopen(r) as f:
        display = ":" + f.readline().strip()
    try:
        yield display
    finally:
        proc.terminate()
        proc.wait(5)


def _wait_for_tray_host(display: str, limit_s: float = 10.0) -> None:
    """Until some client owns the _NET_SYSTEM_TRAY_S0 selection (the tray host is ready)."""
    from Xlib import X
    from Xlib import display as xdisplay

    d = xdisplay.Display(display)
    try:
        atom = d.intern_atom("_NET_SYSTEM_TRAY_S0")
        deadline = time.monotonic() + limit_s
        while d.get_selection_owner(atom) == X.NONE:
            assert time.monotonic() < deadline, "the tray host did not start"
            time.sleep(0.05)
    finally:
        d.close()


def _child(display: str) -> dict[str, object]:
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT)}
    env.pop("WAYLAND_DISPLAY", None)
    res = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("tray_child.py"))], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_with_a_tray_host_the_icon_is_embedded_and_shows_the_state(xvfb: str) -> None:
    if shutil.which("trayer") is None:
        pytest.skip("needs a tray host (apt-get install trayer)")
    host = subprocess.Popen(["trayer", "--expand", "false", "--widthtype", "pixel", "--width", "200"], env={**os.environ, "DISPLAY": xvfb})
    try:
        _wait_for_tray_host(xvfb)
        got = _child(xvfb)
    finally:
        host.terminate()
        host.wait(5)
    assert got["available"] is True and got["icon"] is True
    assert got["visible"] is True and int(got["width"]) > 0 and int(got["height"]) > 0  # type: ignore[call-overload]
    assert got["tooltip"] == "Parley — Speaking"


def test_without_a_tray_host_there_is_no_icon_and_no_crash(xvfb: str) -> None:
    got = _child(xvfb)
    assert got == {"available": False, "icon": False}
