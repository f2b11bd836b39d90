"""Colours and style sheet derived from the palette: follows the OS light/dark scheme or a forced one."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

Scheme = Literal["system", "light", "dark"]
SCHEMES: tuple[Scheme, ...] = ("system", "light", "dark")

# Accent hues chosen to stay readable on both palettes.
_STATE_HUES: dict[str, tuple[str, str]] = {
    # state: (light palette colour, dark palette colour)
    "idle": ("#8a8f98", "#8b929c"),
    "loading": ("#8a8f98", "#8b929c"),
    "listening": ("#2f6fde", "#5b96f5"),
    "hearing": ("#1f9d55", "#3ccf7a"),
    "thinking": ("#c98a00", "#f0b429"),
    "speaking": ("#7a4fd6", "#a58bf5"),
    "interrupted": ("#d9622b", "#f08a54"),
    "error": ("#d0312d", "#f26a66"),
    "muted": ("#8a8f98", "#8b929c"),
}


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def state_color(state: str, palette: QPalette) -> QColor:
    light, dark = _STATE_HUES.get(state, _STATE_HUES["idle"])
    return QColor(dark if is_dark(palette) else light)


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved ``t`` (0..1) of the way to ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


@dataclass(frozen=True, slots=True)
class ChatColors:
    user_bg: QColor
    user_fg: QColor
    assistant_bg: QColor
    assistant_fg: QColor
    muted_fg: QColor
    dropped_fg: QColor
    badge_bg: QColor
    badge_fg: QColor
    border: QColor


def chat_colors(palette: QPalette) -> ChatColors:
    base = palette.color(QPalette.ColorRole.Base)
    window = palette.color(QPalette.ColorRole.Window)
    text = palette.color(QPalette.ColorRole.Text)
    accent = palette.color(QPalette.ColorRole.Highlight)
    dark = is_dark(palette)
    user_bg = mix(accent, base, 0.25 if dark else 0.0)
    assistant_bg = mix(window, text, 0.10 if dark else 0.05)
    muted = mix(text, base, 0.45)
    warn = state_color("interrupted", palette)
    return ChatColors(
        user_bg=user_bg,
        user_fg=palette.color(QPalette.ColorRole.HighlightedText),
        assistant_bg=assistant_bg,
        assistant_fg=text,
        muted_fg=muted,
        dropped_fg=mix(text, base, 0.6),
        badge_bg=mix(warn, base, 0.8),
        badge_fg=mix(warn, text, 0.25 if dark else 0.35),
        border=mix(window, text, 0.15),
    )


def light_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#f4f5f7",
        QPalette.ColorRole.WindowText: "#1d1f23",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#eef0f3",
        QPalette.ColorRole.ToolTipBase: "#ffffff",
        QPalette.ColorRole.ToolTipText: "#1d1f23",
        QPalette.ColorRole.PlaceholderText: "#8a8f98",
        QPalette.ColorRole.Text: "#1d1f23",
        QPalette.ColorRole.Button: "#e9ebef",
        QPalette.ColorRole.ButtonText: "#1d1f23",
        QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Highlight: "#2f6fde",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#2f6fde",
        QPalette.ColorRole.Light: "#ffffff",
        QPalette.ColorRole.Midlight: "#e3e5e9",
        QPalette.ColorRole.Mid: "#c4c8cf",
        QPalette.ColorRole.Dark: "#9aa0a8",
        QPalette.ColorRole.Shadow: "#5c6168",
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#a4a9b0"))
    return p


def dark_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#1e2024",
        QPalette.ColorRole.WindowText: "#e6e8eb",
        QPalette.ColorRole.Base: "#16181b",
        QPalette.ColorRole.AlternateBase: "#25282d",
        QPalette.ColorRole.ToolTipBase: "#2a2d33",
        QPalette.ColorRole.ToolTipText: "#e6e8eb",
        QPalette.ColorRole.PlaceholderText: "#7d838c",
        QPalette.ColorRole.Text: "#e6e8eb",
        QPalette.ColorRole.Button: "#2c2f35",
        QPalette.ColorRole.ButtonText: "#e6e8eb",
        QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Highlight: "#4a86f0",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#78a6f7",
        QPalette.ColorRole.Light: "#3a3e45",
        QPalette.ColorRole.Midlight: "#32353b",
        QPalette.ColorRole.Mid: "#43474f",
        QPalette.ColorRole.Dark: "#121316",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b7079"))
    return p


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, scheme: Scheme = "system") -> None:
    """Style the whole app. ``system`` follows the OS scheme (and keeps following it); ``light``/``dark`` force one.

    On Linux (and for forced schemes) the Fusion style is used with our palettes, so the window looks the same
    on every desktop; on macOS/Windows ``system`` keeps the native style and palette.
    """
    native = scheme == "system" and sys.platform in ("darwin", "win32")
    if not native:
        fusion = QStyleFactory.create("Fusion")
        if fusion is not None:
            app.setStyle(fusion)
        dark = system_prefers_dark() if scheme == "system" else scheme == "dark"
        app.setPalette(dark_palette() if dark else light_palette())
    app.setProperty("parleyScheme", scheme)
    app.setStyleSheet(style_sheet(app.palette()))


def style_sheet(p: QPalette) -> str:
    """Small, palette-derived style sheet: rounded controls, a prominent talk button, calm sidebar."""
    accent = p.color(QPalette.ColorRole.Highlight)
    window = p.color(QPalette.ColorRole.Window)
    base = p.color(QPalette.ColorRole.Base)
    text = p.color(QPalette.ColorRole.Text)
    border = mix(window, text, 0.16)
    hover = mix(window, text, 0.06)
    sidebar = mix(window, text, 0.03) if is_dark(p) else mix(window, base, 0.0)
    muted = mix(text, base, 0.45)
    send_off = mix(p.color(QPalette.ColorRole.HighlightedText), window, 0.35)
    return f"""
    QWidget#Sidebar {{ background: {sidebar.name()}; border-right: 1px solid {border.name()}; }}
    QListWidget#ConversationList {{ background: transparent; border: none; outline: 0; }}
    QLabel#SidebarTitle {{ color: {muted.name()}; font-weight: 600; padding: 6px 12px 2px 12px; }}
    QScrollArea#ChatScroll {{ background: {base.name()}; border: none; }}
    QWidget#ChatContainer {{ background: {base.name()}; }}
    QFrame#TopBar, QFrame#ControlBar {{ background: {window.name()}; }}
    QFrame#TopBar {{ border-bottom: 1px solid {border.name()}; }}
    QFrame#ControlBar {{ border-top: 1px solid {border.name()}; }}
    QLineEdit#Composer {{
        border: 1px solid {border.name()}; border-radius: 18px; padding: 7px 14px; background: {base.name()};
    }}
    QLineEdit#Composer:focus {{ border: 1px solid {accent.name()}; }}
    QPushButton, QToolButton {{
        border: 1px solid {border.name()}; border-radius: 8px; padding: 6px 12px; background: {window.name()};
    }}
    QPushButton:hover, QToolButton:hover {{ background: {hover.name()}; }}
    QPushButton:focus, QToolButton:focus {{ border: 1px solid {accent.name()}; }}
    QPushButton:checked, QToolButton:checked {{
        background: {mix(accent, window, 0.8).name()}; border: 1px solid {accent.name()};
    }}
    QPushButton:disabled, QToolButton:disabled {{ color: {mix(text, window, 0.55).name()}; }}
    QPushButton#SendButton {{ border-radius: 18px; padding: 7px 16px; background: {accent.name()};
        color: {p.color(QPalette.ColorRole.HighlightedText).name()}; border: none; }}
    QPushButton#SendButton:disabled {{ background: {mix(accent, window, 0.6).name()}; color: {send_off.name()}; }}
    QPushButton#TalkButton, QPushButton#TalkButton:hover, QPushButton#TalkButton:checked {{
        border: none; background: transparent; padding: 0;
    }}
    QLabel#TalkHint {{ color: {muted.name()}; }}
    QLabel#StateLabel {{ font-weight: 600; }}
    QFrame#MetricsPanel {{ background: {window.name()}; border-left: 1px solid {border.name()}; }}
    QLabel#PanelTitle {{ font-weight: 600; }}
    QLabel#EmptyHint {{ color: {muted.name()}; }}
    QStatusBar {{ color: {muted.name()}; }}
    """
