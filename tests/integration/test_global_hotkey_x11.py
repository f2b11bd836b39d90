"""The global talk key on a real X server: Xvfb, another application's window focused, XTEST key events.

The key events are synthesized by the X server's XTEST extension (as a keyboard would send them) while an
``xev`` window has the input focus; Parley's listener (pynput over XRecord) must see them anyway.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from app.ui.global_hotkey import GlobalHotkey, Support

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(60),
    # pynput connects to the display when imported: only look for it here
    pytest.mark.skipif(importlib.util.find_spec("pynput") is None, reason="pip install pynput"),
]


@pytest.fixture
def xserver(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if shutil.which("Xvfb") is None or shutil.which("xev") is None:
        pytest.skip("needs Xvfb and xev (apt-get install xvfb x11-utils)")
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "640x480x24", "-nolisten", "tcp"], pass_fds=(w,))
    os.close(w)
    with os.fdopen(r) as f:
        display = ":" + f.readline().strip()
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    other = subprocess.Popen(["xev", "-display", display, "-geometry", "300x200+0+0"], stdout=subprocess.DEVNULL)
    try:
        yield display
    finally:
        other.terminate()
        other.wait(5)
        proc.terminate()
        proc.wait(5)


def _focus_other_window_and_type(display: str, key: str, repeats: int) -> None:
    """Give the xev window the focus, then press ``key``, auto-repeat it ``repeats`` times and release it."""
    import time

    from Xlib import XK, X
    from Xlib import display as xdisplay
    from Xlib.ext import xtest

    d = xdisplay.Display(display)
    root = d.screen().root
    deadline = time.monotonic() + 10
    wins: list = []
    while not wins and time.monotonic() < deadline:
        wins = [c for c in root.query_tree().children if c.get_attributes().map_state == X.IsViewable]
        time.sleep(0.05)
    assert wins, "the other application's window did not appear"
    d.set_input_focus(wins[0], X.RevertToParent, X.CurrentTime)
    d.sync()
    assert d.get_input_focus().focus == wins[0]
    kc = d.keysym_to_keycode(XK.string_to_keysym(key))
    xtest.fake_input(d, X.KeyPress, kc)
    d.sync()
    for _ in range(repeats):  # what X11 auto-repeat sends while the key is held
        time.sleep(0.03)
        xtest.fake_input(d, X.KeyRelease, kc)
        xtest.fake_input(d, X.KeyPress, kc)
        d.sync()
    time.sleep(0.05)
    xtest.fake_input(d, X.KeyRelease, kc)
    d.sync()
    d.close()


async def _wait(pred: object, limit_s: float) -> None:
    deadline = asyncio.get_running_loop().time() + limit_s
    while not pred():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_the_talk_key_held_in_another_window_is_one_push_to_talk_hold(xserver: str) -> None:
    log: list[str] = []
    hk = GlobalHotkey(lambda: log.append("down"), lambda: log.append("up"), window_active=lambda: False)
    assert hk.start("F9", Support("x11")) == ""
    try:
        assert await asyncio.to_thread(hk.wait_ready)
        await asyncio.to_thread(_focus_other_window_and_type, xserver, "F9", 5)
        await _wait(lambda: log == ["down", "up"], 5)
        await asyncio.sleep(0.2)
        assert log == ["down", "up"]
        assert "every window" in hk.status
    finally:
        hk.stop()


async def test_other_keys_and_an_active_parley_window_do_not_trigger_it(xserver: str) -> None:
    log: list[str] = []
    active = [True]
    hk = GlobalHotkey(lambda: log.append("down"), lambda: log.append("up"), window_active=lambda: active[0])
    assert hk.start("F9", Support("x11")) == ""
    try:
        assert await asyncio.to_thread(hk.wait_ready)
        await asyncio.to_thread(_focus_other_window_and_type, xserver, "F8", 0)
        await asyncio.to_thread(_focus_other_window_and_type, xserver, "F9", 0)  # Parley's window handles it itself
        await asyncio.sleep(0.3)
        assert log == []
        active[0] = False
        await asyncio.to_thread(_focus_other_window_and_type, xserver, "F9", 0)
        await _wait(lambda: log == ["down", "up"], 5)
    finally:
        hk.stop()


async def test_a_typing_key_is_refused_for_global_use_with_the_reason(xserver: str) -> None:
    hk = GlobalHotkey(lambda: None, lambda: None, window_active=lambda: False)
    why = hk.start("Space", Support("x11"))
    assert "types into other applications" in why
    assert not hk.running and hk.status.startswith("window only")
