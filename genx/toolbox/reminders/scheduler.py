"""Fires due timers, alarms and reminders: the hook the app announces them through.

:class:`ReminderScheduler` runs on the event loop. It sleeps until the soonest
item is due (one ``asyncio`` wait with a timeout; no polling), and wakes early
when the store changes (a new, sooner timer) or when an injected clock that can
be subscribed to moves (:class:`genx.realtime.ManualClock` in tests). Each due
item is passed to ``on_fire(Fired)`` and then removed from the store (a
repeating one is moved to its next occurrence after now, in the user's zone,
:func:`~genx.toolbox.reminders.repeat.next_after`): an item
is announced at least once, and exactly once unless the app dies between the
announcement and the removal. Items that came due while the app was closed
fire once when the scheduler starts, soonest first, with ``late=True`` (so are
any more than ``late_after_ms`` overdue).

The app's hook (``on_fire``) may be a plain function or a coroutine function;
it should return quickly (queue the chime and the spoken announcement, update
the window) because the next due item waits for it. An exception in the hook is
logged and the item still counts as fired.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from genx.deadline import within
from genx.realtime import Clock, SubscribableClock, wall_clock_ms
from genx.toolbox.clock import local_zone
from genx.toolbox.reminders.repeat import Repeat, next_after
from genx.toolbox.reminders.store import Reminder, ReminderStore, ReminderStoreError

__all__ = ["Fired", "OnFire", "ReminderScheduler"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Fired:
    """A due item being announced. ``late_by_ms`` is how long after its time it fired."""

    item: Reminder
    fired_ms: int
    late: bool

    @property
    def late_by_ms(self) -> int:
        return max(0, self.fired_ms - self.item.due_ms)


OnFire = Callable[[Fired], Awaitable[None] | None]


class ReminderScheduler:
    """Fires the store's due items through ``on_fire``; :meth:`start` it on the running loop."""

    __slots__ = ("_clock", "_fired", "_on_fire", "_task", "_zone", "late_after_ms", "store")

    def __init__(
        self,
        store: ReminderStore,
        on_fire: OnFire,
        *,
        clock: Clock = wall_clock_ms,
        late_after_ms: int = 5000,
        zone: tzinfo | None = None,
    ) -> None:
        self.store = store
        self._zone = zone  # where a repeating item's wall-clock time is kept; the machine's when None
        self._on_fire = on_fire
        self._clock = clock
        self.late_after_ms = late_after_ms
        self._task: asyncio.Task[None] | None = None
        self._fired: set[int] = set()  # fired, but the store could not remove them (disk full): not again this session

    def start(self) -> asyncio.Task[None]:
        """Run :meth:`run` as a task on the running loop (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="reminder-scheduler")
        return self._task

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run(self) -> None:
        """Fire due items until cancelled."""
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()

        def poke() -> None:  # from any thread: the store's listeners run where the change was made
            loop.call_soon_threadsafe(wake.set)

        unsubscribe = [self.store.subscribe(poke)]
        if isinstance(self._clock, SubscribableClock):
            unsubscribe.append(self._clock.subscribe(poke))
        try:
            while True:
                wake.clear()
                await self.fire_due()
                soonest = next((i for i in self.store.pending() if i.id not in self._fired), None)
                if soonest is None:
                    await wake.wait()
                    continue
                delay = (soonest.due_ms - self._clock()) / 1000.0
                if delay <= 0:
                    continue
                with contextlib.suppress(TimeoutError):
                    await within(wake.wait(), max(delay, 0.001))
        finally:
            for unsub in unsubscribe:
                unsub()

    async def fire_due(self) -> list[Fired]:
        """Fire everything due now (soonest first); returns what fired."""
        now = int(self._clock())
        fired: list[Fired] = []
        for item in self.store.due(now):
            if item.id in self._fired:
                continue
            event = Fired(item, now, late=now - item.due_ms > self.late_after_ms)
            try:
                result = self._on_fire(event)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("the reminder hook failed for %s %d; it counts as fired", item.kind, item.id)
            self._fired.add(item.id)
            try:
                await asyncio.to_thread(self._done, item, now)
            except ReminderStoreError as e:
                log.error("%s; %s %d stays in the file and fires again after a restart", e, item.kind, item.id)
            else:
                self._fired.discard(item.id)
            fired.append(event)
        return fired

    def _done(self, item: Reminder, now_ms: int) -> None:
        """A fired item leaves the store, or, repeating, moves to its next time after now."""
        if not item.repeat:
            self.store.remove(item.id)
            return
        try:
            repeat = Repeat(item.repeat)
        except ValueError:
            log.error("%s %d repeats %r, which is not a repeat; it fired once and is removed", item.kind, item.id, item.repeat)
            self.store.remove(item.id)
            return
        zone = self._zone if self._zone is not None else local_zone()
        due = datetime.fromtimestamp(item.due_ms / 1000, zone)
        following = next_after(due, repeat, datetime.fromtimestamp(now_ms / 1000, zone))
        self.store.reschedule(item.id, int(following.timestamp() * 1000))
