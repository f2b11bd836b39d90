"""The app's assistant: the tool-using generator the voice loop and ``parley ask`` answer with, and the timers behind it.

:func:`build_assistant` is the one place that makes it from the settings and the
loaded generators (``app.voice_stack.build_stack``, the window's text-only loop and
``parley ask`` all call it): the offline tools (time, dates, calculator, units,
timers/alarms/reminders kept in ``<user data>/parley/reminders``) around the
generator mux as a :class:`genx.assistant.AssistantGenerator`.

:class:`Assistant` also owns the reminder scheduler: :meth:`Assistant.start` it
with the app (on the running loop); every due timer, alarm or reminder becomes
one sentence passed to :attr:`Assistant.announce` — a plain ``announce(text)``
hook that the session connects to :meth:`genx.agentkit.loop.VoiceLoop.announce`
(a chime and the words, when nobody is talking, even while muted; the window and
``--headless`` show it from the loop's ``Announcement`` event); until then it is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from genx.assistant import AssistantGenerator
from genx.generators import Generator
from genx.toolbox import Fired, Reminders, offline_tools
from genx.toolbox.reminders.store import Kind
from genx.toolbox.reminders.tools import describe

__all__ = ["Announce", "Assistant", "announcement", "build_assistant", "reminders_dir"]

log = logging.getLogger("parley.assistant")

Announce = Callable[[str], object]  # the return value (e.g. an announcement id) is not used


def reminders_dir() -> Path:
    import platformdirs

    return platformdirs.user_data_path("parley") / "reminders"


def announcement(fired: Fired, now: datetime) -> str:
    """What is said when ``fired`` comes due ("Time's up: timer 1 (pasta) for 10 minutes.")."""
    item = fired.item
    late = " (it came due while Parley was closed)" if fired.late else ""
    if item.kind is Kind.REMINDER:
        return f"Reminder: {item.label or 'you asked me to remind you now'}{late}."
    return f"Time's up: {describe(item, now, future=False)}{late}."


class Assistant:
    """The generator, the reminders and their scheduler; ``announce`` is replaceable at any time."""

    def __init__(self, generator: AssistantGenerator, reminders: Reminders, *, announce: Announce | None = None) -> None:
        self.generator = generator
        self.reminders = reminders
        self.announce: Announce = announce if announce is not None else self._log
        self.scheduler = reminders.scheduler(self._fired)
        self.announced: list[str] = []

    @staticmethod
    def _log(text: str) -> None:
        log.info("announce: %s", text)

    def _fired(self, fired: Fired) -> None:
        text = announcement(fired, self.reminders.now())
        self.announced.append(text)
        log.info("%s %d fired: %s", fired.item.kind, fired.item.id, text)
        try:
            self.announce(text)
        except Exception:
            log.exception("the announce hook failed for %r", text)

    def start(self) -> None:
        """Start firing due items (call on the running loop; idempotent)."""
        self.scheduler.start()

    async def stop(self) -> None:
        await self.scheduler.stop()


def build_assistant(settings: Any, generators: Generator, *, data_dir: Path | None = None, announce: Announce | None = None) -> Assistant:
    """The assistant over ``generators`` (a loaded GeneratorMux) with the offline tools (module docstring)."""
    reminders = Reminders(data_dir if data_dir is not None else reminders_dir())
    tools = offline_tools(reminders)
    return Assistant(AssistantGenerator(generators, tools), reminders, announce=announce)
