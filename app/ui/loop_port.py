"""What the window needs from the voice loop: the loop's command surface plus a way to close it.

The events and :class:`LoopControl` come from :mod:`genx.agentkit.events` unchanged; this module only adds
the life-cycle methods the window calls at shutdown, and helpers that make commands safe to call whether a
loop implements them synchronously or as coroutines.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any, Protocol, runtime_checkable

from genx.agentkit.events import EventBus, LoopControl, LoopState, Mode
from genx.deadline import Deadline

log = logging.getLogger(__name__)

# the wait for a closer that was given the deadline ends this long after it
CLOSE_MARGIN_S = 1.0

__all__ = ["ClosableLoop", "EventBus", "LoopControl", "LoopState", "Mode", "call_command", "close_loop"]


@runtime_checkable
class ClosableLoop(LoopControl, Protocol):
    """A running loop the window owns: ``aclose`` stops capture/playback, flushes history and joins workers."""

    async def aclose(self, deadline: Deadline | float | None = None) -> None: ...


_background: set[asyncio.Task[Any]] = set()


def call_command(loop: object, name: str, *args: Any) -> bool:
    """Call ``loop.<name>(*args)``; a coroutine result is scheduled. False (logged) when the loop lacks it or it raised."""
    fn = getattr(loop, name, None)
    if fn is None:
        log.warning("the voice loop has no %s command", name)
        return False
    try:
        result = fn(*args)
    except Exception:
        log.exception("voice loop command %s failed", name)
        return False
    if inspect.isawaitable(result):
        task = asyncio.ensure_future(result)
        _background.add(task)
        task.add_done_callback(_finished)
    return True


def _finished(task: asyncio.Task[Any]) -> None:
    _background.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("voice loop command failed", exc_info=task.exception())


async def close_loop(loop: object, grace: Deadline | float = 5.0) -> None:
    """Close a loop (``aclose``/``close``/``stop``, whichever exists) within one deadline, so quitting never hangs.

    A closer that takes a ``deadline`` gets it and divides it among its steps (the answer's cut, the history,
    the devices); the wait here is only the safety net after it (``CLOSE_MARGIN_S`` later)."""
    deadline = Deadline.of(grace, 5.0)
    for name in ("aclose", "close", "stop"):
        fn = getattr(loop, name, None)
        if fn is None:
            continue
        try:
            result = fn(deadline=deadline) if _takes_deadline(fn) else fn()
            if inspect.isawaitable(result):
                ok, _ = await Deadline(deadline.at + CLOSE_MARGIN_S, deadline.clock).wait(result)
                if not ok:
                    log.error(
                        "the voice loop did not close within %.1f s; quitting anyway", CLOSE_MARGIN_S + deadline.at - deadline.clock()
                    )
        except Exception:
            log.exception("closing the voice loop failed")
        return


def _takes_deadline(fn: Any) -> bool:
    try:
        return "deadline" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
