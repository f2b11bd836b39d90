"""The process's native memory policy: glibc malloc gives back what the models freed after each turn.

The models run in worker threads (Whisper/CTranslate2, llama.cpp, Piper/onnxruntime, Smart Turn) and allocate
buffers sized by each turn's input (a long answer, a long utterance). glibc keeps freed memory inside its arenas
(one per thread that allocated, up to 8 x cores) and only returns the top of the main heap on its own, so the
resident size ratchets up with the largest turns and with the fragmentation left between them, although nothing
is in use. Three bounded measures (the first two no-ops where the C library is not glibc), all applied at start
by :func:`apply_at_start`:

* :func:`limit_arenas` (at start, before the models' threads exist): at most ``ARENA_MAX`` malloc arenas, so
  fewer heaps each keep their own free memory;
* :func:`no_mkl_buffer_cache`: CTranslate2 (Whisper) runs on Intel's oneMKL on Intel CPUs (elsewhere on oneDNN,
  unless ``CT2_USE_MKL=1``), whose own memory manager keeps the
  buffers of every decode for reuse and grows with the longest clips (Whisper base, 42 final decodes: +9 to
  +14 MB in use with it, +0.2 MB without, decode p50 the same, 289-295 vs 291-299 ms; 60-turn soaks: RSS growth
  96-109 MB with it, 48-91 without); ``MKL_DISABLE_FAST_MM=1`` turns it off (a value the user set is kept);
* :class:`TurnTrimmer`: after every finished answer, ``malloc_trim(0)`` in a worker thread (never on the event
  loop; one at a time) returns the free pages of every arena to the system.

``bench/soak.py`` measures the effect (``--no-trim`` runs without).

Measured and left off: a fixed mmap threshold (:func:`fix_mmap_threshold`, ``MMAP_THRESHOLD_KB``). glibc's dynamic
threshold rises to the size of each large block freed, after which the models' per-turn buffers land in the heaps;
fixed at 256 KiB, malloc's free bytes over 200 turns grew +2.6 MB instead of +126 and the process stayed ~50 MB
smaller, but every large buffer is then a fresh mapping: Whisper base's final decode took 33 % longer (p50 787 →
1049 ms, ``bench/memory_policy.py``; 1 MiB +17 %, 8 MiB +9 % for 13 MB), a cost on every turn's latency.

Does not own: Python-level caches or history (their owners bound them), the models' own buffers.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import os
from typing import Any

from genx.agentkit.events import AssistantDone, Event

log = logging.getLogger(__name__)

MMAP_THRESHOLD_KB = 256  # the fixed threshold measured against glibc's dynamic one (not applied by default)
ARENA_MAX = 4  # malloc arenas: the event loop and a few model threads contend little at 4; glibc's default is 8 x cores
_M_ARENA_MAX = -8  # mallopt parameter (malloc.h)
_M_MMAP_THRESHOLD = -3  # mallopt parameter: setting it also turns glibc's dynamic threshold off


def _glibc() -> Any:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return lib if hasattr(lib, "malloc_trim") and hasattr(lib, "mallopt") else None


_LIBC = _glibc()

MKL_FAST_MM_ENV = "MKL_DISABLE_FAST_MM"  # read by oneMKL at its first allocation (inside CTranslate2's library)


def no_mkl_buffer_cache() -> None:
    """Turn oneMKL's buffer cache off for this process, unless the environment already says otherwise."""
    os.environ.setdefault(MKL_FAST_MM_ENV, "1")


def apply_at_start(arenas: int = ARENA_MAX, *, mkl_cache: bool = False, mmap_threshold_kb: int = 0) -> None:
    """The whole policy, before any model or thread exists (``python -m app`` and the benches call it).

    To compare: ``arenas`` 0 keeps glibc's own arena count; ``mkl_cache`` leaves oneMKL's buffer cache on;
    ``mmap_threshold_kb`` > 0 fixes malloc's mmap threshold (0: glibc's dynamic one, the default)."""
    if arenas > 0:
        limit_arenas(arenas)
    if mmap_threshold_kb > 0:
        fix_mmap_threshold(mmap_threshold_kb)
    if not mkl_cache:
        no_mkl_buffer_cache()


def limit_arenas(n: int = ARENA_MAX) -> bool:
    """Cap glibc's malloc arenas at ``n`` (threads started later share them); False where that is not glibc."""
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(ctypes.c_int(_M_ARENA_MAX), ctypes.c_int(n)))


def fix_mmap_threshold(kb: int) -> bool:
    """Blocks of at least ``kb`` KiB get their own mapping, returned to the system when freed (glibc otherwise
    raises the threshold after each large free, so later large buffers land in the heaps); False if not glibc."""
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(ctypes.c_int(_M_MMAP_THRESHOLD), ctypes.c_int(kb * 1024)))


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
