"""The process's native memory policy: glibc malloc gives back what the models freed after each turn.

The models run in worker threads (Whisper/CTranslate2, llama.cpp, Piper/onnxruntime, Smart Turn) and allocate
buffers sized by each turn's input (a long answer, a long utterance). glibc keeps freed memory inside its arenas
(one per thread that allocated, up to 8 x cores) and only returns the top of the main heap on its own, so the
resident size ratchets up with the largest turns and with the fragmentation left between them, although nothing
is in use. Two bounded measures, both no-ops where the C library is not glibc:

* :func:`limit_arenas` (at start, before the models' threads exist): at most ``ARENA_MAX`` malloc arenas, so
  fewer heaps each keep their own free memory;
* :class:`TurnTrimmer`: after every finished answer, ``malloc_trim(0)`` in a worker thread (never on the event
  loop; one at a time) returns the free pages of every arena to the system.

``bench/soak.py`` measures the effect (``--no-trim`` runs without).

Does not own: Python-level caches or history (their owners bound them), the models' own buffers.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from typing import Any

from genx.agentkit.events import AssistantDone, Event

log = logging.getLogger(__name__)

ARENA_MAX = 4  # malloc arenas: the event loop and a few model threads contend little at 4; glibc's default is 8 x cores
_M_ARENA_MAX = -8  # mallopt parameter (malloc.h)


def _glibc() -> Any:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return lib if hasattr(lib, "malloc_trim") and hasattr(lib, "mallopt") else None


_LIBC = _glibc()


def limit_arenas(n: int = ARENA_MAX) -> bool:
    """Cap glibc's malloc arenas at ``n`` (threads started later share them); False where that is not glibc."""
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(ctypes.c_int(_M_ARENA_MAX), ctypes.c_int(n)))


def trim() -> bool:
    """Return the free memory of every malloc arena to the system (blocking: call it in a thread)."""
    if _LIBC is None:
        return False
    return bool(_LIBC.malloc_trim(ctypes.c_size_t(0)))


class TurnTrimmer:
    """Subscribe :meth:`on_event` to the loop's bus: every finished answer trims, in a worker thread.

    A trim asked for while one runs is folded into it (the running one starts after the answer ended anyway).
    """

    def __init__(self) -> None:
        self._running: asyncio.Task[bool] | None = None
        self.trims = 0

    def on_event(self, event: Event) -> None:
        if not isinstance(event, AssistantDone) or _LIBC is None:
            return
        if self._running is not None and not self._running.done():
            return
        self._running = asyncio.get_running_loop().create_task(asyncio.to_thread(trim), name="malloc-trim")
        self._running.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[bool]) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            log.warning("malloc_trim failed: %s", task.exception())
            return
        self.trims += 1

    async def settled(self) -> None:
        """Until the trim in progress (if any) has finished."""
        if self._running is not None:
            await asyncio.shield(self._running)
