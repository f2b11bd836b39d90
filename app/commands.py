"""App commands said or typed ("stop", "mute", "new conversation", "speak slower", "switch to push-to-talk") → loop calls.

:func:`handle_command` is the one mapping from :class:`genx.toolbox.AppCommand`
to :class:`genx.agentkit.events.LoopControl`: call it with the final transcript
(or a typed message) before any generation; when it returns True the utterance
was a command, was carried out, and must not be answered. Speaking rate: the
loop's ``adjust_speaking_rate(factor)`` when it has one (factor > 1 speaks
slower); without it the command is still taken (and logged), never sent to the model.
"""

from __future__ import annotations

import logging
from typing import Any

from genx.agentkit.events import Mode
from genx.toolbox import AppCommand, match_command

__all__ = ["RATE_STEP", "handle_command"]

log = logging.getLogger("parley.commands")

RATE_STEP = 1.15  # one "slower" lengthens speech by 15 %


def handle_command(loop: Any, text: str) -> bool:
    """Carry out ``text`` if it is an app command (module docstring); False when it is anything else."""
    cmd = match_command(text)
    if cmd is None:
        return False
    log.info("command %s from %r", cmd.value, text)
    if cmd is AppCommand.STOP:
        loop.stop_speaking()
    elif cmd is AppCommand.MUTE:
        loop.mute(True)
    elif cmd is AppCommand.UNMUTE:
        loop.mute(False)
    elif cmd is AppCommand.NEW_CONVERSATION:
        loop.new_conversation()
    elif cmd is AppCommand.PUSH_TO_TALK:
        loop.set_mode(Mode.PUSH_TO_TALK)
    elif cmd is AppCommand.HANDS_FREE:
        loop.set_mode(Mode.HANDS_FREE)
    elif cmd in (AppCommand.SPEAK_SLOWER, AppCommand.SPEAK_FASTER):
        adjust = getattr(loop, "adjust_speaking_rate", None)
        factor = RATE_STEP if cmd is AppCommand.SPEAK_SLOWER else 1 / RATE_STEP
        if callable(adjust):
            adjust(factor)
        else:
            log.warning("%s: this voice loop cannot change its speaking rate yet", cmd.value)
    return True
