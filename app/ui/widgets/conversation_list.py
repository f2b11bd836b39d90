"""The sidebar list of past conversations (newest first); activating one asks to reopen it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.theme import mix

_ID_ROLE = Qt.ItemDataRole.UserRole + 1
_TITLE_ROLE = Qt.ItemDataRole.UserRole + 2
_WHEN_ROLE = Qt.ItemDataRole.UserRole + 3
_BROKEN_ROLE = Qt.ItemDataRole.UserRole + 4


class _EntryDelegate(QStyledItemDelegate):
    """Two lines: the title (elided) and a muted date; a rounded highlight for the open conversation."""

    PAD = 10

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        fm = QFontMetrics(option.font)
        return QSize(160, fm.height() * 2 + self.PAD * 2 - 2)

    def paint(self, p: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        # The view's own palette has a transparent Window (style sheet): take the application's colours.
        pal: QPalette = QApplication.palette()
        text = pal.color(QPalette.ColorRole.Text)
        window = pal.color(QPalette.ColorRole.Window)
        r = QRect(option.rect).adjusted(4, 1, -4, -1)
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        if selected or hovered:
            accent = pal.color(QPalette.ColorRole.Highlight)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(mix(accent, window, 0.78) if selected else mix(window, text, 0.06))
            p.drawRoundedRect(r, 8, 8)
        fm = QFontMetrics(option.font)
        inner = r.adjusted(self.PAD, self.PAD - 2, -self.PAD, -self.PAD + 2)
        title = str(index.data(_TITLE_ROLE) or "")
        when = str(index.data(_WHEN_ROLE) or "")
        if index.data(_BROKEN_ROLE):
            when = (when + "  ·  " if when else "") + "some lines unreadable"
        f = QFont(option.font)
        if selected:
            f.setWeight(f.Weight.DemiBold)
        p.setFont(f)
        p.setPen(text)
        p.drawText(inner.x(), inner.y() + fm.ascent(), QFontMetrics(f).elidedText(title, Qt.TextElideMode.ElideRight, inner.width()))
        p.setFont(QFont(option.font))
        p.setPen(mix(text, window, 0.45))
        p.drawText(inner.x(), inner.y() + fm.height() + fm.ascent(), fm.elidedText(when, Qt.TextElideMode.ElideRight, inner.width()))
        p.restore()


@dataclass(frozen=True, slots=True)
class ConversationEntry:
    """What the sidebar shows for one stored conversation."""

    conversation_id: str
    title: str
    updated: datetime | None = None
    turns: int = 0
    broken: bool = False  # the file is (partly) unreadable


def _when(dt: datetime | None) -> str:
    if dt is None:
        return ""
    now = datetime.now(dt.tzinfo)
    days = (now.date() - dt.date()).days
    if days == 0:
        return "Today, " + dt.strftime("%H:%M")
    if days == 1:
        return "Yesterday, " + dt.strftime("%H:%M")
    if dt.year == now.year:
        return dt.strftime("%d %b")
    return dt.strftime("%d %b %Y")


class ConversationList(QWidget):
    """``opened(conversation_id)`` when the user activates an entry; ``new_requested`` for the button."""

    opened = Signal(str)
    new_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.new_button = QPushButton("+  New conversation", self)
        self.new_button.setAccessibleName("New conversation")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(self.new_requested)
        title = QLabel("Conversations", self)
        title.setObjectName("SidebarTitle")
        self.list = QListWidget(self)
        self.list.setObjectName("ConversationList")
        self.list.setAccessibleName("Past conversations")
        self.list.setItemDelegate(_EntryDelegate(self.list))
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMouseTracking(True)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        self.empty = QLabel("Past conversations appear here.", self)
        self.empty.setObjectName("EmptyHint")
        self.empty.setWordWrap(True)
        self.empty.setContentsMargins(12, 4, 12, 4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 10, 8, 8)
        lay.setSpacing(6)
        lay.addWidget(self.new_button)
        lay.addSpacing(4)
        lay.addWidget(title)
        lay.addWidget(self.empty)
        lay.addWidget(self.list, 1)
        self.setMinimumWidth(180)
        self._current = ""

    def set_entries(self, entries: list[ConversationEntry], current: str = "") -> None:
        self.list.clear()
        for e in entries:
            title = " ".join(e.title.split()) or "(empty)"
            when = _when(e.updated)
            item = QListWidgetItem(f"{title}, {when}" if when else title)  # the text is what screen readers say
            item.setData(_ID_ROLE, e.conversation_id)
            item.setData(_TITLE_ROLE, title)
            item.setData(_WHEN_ROLE, when)
            item.setData(_BROKEN_ROLE, e.broken)
            item.setToolTip(title + ("\n(some lines of this file could not be read)" if e.broken else ""))
            self.list.addItem(item)
        self.empty.setVisible(not entries)
        self.mark_current(current)

    def ids(self) -> list[str]:
        return [str(self.list.item(i).data(_ID_ROLE)) for i in range(self.list.count())]

    def mark_current(self, conversation_id: str) -> None:
        self._current = conversation_id
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.data(_ID_ROLE) == conversation_id:
                self.list.setCurrentItem(item)
                return
        self.list.clearSelection()

    def _activated(self, item: QListWidgetItem) -> None:
        cid = str(item.data(_ID_ROLE))
        if cid and cid != self._current:
            self.opened.emit(cid)
