"""The talk key through the XDG GlobalShortcuts portal: Parley's client against a stand-in portal on a private bus."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
pytest.importorskip("jeepney")

from fake_portal import FakePortal

from app.ui.portal_hotkey import PortalHotkey

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


@pytest.fixture
def bus() -> Iterator[str]:
    if shutil.which("dbus-daemon") is None:
        pytest.skip("needs dbus-daemon (apt-get install dbus)")
    proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    address = proc.stdout.readline().strip()
    try:
        yield address
    finally:
        proc.terminate()
        proc.wait(5)


async def _until(pred: Callable[[], bool], limit_s: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + limit_s
    while not pred():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_the_portal_binds_the_key_and_its_presses_in_any_window_are_one_hold_each(bus: str) -> None:
    portal = FakePortal(bus)
    log: list[str] = []
    active = [False, True, False]  # Parley's window at each press: elsewhere, active, elsewhere
    hk = PortalHotkey(lambda: log.append("down"), lambda: log.append("up"), window_active=lambda: active.pop(0))
    try:
        assert await hk.start("F9", address=bus) == ""
        assert portal.bound == [("push-to-talk", {"description": "Hold to talk to Parley", "preferred_trigger": "F9"})]
        portal.key(True)
        await _until(lambda: log == ["down"])
        portal.key(False)
        await _until(lambda: log == ["down", "up"])
        portal.key(True, shortcut="something-else")  # not ours
        portal.key(True)  # Parley's window is active: its own key filter has it
        portal.key(False)
        portal.key(True)  # in order on one connection: once this one is seen, the ones before it were handled
        await _until(lambda: len(log) == 3)
        assert log == ["down", "up", "down"] and active == []
    finally:
        await hk.stop()
        portal.close()


async def test_a_refused_shortcut_and_a_bus_without_the_portal_say_why(bus: str) -> None:
    hk = PortalHotkey(lambda: None, lambda: None, window_active=lambda: False)
    why = await hk.start("F9", address=bus)  # nobody owns the portal's name on this bus
    assert "no global shortcuts portal" in why and not hk.running
    portal = FakePortal(bus, refuse=True)
    try:
        why = await hk.start("F9", address=bus)
        assert "refused" in why and not hk.running
    finally:
        portal.close()
    assert "no D-Bus session bus" in await hk.start("F9", address="unix:path=/nonexistent/bus")


async def test_the_desktop_hotkey_uses_the_portal_on_wayland_and_says_window_only_without_it(
    bus: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ui.global_hotkey import GlobalHotkey, Support

    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus)
    log: list[str] = []
    hk = GlobalHotkey(lambda: log.append("down"), lambda: log.append("up"), window_active=lambda: False)
    why = await hk.start_desktop("Space", Support("portal"))  # nobody offers the portal yet
    assert "no global shortcuts portal" in why and hk.status.startswith("window only") and not hk.running
    portal = FakePortal(bus)
    try:
        assert await hk.start_desktop("Space", Support("portal")) == ""  # any key: the desktop takes it from other windows
        assert hk.running and "global shortcuts portal" in hk.status
        portal.key(True)
        portal.key(False)
        await _until(lambda: log == ["down", "up"])
    finally:
        await hk.aclose()
        portal.close()
    assert not hk.running
