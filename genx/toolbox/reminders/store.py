"""Timers, alarms and reminders kept in one JSON file in the data directory.

The file (``reminders.json``) holds ``{"version": 1, "next_id": N, "items": [...]}``
and is rewritten atomically (:func:`genx.files.write_atomic`) on every change,
so a crash leaves the old or the new list, never a torn one. Only pending items
are kept: an item leaves the file when it is cancelled or after it has fired; a
repeating one (``repeat``) is moved to its next time instead (:meth:`ReminderStore.reschedule`).
A file that cannot be read is moved aside (``reminders.json.unreadable-<ms>``,
nothing is lost) and the store starts empty; :attr:`ReminderStore.problem` says so.

Thread-safe: the tools run in worker threads, the scheduler on the event loop.
:meth:`ReminderStore.subscribe` tells listeners after each change (from the
thread that made it).
"""

from __future__ import annotations

import enum
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from genx.errors import GenxError
from genx.files import write_atomic

__all__ = ["FILE_NAME", "Kind", "Reminder", "ReminderStore", "ReminderStoreError"]

log = logging.getLogger(__name__)

FILE_NAME = "reminders.json"


class ReminderStoreError(GenxError):
    """The reminders file cannot be written (disk full, read-only data directory)."""


class Kind(enum.StrEnum):
    TIMER = "timer"
    ALARM = "alarm"
    REMINDER = "reminder"


class Reminder(BaseModel):
    """One pending item. Times are Unix milliseconds (UTC)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: int = Field(ge=1)
    kind: Kind
    due_ms: int
    created_ms: int
    label: str = ""  # the timer's name, or the reminder's text
    duration_s: float | None = None  # what a timer was set for
    repeat: str = ""  # "" once, else a :class:`~genx.toolbox.reminders.repeat.Repeat` value; due_ms is the next one


class _File(BaseModel):
    model_config = ConfigDict(extra="ignore")

    version: int = 1
    next_id: int = 1
    items: list[Reminder] = []


class ReminderStore:
    """The pending items of one data directory."""

    __slots__ = ("_data", "_listeners", "_lock", "path", "problem")

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.path = Path(data_dir) / FILE_NAME
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self.problem = ""
        self._data = self._load()

    def _load(self) -> _File:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return _File()
        except OSError as e:
            raise ReminderStoreError(f"cannot read {self.path}: {e.strerror or e}") from e
        try:
            data = _File.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError, UnicodeDecodeError) as e:
            aside = self.path.with_name(f"{self.path.name}.unreadable-{int(os.path.getmtime(self.path) * 1000)}")
            os.replace(self.path, aside)
            self.problem = f"{self.path} could not be read ({type(e).__name__}); it was kept as {aside.name} and the list starts empty"
            log.warning("%s", self.problem)
            return _File()
        data.next_id = max([data.next_id, *(i.id + 1 for i in data.items)])
        return data

    def _save(self) -> None:
        try:
            write_atomic(self.path, self._data.model_dump_json(indent=1) + "\n")
        except OSError as e:
            raise ReminderStoreError(f"cannot save timers and reminders to {self.path}: {e.strerror or e}") from e

    def _changed(self) -> None:
        for cb in list(self._listeners):
            try:
                cb()
            except Exception:
                log.exception("reminder store listener failed")

    # -- reading ---------------------------------------------------------------
    def pending(self) -> list[Reminder]:
        """Every pending item, soonest first."""
        with self._lock:
            return sorted(self._data.items, key=lambda i: (i.due_ms, i.id))

    def due(self, now_ms: float) -> list[Reminder]:
        """Items due at ``now_ms`` or before, soonest first."""
        return [i for i in self.pending() if i.due_ms <= now_ms]

    def next_due(self) -> Reminder | None:
        items = self.pending()
        return items[0] if items else None

    def get(self, item_id: int) -> Reminder | None:
        with self._lock:
            return next((i for i in self._data.items if i.id == item_id), None)

    # -- changing --------------------------------------------------------------
    def add(
        self, kind: Kind, due_ms: int, *, created_ms: int, label: str = "", duration_s: float | None = None, repeat: str = ""
    ) -> Reminder:
        with self._lock:
            item = Reminder(
                id=self._data.next_id, kind=kind, due_ms=due_ms, created_ms=created_ms, label=label, duration_s=duration_s, repeat=repeat
            )
            self._data.items.append(item)
            self._data.next_id += 1
            try:
                self._save()
            except ReminderStoreError:
                self._data.items.remove(item)
                self._data.next_id -= 1
                raise
        self._changed()
        return item

    def remove(self, *item_ids: int) -> list[Reminder]:
        """Remove the items with these ids (cancelled or fired); returns those that were there."""
        with self._lock:
            gone = [i for i in self._data.items if i.id in item_ids]
            if not gone:
                return []
            before = list(self._data.items)
            self._data.items = [i for i in self._data.items if i.id not in item_ids]
            try:
                self._save()
            except ReminderStoreError:
                self._data.items = before
                raise
        self._changed()
        return gone

    def reschedule(self, item_id: int, due_ms: int) -> Reminder | None:
        """Move a (repeating) item to its next ``due_ms``; ``None`` when it is gone (cancelled meanwhile)."""
        with self._lock:
            index = next((n for n, i in enumerate(self._data.items) if i.id == item_id), None)
            if index is None:
                return None
            before = self._data.items[index]
            moved = before.model_copy(update={"due_ms": due_ms})
            self._data.items[index] = moved
            try:
                self._save()
            except ReminderStoreError:
                self._data.items[index] = before
                raise
        self._changed()
        return moved

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` after each change; returns the unsubscribe function."""
        with self._lock:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe

    def __repr__(self) -> str:
        return f"ReminderStore({str(self.path)!r}, pending={len(self._data.items)})"
