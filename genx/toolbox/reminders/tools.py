"""The timer tools: ``set_timer``, ``set_alarm``, ``set_reminder``, ``list_timers``, ``cancel_timer``.

:class:`Reminders` ties a :class:`ReminderStore` (in the given data directory)
to a clock and the user's zone and builds the tools and the scheduler. Answers
are sentences to speak; bad input ("banana minutes", a time that has passed,
nothing to cancel) raises :class:`~genx.errors.ToolFailure` with a sentence too.
Alarms and reminders may repeat (:mod:`.repeat`: ``repeat="weekdays"``, or
said in the moment, "every weekday at 6:30"); cancelling one ends its series.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, tzinfo

from genx.errors import ToolFailure
from genx.toolbox.clock import Clock, local_zone, now_in, wall_clock_ms
from genx.toolbox.dates import spoken_date
from genx.toolbox.reminders.choose import NoMatch, Unclear, choose
from genx.toolbox.reminders.repeat import Repeat, first_on_or_after, next_after, parse_repeat, split_repeat, spoken_repeat
from genx.toolbox.reminders.scheduler import OnFire, ReminderScheduler
from genx.toolbox.reminders.store import Kind, Reminder, ReminderStore
from genx.toolbox.reminders.when import parse_when, spoken_span
from genx.toolbox.spans import parse_span
from genx.toolbox.timeinfo import spoken_time
from genx.tools import FuncTool

__all__ = ["MAX_AHEAD_S", "Reminders", "describe"]

MAX_AHEAD_S = 366 * 86400  # nothing further than a year ahead


class Reminders:
    """Timers, alarms and reminders of one data directory: the tools a model calls and the scheduler that fires them."""

    __slots__ = ("_clock", "_zone", "hours24", "store")

    def __init__(
        self, data_dir: str | os.PathLike[str], *, clock: Clock = wall_clock_ms, zone: tzinfo | None = None, hours24: bool = False
    ) -> None:
        self.store = ReminderStore(data_dir)
        self._clock = clock
        self._zone = zone
        self.hours24 = hours24

    def now(self) -> datetime:
        return now_in(self._clock, self._zone if self._zone is not None else local_zone())

    def scheduler(self, on_fire: OnFire, *, late_after_ms: int = 5000) -> ReminderScheduler:
        """The scheduler that calls ``on_fire`` for each due item (start it on the app's loop)."""
        return ReminderScheduler(self.store, on_fire, clock=self._clock, late_after_ms=late_after_ms, zone=self._zone)

    # -- the operations behind the tools ------------------------------------------------
    def set_timer(self, duration: str, label: str = "") -> Reminder:
        span = parse_span(duration, what="a timer length")
        now = self.now()
        due = span.add_to(now)
        seconds = due.timestamp() - now.timestamp()  # elapsed time (aware datetimes of one zone subtract wall clocks)
        if seconds <= 0:
            raise ToolFailure(f"A timer needs a length of time after now; {duration.strip()!r} is not.")
        self._check_ahead(seconds)
        return self._add(Kind.TIMER, due, label.strip(), duration_s=seconds)

    def set_alarm(self, time: str, label: str = "", repeat: str = "") -> Reminder:
        time, every = _repeat_of(time, repeat)
        return self._add(Kind.ALARM, self._future(time, "alarm", every), label.strip(), repeat=every)

    def set_reminder(self, text: str, when: str, repeat: str = "") -> Reminder:
        what = re.sub(r"^(?:remind me\s+)?(?:to)\s+", "", text.strip(), flags=re.IGNORECASE).strip(" .")
        if not what:
            raise ToolFailure("What should I remind you of? Say it like 'remind me to call my sister tomorrow morning'.")
        when, every = _repeat_of(when, repeat)
        return self._add(Kind.REMINDER, self._future(when, "reminder", every), what, repeat=every)

    def cancel(self, which: str = "") -> list[Reminder]:
        items = self.store.pending()
        if not items:
            raise ToolFailure("There are no timers, alarms or reminders to cancel.")
        try:
            chosen = choose(items, which, self.now())
        except Unclear as e:
            raise ToolFailure(f"Which one? You have: {'; '.join(self.describe(i) for i in e.items)}.") from None
        except NoMatch as e:
            raise ToolFailure(f"{e} You have: {'; '.join(self.describe(i) for i in items)}.") from None
        return self.store.remove(*(i.id for i in chosen))

    def describe(self, item: Reminder) -> str:
        return describe(item, self.now(), hours24=self.hours24)

    # -- helpers -----------------------------------------------------------------------
    def _future(self, text: str, what: str, repeat: Repeat | None = None) -> datetime:
        now = self.now()
        moment = parse_when(text, now)
        if repeat is not None:  # the first occurrence on a day the repeat covers, after now
            first = first_on_or_after(moment.when, repeat)
            return first if first > now else next_after(first, repeat, now)
        ahead = moment.when.timestamp() - now.timestamp()
        if ahead <= 0:
            raise ToolFailure(f"{text.strip()!r} has already passed; an {what} needs a time in the future.")
        self._check_ahead(ahead)
        return moment.when

    def _check_ahead(self, seconds: float) -> None:
        if seconds > MAX_AHEAD_S:
            raise ToolFailure("That is more than a year ahead; I can only keep timers and reminders up to a year.")

    def _add(self, kind: Kind, due: datetime, label: str, *, duration_s: float | None = None, repeat: Repeat | None = None) -> Reminder:
        created = int(self._clock())
        return self.store.add(
            kind, int(due.timestamp() * 1000), created_ms=created, label=label, duration_s=duration_s, repeat=repeat.value if repeat else ""
        )

    def tools(self) -> list[FuncTool]:
        """The five tools over this store; the ones that change it are ``side_effects`` tools (never run twice for one request)."""

        def set_timer(duration: str, label: str = "") -> str:
            """Start a countdown timer that rings when the time is up.

            Args:
                duration: how long, e.g. "10 minutes", "1 hour 30 minutes", "90 seconds".
                label: an optional name, e.g. "pasta".
            """
            item = self.set_timer(duration, label)
            return f"Timer {item.id} set for {spoken_span(item.duration_s or 0)}{_named(item)}; it rings {self._at(item)}."

        def set_alarm(time: str, label: str = "", repeat: str = "") -> str:
            """Set an alarm for a time of day, once or repeating.

            Args:
                time: when, e.g. "7:30 am", "6 pm", "tomorrow at 8", "Monday at 8".
                label: an optional name, e.g. "wake up".
                repeat: empty for once, or "daily", "weekdays", "weekends", "weekly" (on the day of the first one).
            """
            item = self.set_alarm(time, label, repeat)
            if item.repeat:
                return f"Alarm {item.id}{_named(item)} set for {self._every(item)}; the first rings {self._at(item)}."
            return f"Alarm {item.id} set for {self._at(item)}{_named(item)}."

        def set_reminder(text: str, when: str, repeat: str = "") -> str:
            """Remind the user of something at a time, once or repeating.

            Args:
                text: what to remind of, e.g. "call my sister".
                when: when, e.g. "tomorrow morning", "in 2 hours", "Friday at 6 pm".
                repeat: empty for once, or "daily", "weekdays", "weekends", "weekly" (on the day of the first one).
            """
            item = self.set_reminder(text, when, repeat)
            if item.repeat:
                return f"OK, I'll remind you {_about(item.label)} {self._every(item)}, starting {self._at(item)}."
            return f"OK, I'll remind you {_about(item.label)} {self._at(item)}."

        def list_timers() -> str:
            """List the pending timers, alarms and reminders."""
            items = self.store.pending()
            if not items:
                return "You have no timers, alarms or reminders."
            return f"You have {len(items)}: " + "; ".join(self.describe(i) for i in items) + "."

        def cancel_timer(which: str = "") -> str:
            """Cancel timers, alarms or reminders (a repeating one with its whole series).

            Args:
                which: its number ("2"), name ("pasta"), kind ("the alarm"), time ("7 am"), "all"; empty for the one just set.
            """
            gone = self.cancel(which)
            return "Cancelled " + "; ".join(describe(i, self.now(), hours24=self.hours24, future=False) for i in gone) + "."

        changing = [FuncTool.from_function(f, side_effects=True) for f in (set_timer, set_alarm, set_reminder)]
        return [*changing, FuncTool.from_function(list_timers), FuncTool.from_function(cancel_timer, side_effects=True)]

    def _at(self, item: Reminder) -> str:
        return _when_text(item, self.now(), hours24=self.hours24)

    def _every(self, item: Reminder) -> str:
        return _every_text(item, self.now(), hours24=self.hours24)


def _repeat_of(moment: str, repeat: str) -> tuple[str, Repeat | None]:
    """The repeat asked for, from ``repeat`` or else said within the moment ("every weekday at 6:30")."""
    every = parse_repeat(repeat)
    rest, said = split_repeat(moment)
    return (rest, said) if every is None and said is not None else (rest if said == every else moment, every)


def _every_text(item: Reminder, now: datetime, *, hours24: bool) -> str:
    due = datetime.fromtimestamp(item.due_ms / 1000, now.tzinfo)
    return spoken_repeat(Repeat(item.repeat), due, spoken_time(due, hours24=hours24))


def _named(item: Reminder) -> str:
    return f" ({item.label})" if item.label else ""


def _when_text(item: Reminder, now: datetime, *, hours24: bool) -> str:
    due = datetime.fromtimestamp(item.due_ms / 1000, now.tzinfo)
    clock = spoken_time(due, hours24=hours24)
    days = (due.date() - now.date()).days
    if days == 0:
        return f"at {clock}" if item.kind is Kind.TIMER else f"today at {clock}"
    if days == 1:
        return f"tomorrow at {clock}"
    if days < 7:
        return f"on {spoken_date(due.date()).split(',')[0]} at {clock}"
    return f"on {spoken_date(due.date())} at {clock}"


def describe(item: Reminder, now: datetime, *, hours24: bool = False, future: bool = True) -> str:
    """``timer 1 (pasta), rings in 9 minutes at 5:45 PM`` / ``reminder 3 to call my sister tomorrow at 9:00 AM``."""
    when = _when_text(item, now, hours24=hours24)
    if item.kind is Kind.TIMER:
        left = spoken_span(max(0.0, item.due_ms / 1000 - now.timestamp()))
        tail = f", rings in {left} {when}" if future else f" for {spoken_span(item.duration_s or 0)}"
        return f"timer {item.id}{_named(item)}{tail}"
    if item.repeat:
        every = _every_text(item, now, hours24=hours24)
        lead = f"alarm {item.id}{_named(item)}" if item.kind is Kind.ALARM else f"reminder {item.id} {_about(item.label)}"
        return f"{lead} {every}" + (f", next {when}" if future else "")
    if item.kind is Kind.ALARM:
        return f"alarm {item.id}{_named(item)} {when}"
    return f"reminder {item.id} {_about(item.label)} {when}"


def _about(label: str) -> str:
    """``to call my sister``, ``about the dentist``, ``that the oven is on``."""
    return label if re.match(r"(?:about|that|of)\b", label, flags=re.IGNORECASE) else f"to {label}"
