"""Optional system-tray icon: show/hide the window, mute, quit. Absent when the desktop has no tray."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from app.ui.main_window import MainWindow
from app.ui.resources import app_icon
from app.ui.widgets.state_indicator import STATE_TEXT


class Tray:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.icon: QSystemTrayIcon | None = None

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def set_enabled(self, enabled: bool) -> None:
        if enabled and self.icon is None and self.available():
            icon = QSystemTrayIcon(app_icon(), self.window)
            menu = QMenu(self.window)
            show = QAction("Show Parley", menu)
            show.triggered.connect(self._show)
            menu.addAction(show)
            menu.addAction(self.window.mute_action)
            menu.addSeparator()
            menu.addAction(self.window.quit_action)
            icon.setContextMenu(menu)
            icon.activated.connect(self._activated)
            icon.setToolTip("Parley")
            icon.show()
            self.icon = icon
        elif not enabled and self.icon is not None:
            self.icon.hide()
            self.icon.deleteLater()
            self.icon = None

    def set_state(self, state: str) -> None:
        if self.icon is not None:
            self.icon.setToolTip(f"Parley — {STATE_TEXT.get(state, state)}")

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
