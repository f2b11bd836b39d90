"""The tool calls of one answer, shown under its text: one compact line per call, each expandable to its details.

A line reads ``Tool: current_time(city="Tokyo") → It's 17:35 in Tokyo.`` (``running…`` while
the tool runs, ``→ timed out: …`` and the like on an error, in the error colour). Clicking
it (or Space / Enter on it) shows the whole arguments as JSON and the whole result.
Calls are keyed by their id: the running line is replaced by its outcome.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from app.tool_words import pretty_arguments, status_words, tool_line
from app.ui.theme import chat_colors, state_color

__all__ = ["ToolCallRow", "ToolCallsView"]


class ToolCallRow(QWidget):
    """One call: a flat, checkable summary button and its details below it (hidden until checked)."""

    def __init__(self, call_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.call_id = call_id
        self.name = ""
        self.arguments = ""
        self.status = ""
        self.result = ""
        self.is_error = False
        self.elapsed_ms = 0.0
        self.button = QToolButton(self)
        self.button.setObjectName("ToolCallSummary")
        self.button.setCheckable(True)
        self.button.setAutoRaise(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setArrowType(Qt.ArrowType.RightArrow)
        self.button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.button.toggled.connect(self._toggled)
        self.details = QLabel(self)
        self.details.setObjectName("ToolCallDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.details)

    def set_call(
        self, name: str, arguments: str, status: str, result: str = "", *, is_error: bool = False, elapsed_ms: float = 0.0
    ) -> None:
        self.name, self.arguments, self.status, self.result, self.is_error = name, arguments, status, result, is_error
        self.elapsed_ms = elapsed_ms
        self.refresh()

    @property
    def summary(self) -> str:
        return tool_line(self.name, self.arguments, self.status, self.result, limit=60, args_limit=40)

    @property
    def expanded(self) -> bool:
        return self.button.isChecked()

    def refresh(self) -> None:
        self.button.setText("Tool: " + self.summary)
        full = tool_line(self.name, self.arguments, self.status, self.result, limit=400, args_limit=200)
        self.button.setToolTip(f"{full}\n({'hide' if self.expanded else 'click to show'} the arguments and the whole result)")
        self.setAccessibleName(f"Tool {self.name}: {status_words(self.status)}")
        self.button.setAccessibleName(f"Tool call {self.summary}")
        colours = chat_colors(self.palette())
        fg = state_color("error", self.palette()) if self.is_error else colours.muted_fg
        pal = self.button.palette()
        pal.setColor(QPalette.ColorRole.ButtonText, fg)
        self.button.setPalette(pal)
        self.button.setStyleSheet(f"QToolButton#ToolCallSummary {{ color: {fg.name()}; font-size: 11px; padding: 0px; }}")
        result = escape(self.result) if self.result else "<i>(no result yet)</i>"
        self.details.setText(
            f"<div style='font-size:11px'><b>{escape(self.name)}</b> — {escape(status_words(self.status))}"
            + (f", {self.elapsed_ms:.0f} ms" if self.elapsed_ms else "")
            + f"<pre style='margin:2px 0'>{escape(pretty_arguments(self.arguments))}</pre>{result.replace(chr(10), '<br>')}</div>"
        )

    def _toggled(self, on: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.details.setVisible(on)
        self.refresh()


class ToolCallsView(QWidget):
    """The tool calls of one answer (hidden while there are none)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ToolCalls")
        self._rows: dict[str, ToolCallRow] = {}
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 2, 0, 0)
        self._lay.setSpacing(0)
        self.setAccessibleName("Tools used for this answer")
        self.hide()

    def rows(self) -> list[ToolCallRow]:
        return list(self._rows.values())

    def update_call(
        self, call_id: str, name: str, arguments: str, status: str, result: str = "", *, is_error: bool = False, elapsed_ms: float = 0.0
    ) -> ToolCallRow:
        """Add the call ``call_id`` or show its new state (a result replaces "running…")."""
        row = self._rows.get(call_id)
        if row is None:
            row = self._rows[call_id or f"call-{len(self._rows)}"] = ToolCallRow(call_id, self)
            self._lay.addWidget(row)
        row.set_call(name, arguments, status, result, is_error=is_error, elapsed_ms=elapsed_ms)
        self.show()
        return row
