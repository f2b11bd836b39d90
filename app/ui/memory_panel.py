"""The Memory window: what Parley remembers about the user, and the user's control over it.

Lists the remembered facts (newest first, with the day they were said), searches
them, corrects one (Edit: a new value for the same thing; the old value is
forgotten for good), deletes one or all (each after a confirmation) and pauses memory
("Remember what I tell you", the ``[memory] enabled`` setting: the controller
saves it). When the answer generator is remote, a notice says plainly that the
facts recalled for a question are sent to that provider with it.

Every database call runs in a worker thread (:class:`genx.memory.Memory` does
that); the dialog stays responsive. Nothing here logs a fact's words.

:func:`open_panel` and :func:`save_enabled` are the app controller's side: the
panel over the running loop's :class:`genx.memory.Memory` (or, without a loop,
one opened for the panel), and the toggle applied at once and saved to the file.

Does not own: the memory service (``genx.memory``), applying settings (the controller).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.memory_setup import memory_path, remote_generator
from genx.memory import Fact, Memory, MemoryStoreError

log = logging.getLogger(__name__)

__all__ = ["MemoryPanel", "open_panel", "save_enabled"]


class MemoryPanel(QDialog):
    """See the module docstring. ``remote``: who sees recalled facts ("" when the generator runs in-process)."""

    enabled_toggled = Signal(bool)  # the user paused (False) or resumed memory
    changed = Signal()  # the list was (re)loaded

    def __init__(
        self, memory: Memory, *, enabled: bool, remote: str = "", owns_memory: bool = False, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.memory = memory
        self.owns_memory = owns_memory  # close it with the dialog
        self.setWindowTitle("Memory")
        self.setAccessibleName("Memory")
        self.facts: list[Fact] = []
        self.confirm_box: QMessageBox | None = None
        self.edit_box: QInputDialog | None = None
        self.task: asyncio.Task[None] | None = None  # the database call in progress (tests await it)

        intro = QLabel("What Parley remembers about you. It stays on this computer; you decide what is kept.")
        intro.setWordWrap(True)
        self.remote_notice = QLabel()
        self.remote_notice.setWordWrap(True)
        self.remote_notice.setObjectName("MemoryRemoteNotice")
        self.set_remote(remote)
        self.enabled_box = QCheckBox("Remember what I tell you")
        self.enabled_box.setChecked(enabled)
        self.enabled_box.toggled.connect(self.enabled_toggled.emit)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search what Parley remembers")
        self.search.setAccessibleName("Search memory")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self.refresh())
        self.list = QListWidget()
        self.list.setAccessibleName("Remembered facts")
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status = QLabel()
        self.edit_button = QPushButton("&Edit…")
        self.edit_button.setEnabled(False)
        self.edit_button.clicked.connect(self.ask_edit_selected)
        self.list.itemDoubleClicked.connect(lambda _item: self.ask_edit_selected())
        self.delete_button = QPushButton("&Delete")
        self.delete_button.setEnabled(False)
        self.delete_button.clicked.connect(self.ask_delete_selected)
        self.clear_button = QPushButton("&Forget everything…")
        self.clear_button.clicked.connect(self.ask_clear)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        row = QHBoxLayout()
        row.addWidget(self.edit_button)
        row.addWidget(self.delete_button)
        row.addWidget(self.clear_button)
        row.addStretch(1)
        row.addWidget(buttons)
        col = QVBoxLayout(self)
        col.addWidget(intro)
        col.addWidget(self.remote_notice)
        col.addWidget(self.enabled_box)
        col.addWidget(self.search)
        col.addWidget(self.list, 1)
        col.addWidget(self.empty)
        col.addWidget(self.status)
        col.addLayout(row)
        self.resize(560, 460)
        self.refresh()

    # -- state --------------------------------------------------------------------------------------------------
    def set_remote(self, remote: str) -> None:
        if remote:
            self.remote_notice.setText(
                f"Your answers come from {remote}. The facts Parley recalls for a question are sent to it with the question."
            )
        self.remote_notice.setVisible(bool(remote))

    def set_enabled(self, on: bool) -> None:
        """Show the setting (without emitting :attr:`enabled_toggled`)."""
        self.enabled_box.blockSignals(True)
        self.enabled_box.setChecked(on)
        self.enabled_box.blockSignals(False)

    def _selection_changed(self) -> None:
        n = len(self.list.selectedItems())
        self.delete_button.setEnabled(n > 0)
        self.edit_button.setEnabled(n == 1)

    # -- database calls (worker threads) ------------------------------------------------------------------------
    def _run(self, coro: Any) -> asyncio.Task[None]:
        self.task = asyncio.ensure_future(coro)
        return self.task

    def refresh(self) -> asyncio.Task[None]:
        return self._run(self._refresh())

    async def _refresh(self) -> None:
        query = self.search.text().strip()
        try:
            if not _exists(self.memory):
                facts: list[Fact] = []  # nothing stored yet: the file is not created to find that out
            elif query:
                facts = await self.memory.search(query)
            else:
                facts = sorted(await self.memory.facts(), key=lambda f: -f.created_at)
        except MemoryStoreError as e:
            self.status.setText(f"Memory cannot be read: {e}")
            return
        self.facts = facts
        self.list.clear()
        for f in facts:
            day = time.strftime("%Y-%m-%d", time.localtime(f.created_at))
            item = QListWidgetItem(f"{f.text}    ({day})")
            item.setData(Qt.ItemDataRole.UserRole, f.id)
            item.setToolTip("Said in a conversation" if f.source != "explicit" else "You asked Parley to remember this")
            self.list.addItem(item)
        if facts:
            self.empty.hide()
        else:
            self.empty.setText("Nothing matches." if query else "Parley remembers nothing yet.")
            self.empty.show()
        self.clear_button.setEnabled(bool(facts) or bool(query))
        self._selection_changed()
        self.status.setText(f"{len(facts)} fact(s)" if facts else "")
        self.changed.emit()

    def selected_ids(self) -> list[int]:
        return [int(i.data(Qt.ItemDataRole.UserRole)) for i in self.list.selectedItems()]

    def ask_delete_selected(self) -> QMessageBox | None:
        ids = self.selected_ids()
        if not ids:
            return None
        what = "this fact" if len(ids) == 1 else f"these {len(ids)} facts"
        return self._confirm(f"Delete {what} for good? Parley will not bring it back.", lambda: self._run(self._delete(ids)))

    async def _delete(self, ids: list[int]) -> None:
        try:
            for i in ids:
                await self.memory.forget(i)
        except MemoryStoreError as e:
            self.status.setText(f"Could not delete: {e}")
            return
        await self._refresh()

    def ask_edit_selected(self) -> QInputDialog | None:
        """Ask for the corrected value of the one selected fact (non-modal; Enter saves, Escape keeps it)."""
        ids = self.selected_ids()
        fact = next((f for f in self.facts if ids and f.id == ids[0]), None)
        if fact is None or len(ids) != 1:
            return None
        box = QInputDialog(self)
        box.setWindowTitle("Correct what Parley remembers")
        box.setLabelText(f"{fact.text}\n\nThe correct {'note' if fact.attribute == 'note' else 'value'}:")
        box.setTextValue(fact.value)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.textValueSelected.connect(lambda value: self._run(self._edit(fact.id, value)))
        box.finished.connect(lambda _r: setattr(self, "edit_box", None))
        self.edit_box = box
        box.open()
        return box

    async def _edit(self, fact_id: int, value: str) -> None:
        try:
            if await self.memory.edit(fact_id, value) is None:
                self.status.setText("Nothing was changed (an empty value, or the fact is gone).")
                return
        except MemoryStoreError as e:
            self.status.setText(f"Could not change it: {e}")
            return
        await self._refresh()

    def ask_clear(self) -> QMessageBox:
        return self._confirm("Delete everything Parley remembers about you? This cannot be undone.", lambda: self._run(self._clear()))

    async def _clear(self) -> None:
        try:
            if _exists(self.memory):
                await self.memory.clear()
        except MemoryStoreError as e:
            self.status.setText(f"Could not delete: {e}")
            return
        await self._refresh()

    def _confirm(self, text: str, on_yes: Any) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Memory", text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def done(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is box.button(QMessageBox.StandardButton.Yes):
                on_yes()

        box.finished.connect(done)
        self.confirm_box = box
        box.open()
        return box

    def done(self, r: int) -> None:
        if self.owns_memory:
            t = asyncio.ensure_future(self.memory.aclose())
            _closing.add(t)
            t.add_done_callback(_closing.discard)
        super().done(r)


_closing: set[asyncio.Future[None]] = set()


def _exists(memory: Memory) -> bool:
    path = memory.path
    return path is None or Path(path).exists()


def open_panel(controller: Any) -> MemoryPanel:
    """The Memory window (not shown yet) over the running loop's memory, or, without a loop, one opened for it."""
    memory = getattr(controller.loop, "memory", None)
    owns = memory is None
    if memory is None:
        memory = Memory(memory_path(controller.store))
    s = controller.settings
    panel = MemoryPanel(memory, enabled=s.memory.enabled, remote=remote_generator(s), owns_memory=owns, parent=controller.window)
    panel.enabled_toggled.connect(controller.set_memory_enabled)
    panel.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return panel


def save_enabled(
    settings: Any, on: bool, *, config_path: Path, apply: Callable[[Any], None], notice: Callable[[str], None]
) -> asyncio.Task[None]:
    """``apply`` the settings with ``[memory] enabled = on`` now (the running memory pauses or resumes) and save them."""
    from app.settings import save as save_settings

    new = settings.model_copy(deep=True)
    new.memory.enabled = on
    apply(new)

    async def save() -> None:
        try:
            await asyncio.to_thread(save_settings, new, config_path, base=settings)
        except Exception as e:
            notice(f"Could not save the memory setting: {e}")

    return asyncio.ensure_future(save())
