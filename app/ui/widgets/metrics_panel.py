"""The per-turn latency panel: the last turn's stage-by-stage breakdown and a short voice-to-voice history."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QFrame, QHeaderView, QLabel, QSizePolicy, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from app.ui.theme import mix, state_color

# The TurnMetrics durations, in pipeline order, with the words the panel shows.
FIELD_LABELS: dict[str, str] = {
    "asr_ms": "Speech recognition",
    "llm_first_token_ms": "Model: first token",
    "tts_first_audio_ms": "Voice: first audio",
    "playout_ms": "Playout",
    "v2v_ms": "Voice to voice",
    "bargein_ms": "Barge-in → silence",
}


def metric_rows(metrics: object) -> list[tuple[str, str, float | None]]:
    """(field, label, milliseconds or None) for the duration fields (``*_ms``) of a TurnMetrics-like object, known ones first."""
    if dataclasses.is_dataclass(metrics) and not isinstance(metrics, type):
        items: Mapping[str, Any] = {f.name: getattr(metrics, f.name) for f in dataclasses.fields(metrics)}
    elif isinstance(metrics, Mapping):
        items = metrics
    else:
        items = {k: getattr(metrics, k) for k in dir(metrics) if not k.startswith("_")}
    names = [n for n in FIELD_LABELS if n in items] + sorted(n for n in items if n.endswith("_ms") and n not in FIELD_LABELS)
    rows: list[tuple[str, str, float | None]] = []
    for name in names:
        value = items[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            continue
        if value is None and name == "bargein_ms":
            continue
        label = FIELD_LABELS.get(name, name.removesuffix("_ms").replace("_", " ").capitalize())
        rows.append((name, label, None if value is None else float(value)))
    return rows


_EMPTY: dict[str, float | None] = {name: None for name in FIELD_LABELS if name != "bargein_ms"}

_STAGE_COLOUR = {
    "asr_ms": "hearing",
    "llm_first_token_ms": "thinking",
    "tts_first_audio_ms": "speaking",
    "playout_ms": "listening",
    "v2v_ms": "idle",
    "bargein_ms": "interrupted",
}


class StageBars(QWidget):
    """One row per stage: name, milliseconds, and a bar scaled to the longest stage of the turn."""

    ROW = 34

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, str, float | None]] = []  # (field, label, ms)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Latency of the last turn")

    def rows(self) -> list[tuple[str, float | None]]:
        return [(label, v) for _, label, v in self._rows]

    def set_rows(self, rows: list[tuple[str, str, float | None]]) -> None:
        self._rows = rows
        self.setFixedHeight(max(1, len(rows)) * self.ROW)
        self.setAccessibleDescription("; ".join(f"{label} {'—' if v is None else f'{v:.0f} ms'}" for _, label, v in rows))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.WindowText)
        track = mix(pal.color(QPalette.ColorRole.Window), text, 0.08)
        longest = max((v for _, _, v in self._rows if v is not None), default=0.0) or 1.0
        fm = QFontMetrics(self.font())
        w = self.width()
        for i, (name, label, v) in enumerate(self._rows):
            y = i * self.ROW
            p.setPen(text)
            p.drawText(QRectF(0, y, w * 0.7, fm.height()), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
            value = "—" if v is None else f"{v:,.0f} ms"
            p.setPen(mix(text, pal.color(QPalette.ColorRole.Window), 0.35))
            p.drawText(QRectF(0, y, w, fm.height()), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, value)
            bar = QRectF(0, y + fm.height() + 4, w, 6)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(track)
            p.drawRoundedRect(bar, 3, 3)
            if v is not None and v > 0:
                colour = state_color(_STAGE_COLOUR.get(name, "idle"), pal)
                if name == "v2v_ms":
                    colour = pal.color(QPalette.ColorRole.Highlight)
                p.setBrush(colour)
                p.drawRoundedRect(QRectF(bar.x(), bar.y(), max(6.0, w * min(1.0, v / longest)), bar.height()), 3, 3)


class MetricsPanel(QFrame):
    """Shows each turn's latency breakdown in milliseconds, stage by stage, and the voice-to-voice history."""

    MAX_TURNS = 50

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MetricsPanel")
        self.setAccessibleName("Turn metrics")
        title = QLabel("Turn metrics", self)
        title.setObjectName("PanelTitle")
        self.summary = QLabel("No turns yet.", self)
        self.summary.setObjectName("EmptyHint")
        self.summary.setWordWrap(True)
        self.bars = StageBars(self)
        self.bars.set_rows(metric_rows(_EMPTY))
        self.history = QTableWidget(0, 2, self)
        self.history.setHorizontalHeaderLabels(["Turn", "Voice to voice (ms)"])
        self.history.verticalHeader().hide()
        self.history.verticalHeader().setDefaultSectionSize(24)
        self.history.setShowGrid(False)
        self.history.setAlternatingRowColors(True)
        self.history.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.history.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.history.setAccessibleName("Earlier turns")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 12, 12, 12)
        lay.setSpacing(8)
        lay.addWidget(title)
        lay.addWidget(self.summary)
        lay.addSpacing(4)
        lay.addWidget(self.bars)
        lay.addSpacing(8)
        hist = QLabel("History", self)
        hist.setObjectName("PanelTitle")
        lay.addWidget(hist)
        lay.addWidget(self.history, 1)
        self._turns = 0
        self.setMinimumWidth(240)

    def turns(self) -> int:
        return self._turns

    def add_turn(self, metrics: object) -> None:
        rows = metric_rows(metrics)
        self._turns += 1
        self.bars.set_rows(rows)
        v2v = next((v for name, _, v in rows if name == "v2v_ms"), None)
        interrupted = bool(getattr(metrics, "interrupted", False))
        self.summary.setText(
            f"Turn {self._turns}"
            + (f": {v2v:,.0f} ms voice to voice" if v2v is not None else "")
            + (" (interrupted)" if interrupted else "")
        )
        r = self.history.rowCount()
        self.history.insertRow(r)
        self.history.setItem(r, 0, QTableWidgetItem(str(self._turns)))
        item = QTableWidgetItem("—" if v2v is None else f"{v2v:,.0f}")
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.history.setItem(r, 1, item)
        if self.history.rowCount() > self.MAX_TURNS:
            self.history.removeRow(0)
        self.history.scrollToBottom()
