"""The engine's ready-made tools: offline answers for the things a desktop assistant is asked every day.

Owns, each a :class:`~genx.tools.FuncTool` with a JSON schema and answers in
sentences (bad input → an error result a user can act on, via
:class:`~genx.errors.ToolFailure`):

* ``current_time`` / ``date_info`` (:mod:`.timeinfo`): the time in any city,
  country or zone (:mod:`.places`: GeoNames-derived table in ``data/``), the
  weekday of a date, days until it, a date some time from now (:mod:`.dates`;
  holidays by name, Easter and the US n-th-weekday ones computed, :mod:`.holidays`);
* ``calculate`` (:mod:`.calc`): arithmetic without ``eval``, with size limits;
* ``convert_units`` (:mod:`.units`): pint conversions, temperatures included;
* ``set_timer`` / ``set_alarm`` / ``set_reminder`` / ``list_timers`` /
  ``cancel_timer`` (:mod:`.reminders`): kept in the data directory and fired by
  a scheduler whose ``on_fire`` hook the app announces through;
* user webhook tools from the config file (:mod:`.webhooks`), the only ones
  that use the network;
* app commands ("stop", "mute", "speak slower") matched without a model (:mod:`.commands`).

Shared helpers: spoken numbers (:mod:`.numwords`), lengths of time
(:mod:`.spans`), the injectable clock and zone (:mod:`.clock`).

Does not own: running tool calls in generation rounds (:mod:`genx.toolrounds`),
routing an utterance to a tool (:mod:`genx.match`), announcing fired reminders
(the app's ``on_fire`` hook), or the app's config file (the app builds
:class:`.webhooks.WebhookSpec` s from it).
"""

from __future__ import annotations

from datetime import tzinfo

from genx.realtime import Clock, wall_clock_ms
from genx.toolbox.calc import calculator_tool
from genx.toolbox.commands import AppCommand, match_command
from genx.toolbox.reminders import Fired, Reminders, ReminderScheduler
from genx.toolbox.timeinfo import date_tool, time_tool
from genx.toolbox.units import units_tool
from genx.toolbox.webhooks import WebhookSpec, webhook_tool, webhook_tools
from genx.tools import FuncTool

__all__ = [
    "AppCommand",
    "Fired",
    "ReminderScheduler",
    "Reminders",
    "WebhookSpec",
    "match_command",
    "offline_tools",
    "webhook_tool",
    "webhook_tools",
]


def offline_tools(
    reminders: Reminders | None = None, *, clock: Clock = wall_clock_ms, zone: tzinfo | None = None, hours24: bool = False
) -> list[FuncTool]:
    """Time, date, calculator and unit tools, plus the timer tools of ``reminders`` when given."""
    tools = [time_tool(clock, zone, hours24=hours24), date_tool(clock, zone), calculator_tool(), units_tool()]
    if reminders is not None:
        tools.extend(reminders.tools())
    return tools
