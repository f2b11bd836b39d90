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

log = logging.getLogger(__name__)

__all__ = ["ClosableLoop", "EventBus", "LoopControl", "LoopState", "Mode", "call_command", "close_loop"]


@runtime_checkable
class ClosableLoop(LoopControl, Protocol):
    """A running loop the window owns: ``aclose`` stops capture/playback, flushes history and joins workers."""

    async def aclose(self) -> None: ...


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


async def close_loop(loop: object, grace_s: float = 5.0) -> None:
    """Close a loop (``aclose``/``close``/``stop``, whichever exists), bounded by ``grace_s`` so quitting never hangs."""
    for name in ("aclose", "close", "stop"):
        fn = getattr(loop, name, None)
        if fn is None:
            continue
        try:
            result = fn()
            if inspect.isawaitable(result):
                await asyncio.wait_for(result, grace_s)
        except TimeoutError:
            log.error("the voice loop did not close within %.1f s; quitting anyway", grace_s)
        except Exception:
            log.exception("closing the voice loop failed")
        return
