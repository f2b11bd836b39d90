"""The main window's view state (the setters the presenter calls) and its saved geometry, over the widgets
:class:`app.ui.main_window.MainWindow` builds."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar, QPushButton, QSplitter

from app.ui.ptt_filter import PushToTalkFilter
from app.ui.widgets.state_indicator import StateIndicator
from app.ui.widgets.talk_button import TalkButton


class _WindowView(QMainWindow):
    # built by MainWindow._build / _build_menus / __init__
    _window_state: QSettings | None
    ptt_filter: PushToTalkFilter
    hotkey_name: str
    state_indicator: StateIndicator
    talk_button: TalkButton
    talk_hint: QLabel
    hands_free_button: QPushButton
    mute_button: QPushButton
    stop_button: QPushButton
    hands_free_action: QAction
    mute_action: QAction
    stop_action: QAction
    metrics_action: QAction
    sidebar_action: QAction
    splitter: QSplitter
    status_label: QLabel
    progress: QProgressBar

    # -- view state --------------------------------------------------------------------------------------------
    def set_voice_available(self, available: bool, reason: str = "") -> None:
        """Voice controls are disabled (with the reason as tooltip) until the voice stack is ready."""
        for w in (self.talk_button, self.hands_free_button, self.mute_button):
            w.setEnabled(available)
        self.hands_free_action.setEnabled(available)
        self.mute_action.setEnabled(available)
        self.talk_button.setToolTip(f"Hold to talk ({self.hotkey_name})" if available else reason or "Voice is not ready yet")
        if not available and reason:
            self.talk_hint.setText(reason)
        elif available:
            self.talk_hint.setText(self._hint_text(self.hands_free_button.isChecked()))

    def _hint_text(self, hands_free: bool) -> str:
        return f"Listening hands-free · hold {self.hotkey_name} to talk over" if hands_free else f"Hold to talk · {self.hotkey_name}"

    def set_hotkey(self, key: Qt.Key, name: str) -> None:
        """Push-to-talk key (held while the window is active)."""
        self.ptt_filter.key = key
        self.hotkey_name = name
        self.talk_button.setToolTip(f"Hold to talk ({name})")
        self.talk_button.setAccessibleDescription(f"Hold to talk. {name} does the same while the window is active.")
        self.talk_hint.setText(self._hint_text(self.hands_free_button.isChecked()))

    def set_speaking(self, speaking: bool) -> None:
        self.stop_button.setEnabled(speaking)
        self.stop_action.setEnabled(speaking)

    def set_mode_checked(self, hands_free: bool) -> None:
        if self.hands_free_button.isChecked() != hands_free:
            self.hands_free_button.blockSignals(True)
            self.hands_free_button.setChecked(hands_free)
            self.hands_free_button.blockSignals(False)
            self.hands_free_action.blockSignals(True)
            self.hands_free_action.setChecked(hands_free)
            self.hands_free_action.blockSignals(False)
            self.talk_hint.setText(self._hint_text(hands_free))

    def set_muted_checked(self, muted: bool) -> None:
        if self.mute_button.isChecked() != muted:
            for w in (self.mute_button, self.mute_action):
                w.blockSignals(True)
                w.setChecked(muted)
                w.blockSignals(False)
            self.mute_button.setText("Unmute" if muted else "Mute")
            self.state_indicator.meter.set_active(not muted)

    def set_progress(self, message: str, fraction: float | None) -> None:
        """Loading progress in the status bar; ``fraction`` None hides the bar (and the message after a while)."""
        self.status_label.setText(message)
        if fraction is None:
            self.progress.hide()
            if message:
                # the label is the timer's context: a closed window cancels it
                QTimer.singleShot(6000, self.status_label, lambda m=message: self._clear_status(m))
        else:
            self.progress.show()
            if fraction < 0:
                self.progress.setRange(0, 0)
            else:
                self.progress.setRange(0, 1000)
                self.progress.setValue(int(min(1.0, fraction) * 1000))

    def _clear_status(self, message: str) -> None:
        if self.status_label.text() == message:
            self.status_label.clear()

    # -- geometry ----------------------------------------------------------------------------------------------
    def restore_geometry(self) -> None:
        s = self._window_state
        if s is None:
            return
        geo = s.value("main/geometry")
        if isinstance(geo, QByteArray | bytes):
            self.restoreGeometry(QByteArray(geo))
        split = s.value("main/splitter")
        if isinstance(split, QByteArray | bytes):
            self.splitter.restoreState(QByteArray(split))
        self.metrics_action.setChecked(str(s.value("main/metrics", "false")).lower() == "true")
        self.sidebar_action.setChecked(str(s.value("main/sidebar", "true")).lower() == "true")

    def save_geometry(self) -> None:
        s = self._window_state
        if s is None:
            return
        s.setValue("main/geometry", self.saveGeometry())
        s.setValue("main/splitter", self.splitter.saveState())
        s.setValue("main/metrics", self.metrics_action.isChecked())
        s.setValue("main/sidebar", self.sidebar_action.isChecked())
        s.sync()
