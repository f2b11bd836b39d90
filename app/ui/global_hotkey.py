"""The push-to-talk key while another window has focus (``[ui] global_hotkey``).

What the desktop allows, found once at start (:func:`global_support`):

* **X11** (``DISPLAY``, not a Wayland session): ``pynput``'s X11 listener (the XRecord extension) sees every key
  press of the display without grabbing it, so the key also still reaches the focused application. That is why
  only keys that type nothing qualify (F1–F24, Pause, Scroll Lock, Insert, Menu …): a global Space would start
  an utterance whenever the user types a space elsewhere.
* **Wayland**: no application may read other windows' keys; Parley asks the desktop's XDG GlobalShortcuts
  portal (:mod:`app.ui.portal_hotkey`) to bind the key, any key (the desktop takes it from the other windows).
  Without the portal, the hotkey works while Parley's window is active, and the status says why.
* no display / pynput missing: window only, with the reason.

The listener's callbacks run on pynput's thread; they only hand the press to the event loop
(``call_soon_threadsafe``). X11 auto-repeat arrives as release/press pairs a few ms apart: :class:`HoldDebounce`
turns them into one hold. While Parley's window is active its own key filter handles the key
(:class:`app.ui.ptt_filter.PushToTalkFilter`), so the global one stands aside.

Does not own: the window's key filter, what a press does (the presenter's push-to-talk commands).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

REPEAT_GAP_S = 0.06  # a release followed by a press within this is X11 auto-repeat, not the end of the hold
# keys that type nothing in other applications (Qt key names as [ui] hotkey writes them)
NON_TYPING = {f"f{i}" for i in range(1, 25)} | {"pause", "scrolllock", "insert", "menu", "print", "home", "end", "pageup", "pagedown"}
_PYNPUT_NAMES = {"scrolllock": "scroll_lock", "pageup": "page_up", "pagedown": "page_down", "print": "print_screen"}


@dataclass(frozen=True, slots=True)
class Support:
    backend: str  # "x11", "portal" (Wayland: the XDG GlobalShortcuts portal), or "" when it works in Parley's window only
    why_not: str = ""  # when backend is "": what to tell the user


def global_support(env: Mapping[str, str] | None = None) -> Support:
    """Which way a global hotkey can work in this session (environment variables only: cheap, no connection)."""
    env = os.environ if env is None else env
    session = env.get("XDG_SESSION_TYPE", "").lower()
    if env.get("WAYLAND_DISPLAY") or session == "wayland":
        runtime = env.get("XDG_RUNTIME_DIR", "/nonexistent")
        has_bus = bool(env.get("DBUS_SESSION_BUS_ADDRESS")) or os.path.exists(os.path.join(runtime, "bus"))
        if has_bus and importlib.util.find_spec("jeepney") is not None:
            return Support("portal")  # whether the desktop offers the portal shows in GlobalHotkey.start_desktop
        return Support(
            "",
            "Wayland lets no application read the keys of other windows and there is no D-Bus session bus for the "
            "desktop's global shortcuts portal: the talk key works while Parley's window is active",
        )
    if not env.get("DISPLAY"):
        return Support("", "no X11 display: the talk key works while Parley's window is active")
    if importlib.util.find_spec("pynput") is None:
        return Support("", "the pynput package is not installed: the talk key works while Parley's window is active")
    return Support("x11")  # whether the display accepts the listener shows in GlobalHotkey.start


def global_key_problem(text: str) -> str:
    """Why ``text`` cannot be the global talk key ("" when it can)."""
    if text.strip().lower().replace(" ", "") in NON_TYPING:
        return ""
    return (
        f"{text!r} types into other applications, so it cannot be the talk key everywhere; pick a key that types "
        "nothing (F9, Pause, Scroll Lock…) for that"
    )


class HoldDebounce:
    """Key press / release events (auto-repeat included) → one ``down`` and one ``up`` per hold."""

    def __init__(
        self,
        down: Callable[[], None],
        up: Callable[[], None],
        *,
        later: Callable[[float, Callable[[], None]], Any],
        gap_s: float = REPEAT_GAP_S,
    ) -> None:
        self._down = down
        self._up = up
        self._later = later  # (delay, callback) → a handle with .cancel() (loop.call_later)
        self._gap_s = gap_s
        self.held = False
        self._pending: Any = None

    def press(self) -> None:
        if self._pending is not None:  # auto-repeat: the hold goes on
            self._pending.cancel()
            self._pending = None
            return
        if not self.held:
            self.held = True
            self._down()

    def release(self) -> None:
        if self.held and self._pending is None:
            self._pending = self._later(self._gap_s, self._release_now)

    def _release_now(self) -> None:
        self._pending = None
        if self.held:
            self.held = False
            self._up()


def _matches(key_text: str) -> Callable[[Any], bool]:
    from pynput import keyboard

    name = key_text.strip().lower().replace(" ", "")
    target = getattr(keyboard.Key, _PYNPUT_NAMES.get(name, name), None)

    def match(k: Any) -> bool:
        return target is not None and k == target

    return match


class GlobalHotkey:
    """The X11 listener for one key; :meth:`start` returns the reason when it cannot run ("" when it runs)."""

    def __init__(self, on_down: Callable[[], None], on_up: Callable[[], None], *, window_active: Callable[[], bool]) -> None:
        self._on_down = on_down
        self._on_up = on_up
        self._window_active = window_active
        self._listener: Any = None
        self._hold: HoldDebounce | None = None
        self._ours = False  # the hold in progress was started here (not by the window's own key filter)
        self._portal: Any = None  # app.ui.portal_hotkey.PortalHotkey while the portal has the key
        self.status = "off"

    @property
    def running(self) -> bool:
        return self._listener is not None or self._portal is not None

    def start(self, key_text: str, support: Support | None = None) -> str:
        self.stop()
        support = support or global_support()
        problem = support.why_not or global_key_problem(key_text)
        if problem:
            return self._window_only(problem)
        try:
            from pynput import keyboard  # connects to the display on import
        except Exception as e:
            return self._window_only(f"the X11 key listener is not usable ({e})")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app applies its settings before qasync's loop runs
            loop = asyncio.get_event_loop_policy().get_event_loop()
        hold = self._hold = HoldDebounce(self._down, self._up, later=loop.call_later)
        match = _matches(key_text)

        def pressed(k: Any) -> None:
            if match(k):
                loop.call_soon_threadsafe(hold.press)

        def released(k: Any) -> None:
            if match(k):
                loop.call_soon_threadsafe(hold.release)

        try:
            listener = keyboard.Listener(on_press=pressed, on_release=released)
            listener.start()
        except Exception as e:  # the display refused (no XRecord, closed display)
            return self._window_only(f"the X11 key listener did not start ({e})")
        self._listener = listener
        self.status = f"{key_text} works in every window (X11)"
        return ""

    async def start_desktop(self, key_text: str, support: Support | None = None) -> str:
        """The talk key in every window by whatever this session offers (X11 listener or the portal); "" when it
        works, else why it stays window-only."""
        support = support or global_support()
        if support.backend != "portal":
            return self.start(key_text, support)
        from app.ui.portal_hotkey import PortalHotkey

        await self.aclose()
        self._portal = PortalHotkey(self._on_down, self._on_up, window_active=self._window_active)
        why = await self._portal.start(key_text)
        if why:
            self._portal = None
            return self._window_only(f"{why}; the talk key works while Parley's window is active")
        self.status = f"{key_text} works in every window (the desktop's global shortcuts portal)"
        return ""

    async def aclose(self) -> None:
        """Stop whichever listener runs (the portal's needs the event loop)."""
        self.stop()
        portal, self._portal = self._portal, None
        if portal is not None:
            await portal.stop()

    def _window_only(self, why: str) -> str:
        self.status = f"window only: {why}"
        return why

    def _down(self) -> None:
        self._ours = not self._window_active()  # an active Parley window handles its own key
        if self._ours:
            self._on_down()

    def _up(self) -> None:
        if self._ours:
            self._ours = False
            self._on_up()

    def wait_ready(self) -> bool:
        """Block until the listener receives events (tests; pynput connects on its thread)."""
        if self._listener is None:
            return False
        self._listener.wait()
        return bool(self._listener.running)

    def stop(self) -> None:
        if self._listener is not None:
            listener, self._listener = self._listener, None
            try:
                listener.stop()
                listener.join(1.0)  # ms in practice: its display connection closes before the server may go
            except Exception as e:
                log.debug("global hotkey listener stop: %s", e)
        self.status = "off"


__all__ = ["NON_TYPING", "GlobalHotkey", "HoldDebounce", "Support", "global_key_problem", "global_support"]
