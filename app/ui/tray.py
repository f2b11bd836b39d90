"""The system-tray icon: Parley's state at a glance, a menu, and error notifications while the window is hidden.

The icon is Parley's own with a dot in the state's colour (listening blue, hearing green, thinking amber,
speaking violet, muted grey with a bar, error red; the colours of the window's state indicator) and a tooltip
naming the state ("Parley — Muted"). The menu: show the window, mute, push-to-talk mode (the inverse of
hands-free), quit; the window's own actions, so the menu, the buttons and the shortcuts always agree. An error
the presenter shows is also a tray notification when the window is hidden or minimised (not twice otherwise).

Absent when the desktop has no tray (:meth:`Tray.available`); closing the window then quits, even with
``[ui] close_to_tray`` (a hidden window without a tray icon could not be brought back).

Does not own: the states (the presenter maps loop states to the words), what the actions do (the window).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from app.ui.main_window import MainWindow
from app.ui.resources import app_icon
from app.ui.theme import state_color
from app.ui.widgets.state_indicator import STATE_TEXT

ICON_PX = 64


def tray_tooltip(state: str, detail: str = "") -> str:
    words = STATE_TEXT.get(state, state.capitalize())
    return f"Parley — {words}" + (f": {detail}" if detail else "")


def state_icon(state: str, palette: QPalette, base: QIcon | None = None) -> QIcon:
    """Parley's icon with the state's dot (lower right); "muted" adds a bar across the dot."""
    pm = QPixmap(ICON_PX, ICON_PX)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    icon = base if base is not None else app_icon()
    if not icon.isNull():
        p.drawPixmap(0, 0, icon.pixmap(ICON_PX, ICON_PX))
    d = ICON_PX * 0.46
    dot = QRectF(ICON_PX - d - 1, ICON_PX - d - 1, d, d)
    p.setPen(QPen(QColor("white"), ICON_PX * 0.05))
    p.setBrush(state_color(state, palette))
    p.drawEllipse(dot)
    if state == "muted":
        p.setPen(QPen(QColor("white"), ICON_PX * 0.07))
        p.drawLine(dot.topRight() + (dot.center() - dot.topRight()) * 0.3, dot.bottomLeft() + (dot.center() - dot.bottomLeft()) * 0.3)
    p.end()
    return QIcon(pm)


class Tray:
    def __init__(self, window: MainWindow, *, available: Callable[[], bool] | None = None) -> None:
        self.window = window
        self.icon: QSystemTrayIcon | None = None
        self._available = available or QSystemTrayIcon.isSystemTrayAvailable
        self.state = "loading"
        self.ptt_action = QAction("&Push-to-talk mode", window)
        self.ptt_action.setCheckable(True)
        self.ptt_action.setChecked(not window.hands_free_action.isChecked())
        self.ptt_action.toggled.connect(lambda on: window.hands_free_action.setChecked(not on))
        window.hands_free_action.toggled.connect(lambda hands_free: self.ptt_action.setChecked(not hands_free))
        window.hands_free_action.changed.connect(lambda: self.ptt_action.setEnabled(window.hands_free_action.isEnabled()))
        self.notified: list[tuple[str, str]] = []  # (title, message) of every notification shown (tests, diagnostics)

    def available(self) -> bool:
        return bool(self._available())

    def set_enabled(self, enabled: bool) -> None:
        if enabled and self.icon is None and self.available():
            icon = QSystemTrayIcon(state_icon(self.state, self.window.palette()), self.window)
            menu = QMenu(self.window)
            show = QAction("&Show Parley", menu)
            show.triggered.connect(self._show)
            menu.addAction(show)
            menu.addSeparator()
            menu.addAction(self.window.mute_action)
            menu.addAction(self.ptt_action)
            menu.addSeparator()
            menu.addAction(self.window.quit_action)
            icon.setContextMenu(menu)
            icon.activated.connect(self._activated)
            icon.setToolTip(tray_tooltip(self.state))
            icon.show()
            self.icon = icon
        elif not enabled and self.icon is not None:
            self.icon.hide()
            self.icon.deleteLater()
            self.icon = None

    def set_state(self, state: str) -> None:
        self.state = state
        if self.icon is not None:
            self.icon.setIcon(state_icon(state, self.window.palette()))
            self.icon.setToolTip(tray_tooltip(state))

    def notify_error(self, message: str) -> None:
        """An error the window shows: also a notification when nobody sees the window."""
        w = self.window
        if self.icon is None or (w.isVisible() and not w.isMinimized()):
            return
        self.notified.append(("Parley", message))
        if QSystemTrayIcon.supportsMessages():
            self.icon.showMessage("Parley", message, QSystemTrayIcon.MessageIcon.Warning, 8000)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            if self.window.isVisible() and self.window.isActiveWindow():
                self.window.hide()
            else:
                self._show()

    def _show(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()


__all__ = ["Tray", "state_icon", "tray_tooltip"]
