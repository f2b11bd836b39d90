"""The push-to-talk key: which ``[ui] hotkey`` texts Parley can use (one key, no modifiers)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

FALLBACK = "Space"


def hotkey_key(text: str) -> Qt.Key | None:
    """The key ``text`` names ("Space", "F9", "T"), or None when it is not one key without modifiers."""
    seq = QKeySequence(text)
    if seq.count() != 1:
        return None
    combo = seq[0]  # type: ignore[index]  # QKeySequence.operator[] (missing from the stubs)
    if combo.keyboardModifiers() != Qt.KeyboardModifier.NoModifier or combo.key() == Qt.Key.Key_unknown:
        return None
    return combo.key()  # type: ignore[no-any-return]


def hotkey_ok(text: str) -> bool:
    return hotkey_key(text) is not None


def hotkey_problem(text: str) -> str:
    """What to tell the user about an unusable ``[ui] hotkey`` ("" when it is usable)."""
    if hotkey_ok(text):
        return ""
    return (
        f"ui.hotkey: {text!r} is not a key Parley can use for push-to-talk (one key without Ctrl, Alt or Shift, "
        f"e.g. Space or F9), so {FALLBACK} is used. Pick a key in Settings → Appearance."
    )


__all__ = ["FALLBACK", "hotkey_key", "hotkey_ok", "hotkey_problem"]
