"""The tray icon offscreen: state icons and tooltips, the menu's actions, notifications, close-to-tray."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from app.settings import Settings
from app.ui.main_window import MainWindow
from app.ui.theme import state_color
from app.ui.tray import ICON_PX, Tray, state_icon, tray_tooltip

from .conftest import run
from .fakes import make_controller

pytestmark = pytest.mark.gui

DOT_CENTRE = (round(ICON_PX - ICON_PX * 0.23 - 1), round(ICON_PX - ICON_PX * 0.23 - 1))


def _dot(state: str, window: MainWindow) -> QColor:
    img = state_icon(state, window.palette()).pixmap(ICON_PX, ICON_PX).toImage()
    return img.pixelColor(*DOT_CENTRE)


def test_each_state_has_its_own_dot_colour_and_muted_is_crossed_out(qtbot) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow()
    qtbot.addWidget(w)
    seen = {}
    for state in ("listening", "thinking", "speaking", "error"):
        got = _dot(state, w)
        assert got.name() == state_color(state, w.palette()).name(), state
        seen[state] = got.name()
    assert len(set(seen.values())) == 4
    assert _dot("muted", w).name() == "#ffffff"  # the bar across the grey dot


def test_the_tooltip_names_the_state() -> None:
    assert tray_tooltip("speaking") == "Parley — Speaking"
    assert tray_tooltip("muted") == "Parley — Muted"
    assert tray_tooltip("error", "the microphone stream failed") == "Parley — Error: the microphone stream failed"


def test_the_menu_shows_mutes_switches_to_push_to_talk_and_quits_with_the_window_actions(qtbot) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow()
    qtbot.addWidget(w)
    w.set_voice_available(True)
    w.hands_free_action.setChecked(True)
    tray = Tray(w, available=lambda: True)
    tray.set_enabled(True)
    assert tray.icon is not None
    menu = tray.icon.contextMenu()
    texts = [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]
    assert texts == ["Show Parley", "Mute microphone", "Push-to-talk mode", w.quit_action.text().replace("&", "")]
    assert not tray.ptt_action.isChecked()
    tray.ptt_action.trigger()
    assert not w.hands_free_action.isChecked() and not w.hands_free_button.isChecked()
    w.hands_free_button.setChecked(True)  # the window's own control: the tray follows
    assert not tray.ptt_action.isChecked()
    with qtbot.waitSignal(w.mute_toggled, timeout=1000):
        next(a for a in menu.actions() if a is w.mute_action).trigger()
    with qtbot.waitSignal(w.quit_requested, timeout=1000):
        w.quit_action.trigger()
    tray.set_state("speaking")
    assert tray.icon.toolTip() == "Parley — Speaking"
    tray.set_enabled(False)
    assert tray.icon is None


def test_errors_become_notifications_only_while_the_window_is_hidden(qtbot) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow()
    qtbot.addWidget(w)
    tray = Tray(w, available=lambda: True)
    tray.set_enabled(True)
    w.show()
    tray.notify_error("the microphone was unplugged")
    assert tray.notified == []
    w.hide()
    tray.notify_error("the microphone was unplugged")
    assert tray.notified == [("Parley", "the microphone was unplugged")]


def test_without_a_tray_host_there_is_no_icon_and_closing_quits(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    s.ui.close_to_tray = True
    c = make_controller(tmp_path, window_state, settings=s)
    qtbot.addWidget(c.window)
    c.tray._available = lambda: False
    c.apply_ui(s)
    assert c.tray.icon is None
    c.show()
    with qtbot.waitSignal(c.window.quit_requested, timeout=1000):
        c.window.close()
    run(aloop, c.shutdown())


def test_close_to_tray_hides_the_window_and_the_tray_brings_it_back(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    s.ui.close_to_tray = True
    c = make_controller(tmp_path, window_state, settings=s)
    qtbot.addWidget(c.window)
    c.tray.set_enabled(False)
    c.tray._available = lambda: True
    c.apply_ui(s)
    assert c.tray.icon is not None
    c.show()
    quits: list[bool] = []
    c.window.quit_requested.connect(lambda: quits.append(True))
    c.window.close()
    assert not c.window.isVisible() and quits == []
    c.tray._show()
    assert c.window.isVisible()
    run(aloop, c.shutdown())


def test_a_device_replaced_by_the_default_is_said_in_the_window_and_notified(qtbot) -> None:  # type: ignore[no-untyped-def]
    from app.audio.link import AudioEvent
    from app.ui.presenter import Presenter

    w = MainWindow()
    qtbot.addWidget(w)
    p = Presenter(w)
    msg = "USB Headset Mic is not available: using the system default microphone until it is back"
    with qtbot.waitSignal(p.error_shown, timeout=1000) as shown:
        p.audio_event(AudioEvent("fallback", "input", "default", msg))
    assert shown.args == [f"Microphone: {msg}"]
    assert w.statusBar().currentMessage() == f"Microphone: {msg}"
    p.audio_event(AudioEvent("returned", "input", "USB Headset Mic", "USB Headset Mic is back: opened …"))
    assert w.statusBar().currentMessage().startswith("Microphone: USB Headset Mic is back")
    p.audio_event(AudioEvent("underrun", "output", "Speaker", "underrun"))  # not a notice
    assert w.statusBar().currentMessage().startswith("Microphone: USB Headset Mic is back")
