"""The conversation as chat bubbles: live (greyed) user partials, assistant text that firms up as it is spoken.

Invariants:
* a user bubble shows a partial transcript (greyed, italic) until ``set_final``; ``text()`` is what the user said.
* an assistant bubble's ``text()`` is what the user heard: while streaming, the spoken prefix; after an
  interruption, only the spoken text (the dropped remainder is shown struck through but is not part of ``text()``).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QMargins, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from app.ui.theme import chat_colors, mix, state_color
from app.ui.widgets.tool_calls import ToolCallsView


def _html(text: str) -> str:
    return escape(text).replace("\n", "<br>")


class Bubble(QFrame):
    """One message. Subclasses decide the text shown; the frame handles colours, width and accessibility."""

    role = "assistant"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Bubble")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.badge = QLabel(self)
        self.badge.setObjectName("Badge")
        self.badge.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 9, 14, 9)
        lay.setSpacing(4)
        lay.addWidget(self.label)
        lay.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignLeft)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Minimum)
        self._restyling = False
        self._plain = ""

    def text(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def restyle(self) -> None:
        if self._restyling:
            return
        self._restyling = True
        try:
            c = chat_colors(self.palette())
            fg = c.user_fg if self.role == "user" else c.assistant_fg
            lp = self.label.palette()
            lp.setColor(QPalette.ColorRole.WindowText, fg)
            lp.setColor(QPalette.ColorRole.Text, fg)
            self.label.setPalette(lp)
            self.badge.setStyleSheet(
                f"background: {c.badge_bg.name()}; color: {c.badge_fg.name()}; border-radius: 8px; padding: 1px 8px; font-size: 11px;"
            )
            self.refresh()
            self.update()
        finally:
            self._restyling = False

    def set_html(self, html: str, plain: str) -> None:
        """Show ``html``; ``plain`` (the same words) sizes the bubble: as wide as its longest line, up to the max width."""
        self.label.setText(html)
        self._plain = plain
        self.refit()

    def refit(self) -> None:
        fm = QFontMetrics(self.label.font())
        natural = max((fm.horizontalAdvance(line) for line in self._plain.split("\n")), default=0) + 4
        if self.badge.isVisibleTo(self):
            natural = max(natural, self.badge.sizeHint().width())
        lay = self.layout()
        m = lay.contentsMargins() if lay is not None else QMargins()
        room = self.maximumWidth() - m.left() - m.right()
        self.label.setMinimumWidth(max(0, min(natural, room)))
        self.updateGeometry()

    def paintEvent(self, event: QPaintEvent) -> None:
        c = chat_colors(self.palette())
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(c.user_bg if self.role == "user" else c.assistant_bg)
        p.drawRoundedRect(QRectF(self.rect()), 14, 14)

    def refresh(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.restyle()
        super().changeEvent(event)


class UserBubble(Bubble):
    role = "user"

    def __init__(self, text: str = "", *, partial: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = text
        self._partial = partial
        self.restyle()

    @property
    def is_partial(self) -> bool:
        return self._partial

    def text(self) -> str:
        return self._text

    def set_partial(self, text: str) -> None:
        self._text, self._partial = text, True
        self.refresh()

    def set_final(self, text: str) -> None:
        self._text, self._partial = text, False
        self.refresh()

    def refresh(self) -> None:
        c = chat_colors(self.palette())
        if self._partial:
            shown = _html(self._text) if self._text else "…"
            grey = mix(c.user_fg, c.user_bg, 0.35)
            self.set_html(f"<i style='color:{grey.name()}'>{shown} …</i>", f"{self._text} …")
            self.setAccessibleName(f"You are saying: {self._text}")
        else:
            self.set_html(_html(self._text), self._text)
            self.setAccessibleName(f"You said: {self._text}")


class AssistantBubble(Bubble):
    role = "assistant"

    def __init__(self, text: str = "", *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._generated = text
        self._spoken = ""
        self._done = bool(text)
        self._interrupted = False
        self._note = ""
        self.tools = ToolCallsView(self)  # the answer's tool calls, under its text (hidden while none)
        lay = self.layout()
        if isinstance(lay, QVBoxLayout):
            lay.insertWidget(1, self.tools)
        self.restyle()

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    @property
    def done(self) -> bool:
        return self._done

    def generated_text(self) -> str:
        return self._generated

    def dropped_text(self) -> str:
        """The part that was generated but never spoken (only after an interruption)."""
        return self._generated[len(self._spoken) :] if self._interrupted and self._generated.startswith(self._spoken) else ""

    def text(self) -> str:
        if self._interrupted:
            return self._spoken
        if self._done:
            return self._generated or self._spoken
        return self._spoken

    def append(self, delta: str) -> None:
        self._generated += delta
        self.refresh()

    def set_spoken(self, spoken: str) -> None:
        """The cumulative text heard so far."""
        self._spoken = spoken
        if not self._generated.startswith(spoken) and len(spoken) > len(self._generated):
            self._generated = spoken
        self.refresh()

    def finish(self, *, interrupted: bool, spoken_text: str | None = None, note: str = "") -> None:
        self._done = True
        self._interrupted = interrupted
        self._note = note
        if spoken_text is not None:
            if interrupted or not self._generated:
                self._spoken = spoken_text
            if not self._generated:
                self._generated = spoken_text
        self.refresh()

    def refresh(self) -> None:
        c = chat_colors(self.palette())
        spoken = self._spoken
        gen = self._generated
        rest = gen[len(spoken) :] if gen.startswith(spoken) else ""
        if self._interrupted:
            html = _html(spoken)
            if rest.strip():
                html += f"<s style='color:{c.dropped_fg.name()}'>{_html(rest)}</s>"
            if not spoken.strip() and not rest.strip():
                html = f"<span style='color:{c.muted_fg.name()}'>(nothing was said)</span>"
            self.badge.setText(self._note or "Interrupted — the struck-out part was not spoken")
            self.badge.show()
            self.set_html(html, spoken + rest)
            self.setAccessibleName(f"Parley said, interrupted: {spoken}")
        elif self._done:
            if self._note:
                self.badge.setText(self._note)
                self.badge.show()
            else:
                self.badge.hide()
            self.set_html(_html(gen or spoken), gen or spoken)
            self.setAccessibleName(f"Parley said: {gen or spoken}")
        else:
            shown = _html(spoken) + (f"<span style='color:{c.muted_fg.name()}'>{_html(rest)}</span>" if rest else "")
            if not gen and not spoken:
                shown = f"<span style='color:{c.muted_fg.name()}'>…</span>"
            self.badge.hide()
            self.set_html(shown, (spoken + rest) or "…")
            self.setAccessibleName(f"Parley is saying: {spoken}")


class Notice(QLabel):
    """A centred, muted system line (errors, 'new conversation', loading notes)."""

    def __init__(self, text: str, *, error: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setObjectName("Notice")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error = error
        self.setAccessibleName(("Error: " if error else "Note: ") + text)
        self.setContentsMargins(24, 4, 24, 4)
        f = self.font()
        f.setPointSizeF(f.pointSizeF() * 0.9)
        self.setFont(f)
        self._restyling = False
        self._restyle()

    def _restyle(self) -> None:
        if self._restyling:
            return
        self._restyling = True
        try:
            colour = state_color("error", self.palette()) if self.error else chat_colors(self.palette()).muted_fg
            pal = self.palette()
            pal.setColor(QPalette.ColorRole.WindowText, colour)
            self.setPalette(pal)
        finally:
            self._restyling = False

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()
        super().changeEvent(event)


class ChatView(QScrollArea):
    """Scrollable column of bubbles; sticks to the bottom unless the user scrolled up to read."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatScroll")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Conversation")
        self._container = QWidget()
        self._container.setObjectName("ChatContainer")
        self._layout = QVBoxLayout(self._container)
        self._layout.setContentsMargins(18, 18, 18, 18)
        self._layout.setSpacing(10)
        self._empty = QLabel(
            "<div style='font-size:15px; font-weight:600'>Say hello</div>"
            "<div>Hold the talk button or press <b>Space</b> to speak — or type below.</div>",
            self._container,
        )
        self._empty.setObjectName("EmptyHint")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._layout.addStretch(1)
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
        self.setWidget(self._container)
        self._rows: list[QWidget] = []
        self._stick = True
        self.verticalScrollBar().rangeChanged.connect(self._on_range)
        self.verticalScrollBar().valueChanged.connect(self._on_scroll)

    # -- content -----------------------------------------------------------------------------------------------
    def bubbles(self) -> list[Bubble]:
        return [w for row in self._rows for w in row.findChildren(Bubble)]

    def notices(self) -> list[Notice]:
        return [w for w in self._rows if isinstance(w, Notice)]

    def clear(self) -> None:
        for row in self._rows:
            self._layout.removeWidget(row)
            row.deleteLater()
        self._rows.clear()
        self._set_empty(True)
        self._stick = True
        self.changed.emit()

    def add_user(self, text: str = "", *, partial: bool = False) -> UserBubble:
        b = UserBubble(text, partial=partial)
        self._add_row(b, right=True)
        return b

    def add_assistant(self, text: str = "") -> AssistantBubble:
        b = AssistantBubble(text)
        self._add_row(b, right=False)
        return b

    def remove(self, bubble: Bubble) -> None:
        """Take ``bubble`` out of the conversation (an answer dropped before anyone heard it)."""
        for row in list(self._rows):
            if bubble in row.findChildren(Bubble):
                self._layout.removeWidget(row)
                row.deleteLater()
                self._rows.remove(row)
        self._set_empty(not self._rows)
        self.changed.emit()

    def add_notice(self, text: str, *, error: bool = False) -> Notice:
        n = Notice(text, error=error)
        self._insert(n)
        return n

    def _add_row(self, bubble: Bubble, *, right: bool) -> None:
        row = QWidget()
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        if right:
            lay.addStretch(1)
            lay.addWidget(bubble)
        else:
            lay.addWidget(bubble)
            lay.addStretch(1)
        bubble.setMaximumWidth(self._bubble_width())
        bubble.refit()
        self._insert(row)

    def _insert(self, row: QWidget) -> None:
        self._set_empty(False)
        # Layout: [stretch, rows…, empty hint, bottom stretch]: rows sit at the bottom, like every chat.
        self._layout.insertWidget(self._layout.count() - 2, row)
        self._rows.append(row)
        self.changed.emit()

    def _set_empty(self, empty: bool) -> None:
        self._empty.setVisible(empty)
        self._layout.setStretch(self._layout.count() - 1, 1 if empty else 0)

    # -- geometry ----------------------------------------------------------------------------------------------
    def _bubble_width(self) -> int:
        return max(220, int(self.viewport().width() * 0.74))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        w = self._bubble_width()
        for b in self.bubbles():
            b.setMaximumWidth(w)
            b.refit()

    def _on_scroll(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick = value >= bar.maximum() - 24

    def _on_range(self, _min: int, maximum: int) -> None:
        if self._stick:
            bar = self.verticalScrollBar()
            QTimer.singleShot(0, bar, lambda: bar.setValue(bar.maximum()))
