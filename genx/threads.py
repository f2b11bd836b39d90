"""Blocking work on a thread of its own, awaited from asyncio.

Owns :func:`start_thread`: run one call on a new, named thread and get its
result (or exception) as an asyncio future on the caller's loop. For work that
must not run on the default executor: a call that may hang (device control,
abandoned after a timeout on a daemon thread) or one that changes its thread's
priority (a pool thread could not get it back). Does not own pools, timeouts
or cancellation: the caller awaits the future as it likes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


def start_thread(fn: Callable[[], T], *, name: str, daemon: bool, nice: int = 0) -> asyncio.Future[T]:
    """Start ``fn()`` on a new thread; its result settles the returned future on the running loop.

    ``daemon``: the interpreter does not wait for the thread at exit (only for calls that may be
    abandoned; a daemon still inside native code while Python finalizes can crash the process).
    ``nice`` > 0 (Linux): the thread runs at that nice increment.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: object) -> None:
        if fut.done():
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
        with contextlib.suppress(RuntimeError):  # the event loop is gone
            loop.call_soon_threadsafe(settle, ok, result)

    threading.Thread(target=body, name=name, daemon=daemon).start()
    return fut


__all__ = ["start_thread"]
