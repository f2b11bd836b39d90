"""The loop state pill (coloured dot + words) and the live input level meter."""

from __future__ import annotations

import math
import time

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from app.ui.theme import mix, state_color

STATE_TEXT: dict[str, str] = {
    "loading": "Loading voice…",
    "idle": "Idle",
    "listening": "Listening",
    "hearing": "Hearing you",
    "thinking": "Thinking",
    "speaking": "Speaking",
    "interrupted": "Interrupted",
    "error": "Error",
    "muted": "Muted",
}
_PULSING = frozenset({"listening", "hearing", "thinking", "speaking"})


class StateDot(QWidget):
    """A coloured dot that breathes while the loop is active."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = "idle"
        self._phase = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(50)
        self._timer.timeout.connect(self._tick)
        self.setFixedSize(14, 14)

    def set_state(self, state: str) -> None:
        self._state = state
        if state in _PULSING:
            self._timer.start()
        else:
            self._timer.stop()
            self._phase = 0.0
        self.update()

    def _tick(self) -> None:
        self._phase = (time.monotonic() * 1.6) % 1.0
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = state_color(self._state, self.palette())
        r = self.rect().adjusted(1, 1, -1, -1)
        if self._state in _PULSING:
            halo = QColor(colour)
            halo.setAlphaF(0.35 * (1 - self._phase))
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(halo)
            p.drawEllipse(r)
            inset = 3.0 - 1.0 * math.sin(self._phase * math.pi)
            p.setBrush(colour)
            p.drawEllipse(QRectF(r).adjusted(inset, inset, -inset, -inset))
        else:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawEllipse(QRectF(r).adjusted(2, 2, -2, -2))


class LevelMeter(QWidget):
    """Horizontal input level bar (0..1, perceptual), with fast attack, slow release and a peak tick."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._level = 0.0
        self._shown = 0.0
        self._peak = 0.0
        self._peak_at = 0.0
        self._active = True
        self._timer = QTimer(self)
        self._timer.setInterval(33)
        self._timer.timeout.connect(self._decay)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(80)
        self.setAccessibleName("Input level")
        self.setToolTip("Microphone input level")

    def sizeHint(self) -> QSize:
        return QSize(160, 8)

    def level(self) -> float:
        return self._level

    def set_active(self, active: bool) -> None:
        self._active = active
        if not active:
            self.set_level(0.0)
        self.update()

    def set_level(self, level: float) -> None:
        """Set the current level (0..1); out-of-range and NaN values are clamped."""
        level = 0.0 if not math.isfinite(level) else min(1.0, max(0.0, level))
        self._level = level
        if level >= self._shown:
            self._shown = level
        if level >= self._peak:
            self._peak, self._peak_at = level, time.monotonic()
        self.setAccessibleDescription(f"{round(level * 100)} percent")
        if not self._timer.isActive():
            self._timer.start()
        self.update()

    def _decay(self) -> None:
        self._shown = max(self._level, self._shown * 0.82)
        if time.monotonic() - self._peak_at > 0.8:
            self._peak = max(self._shown, self._peak - 0.03)
        if self._shown < 0.002 and self._peak < 0.002:
            self._shown = self._peak = 0.0
            self._timer.stop()
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.Text)
        track = mix(pal.color(QPalette.ColorRole.Window), text, 0.12)
        h = min(self.height(), 8)
        r = QRectF(0, (self.height() - h) / 2, self.width(), h)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(track)
        p.drawRoundedRect(r, h / 2, h / 2)
        if not self._active:
            return
        fill = state_color("hearing", pal) if self._shown < 0.85 else state_color("interrupted", pal)
        w = r.width() * self._shown
        if w > 0.5:
            p.setBrush(fill)
            p.drawRoundedRect(QRectF(r.x(), r.y(), max(w, h), h), h / 2, h / 2)
        if self._peak > 0.02:
            x = r.x() + r.width() * self._peak
            p.setBrush(mix(fill, text, 0.3))
            p.drawRect(QRectF(min(x, r.right() - 2), r.y(), 2, h))


class StateIndicator(QWidget):
    """Dot + state words + level meter: what the assistant is doing and how loud the mic is."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dot = StateDot(self)
        self.label = QLabel(self)
        self.label.setObjectName("StateLabel")
        self.detail = QLabel(self)
        self.detail.setObjectName("EmptyHint")
        self.meter = LevelMeter(self)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(8)
        lay.addWidget(self.dot)
        lay.addWidget(self.label)
        lay.addWidget(self.detail)
        lay.addStretch(1)
        lay.addWidget(QLabel("Mic", self))
        lay.addWidget(self.meter, 0)
        self.meter.setFixedWidth(140)
        self._state = ""
        self.setAccessibleName("Assistant state")
        self.set_state("idle")

    def state(self) -> str:
        return self._state

    def set_state(self, state: str, detail: str = "") -> None:
        self._state = state
        words = STATE_TEXT.get(state, state.capitalize())
        self.label.setText(words)
        self.detail.setText(detail)
        self.detail.setToolTip(detail)
        self.dot.set_state(state)
        colour = state_color(state, self.palette())
        self.label.setStyleSheet(f"color: {colour.name()};")
        self.setAccessibleDescription(words if not detail else f"{words}: {detail}")
