"""The big round talk button: hold to talk; draws a mic glyph and a ring that follows the input level."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QPushButton, QWidget

from app.ui.theme import mix, state_color


def mic_path(rect: QRectF) -> QPainterPath:
    """A microphone glyph fitted in ``rect`` (stroke it with a round pen)."""
    w, h = rect.width(), rect.height()
    cx = rect.center().x()
    path = QPainterPath()
    body = QRectF(cx - w * 0.17, rect.top() + h * 0.08, w * 0.34, h * 0.52)
    path.addRoundedRect(body, w * 0.17, w * 0.17)
    cup = QRectF(cx - w * 0.30, rect.top() + h * 0.22, w * 0.60, h * 0.52)
    path.arcMoveTo(cup, 200)
    path.arcTo(cup, 200, 140)
    path.moveTo(QPointF(cx, cup.bottom()))
    path.lineTo(QPointF(cx, rect.top() + h * 0.90))
    path.moveTo(QPointF(cx - w * 0.16, rect.top() + h * 0.90))
    path.lineTo(QPointF(cx + w * 0.16, rect.top() + h * 0.90))
    return path


class TalkButton(QPushButton):
    """Round push-to-talk button. ``pressed``/``released`` open and close an utterance; ``set_held`` mirrors the hotkey."""

    DIAMETER = 76

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TalkButton")
        self.setAccessibleName("Talk")
        self.setAccessibleDescription("Hold to talk. Space does the same while the window is active.")
        self.setToolTip("Hold to talk (Space)")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAutoRepeat(False)
        self._held = False
        self._level = 0.0
        self._state = "idle"
        self.setFixedSize(QSize(self.DIAMETER + 16, self.DIAMETER + 16))

    def is_held(self) -> bool:
        return self._held or self.isDown()

    def set_held(self, held: bool) -> None:
        self._held = held
        self.update()

    def set_level(self, level: float) -> None:
        self._level = min(1.0, max(0.0, level))
        if self.is_held() or self._state in ("listening", "hearing"):
            self.update()

    def set_state(self, state: str) -> None:
        self._state = state
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        held = self.is_held()
        accent = pal.color(QPalette.ColorRole.Highlight)
        if not self.isEnabled():
            fill = mix(pal.color(QPalette.ColorRole.Window), pal.color(QPalette.ColorRole.Text), 0.25)
        elif held:
            fill = state_color("hearing", pal)
        elif self._state == "speaking":
            fill = state_color("speaking", pal)
        else:
            fill = accent
        outer = QRectF(self.rect()).adjusted(2, 2, -2, -2)
        d = self.DIAMETER
        disc = QRectF(outer.center().x() - d / 2, outer.center().y() - d / 2, d, d)
        listening = held or self._state in ("listening", "hearing")
        if listening and self.isEnabled():
            halo = QColor(fill)
            halo.setAlphaF(0.18 + 0.4 * self._level)
            grow = 2 + 6 * self._level
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(halo)
            p.drawEllipse(disc.adjusted(-grow, -grow, grow, grow))
        if self.hasFocus():
            p.setPen(QPen(mix(accent, pal.color(QPalette.ColorRole.Text), 0.3), 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(disc.adjusted(-5, -5, 5, 5))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(fill.darker(112) if held else fill)
        p.drawEllipse(disc)
        glyph = QRectF(disc.center().x() - d * 0.2, disc.center().y() - d * 0.22, d * 0.4, d * 0.44)
        pen = QPen(QColor("#ffffff"), max(2.0, d / 26))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(mic_path(glyph))
