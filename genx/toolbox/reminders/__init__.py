"""Timers, alarms and reminders: persisted in the data directory, fired on time, even across a restart.

Owns the store (:mod:`.store`, one atomically written JSON file), the spoken
moments (:mod:`.when`), repeats (:mod:`.repeat`: daily, weekdays, weekends,
weekly; the next occurrence), what a cancel names (:mod:`.choose`), the
scheduler that fires due items and re-arms repeating ones (:mod:`.scheduler`)
and the five tools (:mod:`.tools`). Does not own how a fired item is announced:
the app passes ``on_fire`` (chime plus speech, even while muted, and the window)
to :meth:`Reminders.scheduler`; see :class:`ReminderScheduler` for the contract.
"""

from genx.toolbox.reminders.scheduler import Fired, OnFire, ReminderScheduler
from genx.toolbox.reminders.store import Kind, Reminder, ReminderStore, ReminderStoreError
from genx.toolbox.reminders.tools import Reminders, describe
from genx.toolbox.reminders.when import Moment, parse_when, spoken_span

__all__ = [
    "Fired",
    "Kind",
    "Moment",
    "OnFire",
    "Reminder",
    "ReminderScheduler",
    "ReminderStore",
    "ReminderStoreError",
    "Reminders",
    "describe",
    "parse_when",
    "spoken_span",
]
