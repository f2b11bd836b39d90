"""Blocking work on a thread of its own, awaited from asyncio.

Owns :func:`start_thread`: run one call on a new, named thread and get its
result (or exception) as an asyncio future on the caller's loop. For work that
must not run on the default executor: a call that may hang (device control,
abandoned after a timeout on a daemon thread) or one that changes its thread's
priority (a pool thread could not get it back). Does not own pools, timeouts
or cancellation: the caller awaits the future as it likes. A result that
arrives after the caller gave up (the future was cancelled, by a timeout or a
cancelled awaiter, or the loop is gone) is handed to ``on_abandoned`` so that
what it holds (an open device stream, a file) can be released.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


def start_thread(
    fn: Callable[[], T],
    *,
    name: str,
    daemon: bool,
    nice: int = 0,
    on_abandoned: Callable[[T], None] | None = None,
) -> asyncio.Future[T]:
    """Start ``fn()`` on a new thread; its result settles the returned future on the running loop.

    ``daemon``: the interpreter does not wait for the thread at exit (only for calls that may be
    abandoned; a daemon still inside native code while Python finalizes can crash the process).
    ``nice`` > 0 (Linux): the thread runs at that nice increment.
    ``on_abandoned(result)``: called on a thread (never on the loop, it may block) when ``fn``
    returns after the future was already cancelled or the loop is closed, so nobody will see the
    result; its exceptions are logged. Not called when ``fn`` raised.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def dispose(value: T) -> None:
        assert on_abandoned is not None
        try:
            on_abandoned(value)
        except Exception:
            log.exception("releasing the late result of thread %s failed", name)

    def settle(ok: bool, value: object) -> None:
        if fut.done():
            if ok and on_abandoned is not None:  # the caller gave up: release what the late result holds
                threading.Thread(target=dispose, args=(value,), name=f"{name}-release", daemon=daemon).start()
            return
        if ok:
            fut.set_result(value)  # type: ignore[arg-type]
        else:
            fut.set_exception(value)  # type: ignore[arg-type]

    def body() -> None:
        if nice > 0 and sys.platform.startswith("linux"):
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)  # per thread on Linux
            except OSError as exc:
                log.debug("could not lower the priority of thread %s: %s", name, exc)
        try:
            result: object = fn()
            ok = True
        except BaseException as exc:  # handed to the future
            result, ok = exc, False
        try:
            loop.call_soon_threadsafe(settle, ok, result)
        except RuntimeError:  # the event loop is gone: nobody will take the result
            if ok and on_abandoned is not None:
                dispose(result)  # type: ignore[arg-type]

    threading.Thread(target=body, name=name, daemon=daemon).start()
    return fut


__all__ = ["start_thread"]
