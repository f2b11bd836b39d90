"""The global talk key's pure parts: what the session allows, which keys qualify, auto-repeat → one hold."""

from __future__ import annotations

from collections.abc import Callable

from app.ui.global_hotkey import HoldDebounce, Support, global_key_problem, global_support


def test_wayland_asks_the_portal_when_there_is_a_session_bus_and_is_window_only_without_one() -> None:
    with_bus = global_support({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/bus"})
    assert with_bus == Support("portal")
    no_bus = global_support({"XDG_SESSION_TYPE": "wayland", "XDG_RUNTIME_DIR": "/nonexistent"})
    assert no_bus.backend == "" and "Wayland" in no_bus.why_not and "window is active" in no_bus.why_not
    none = global_support({})
    assert none.backend == "" and "no X11 display" in none.why_not


def test_an_x11_session_with_pynput_uses_the_x11_listener() -> None:
    assert global_support({"DISPLAY": ":5", "XDG_SESSION_TYPE": "x11"}).backend == "x11"


def test_only_keys_that_type_nothing_may_be_global() -> None:
    for ok in ("F9", "f12", "Pause", "ScrollLock", "Insert", "F24"):
        assert global_key_problem(ok) == "", ok
    for typing in ("Space", "T", "1", "Return", "Tab"):
        assert "types into other applications" in global_key_problem(typing), typing


class _Later:
    """call_later stand-in: callbacks run when the test says time has passed."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[[], None], _Handle]] = []
        self.now = 0.0

    def __call__(self, delay: float, cb: Callable[[], None]) -> _Handle:
        h = _Handle()
        self.pending.append((self.now + delay, cb, h))
        return h

    def advance(self, dt: float) -> None:
        self.now += dt
        due = [p for p in self.pending if p[0] <= self.now]
        self.pending = [p for p in self.pending if p[0] > self.now]
        for _, cb, h in due:
            if not h.cancelled:
                cb()


class _Handle:
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def test_auto_repeat_release_press_pairs_are_one_hold_and_the_last_release_ends_it() -> None:
    later = _Later()
    log: list[str] = []
    hold = HoldDebounce(lambda: log.append("down"), lambda: log.append("up"), later=later, gap_s=0.05)
    hold.press()
    for _ in range(5):  # X11 auto-repeat: release and press again within a few ms
        later.advance(0.03)
        hold.release()
        later.advance(0.002)
        hold.press()
    assert log == ["down"]
    hold.release()
    later.advance(0.049)
    assert log == ["down"]
    later.advance(0.002)
    assert log == ["down", "up"]
    hold.press()  # a new hold
    assert log == ["down", "up", "down"]


def test_a_release_without_a_press_does_nothing() -> None:
    later = _Later()
    log: list[str] = []
    hold = HoldDebounce(lambda: log.append("down"), lambda: log.append("up"), later=later)
    hold.release()
    later.advance(1.0)
    assert log == []
