"""The window's push-to-talk key: an application-wide key filter that holds the talk button while the hotkey is held."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

_TEXT_ENTRY = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)


def _types_text(w: QWidget | None) -> bool:
    """Whether Space in widget ``w`` means a space character (so the hotkey must not take it)."""
    if w is None:
        return False
    if isinstance(w, _TEXT_ENTRY):
        return True
    return isinstance(w, QComboBox) and w.isEditable()


class PushToTalkFilter(QObject):
    """Application-wide key filter: while the window is active, holding the hotkey holds the talk button.

    Space typed into a text field stays a space. Auto-repeat is ignored, so one hold is one utterance.
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self.key = Qt.Key.Key_Space
        self._held = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        et = event.type()
        if et not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.ShortcutOverride):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() != self.key or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        w = self._window
        if not self._held and (
            not w.isActiveWindow() or QApplication.activeModalWidget() is not None or _types_text(QApplication.focusWidget())
        ):
            return False
        if et == QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        if event.isAutoRepeat():
            return True
        if et == QEvent.Type.KeyPress and not self._held:
            self._held = True
            w.hotkey_down()
        elif et == QEvent.Type.KeyRelease and self._held:
            self._held = False
            w.hotkey_up()
        return True

    def release(self) -> None:
        """Focus left the window while the key was held: end the utterance as if the key went up."""
        if self._held:
            self._held = False
            self._window.hotkey_up()
