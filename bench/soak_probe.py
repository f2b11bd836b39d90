"""What the soak measures in its own process after every turn: RSS and its native parts, the Python heap, objects.

* :func:`native` — ``/proc/self/smaps_rollup`` (RSS, anonymous, private dirty) and glibc's ``mallinfo2``
  (bytes in use and free inside malloc's arenas, mmapped blocks): growth in use is a real allocation (or a
  buffer sized by the largest input so far); free bytes count whether or not ``malloc_trim`` already gave their
  pages back, so anonymous RSS minus in-use is what fragmentation and other mappings hold resident.
* :class:`HeapTrace` — tracemalloc started after the warm-up turns: what was allocated since and is still alive,
  by source line (the Python heap's per-turn growth, without the models' first-turn allocations).
* :func:`type_counts` — live objects per type (gc), to diff between two turns.

Does not own: the turns (``bench/soak.py``), the app's own memory policy (``app.memory_policy``).
"""

from __future__ import annotations

import collections
import ctypes
import ctypes.util
import gc
import tracemalloc
from typing import Any

MB = 1024.0 * 1024.0


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")
    ]


def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


_LIBC = _libc()


def smaps_rollup() -> dict[str, float]:
    """Rss / Anonymous / Private_Dirty of this process in MB (empty where /proc has no smaps_rollup)."""
    out: dict[str, float] = {}
    try:
        with open("/proc/self/smaps_rollup", encoding="ascii") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("Rss", "Anonymous", "Private_Dirty"):
                    out[key.lower()] = int(rest.split()[0]) / 1024.0
    except OSError:
        pass
    return out


def mallinfo() -> dict[str, float]:
    """glibc malloc totals in MB: ``heap`` (arena bytes from sbrk/heaps), ``in_use``, ``free``, ``mmapped``."""
    fn = getattr(_LIBC, "mallinfo2", None)
    if fn is None:
        return {}
    fn.restype = _MallInfo2
    m = fn()
    return {"heap": m.arena / MB, "in_use": m.uordblks / MB, "free": m.fordblks / MB, "mmapped": m.hblkhd / MB}


def native() -> dict[str, float]:
    return {**smaps_rollup(), **{f"malloc_{k}": v for k, v in mallinfo().items()}}


def type_counts() -> collections.Counter[str]:
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


def top_growth(before: collections.Counter[str], after: collections.Counter[str], n: int = 12) -> list[tuple[str, int]]:
    diff = after.copy()
    diff.subtract(before)
    return [(k, v) for k, v in diff.most_common(n) if v > 0]


class HeapTrace:
    """tracemalloc from :meth:`start` on; :meth:`report` lists the live allocations made since, by line."""

    def __init__(self, frames: int = 6) -> None:
        self.frames = frames
        self._base: tracemalloc.Snapshot | None = None

    def start(self) -> None:
        tracemalloc.start(self.frames)
        self._base = tracemalloc.take_snapshot()

    def traced_mb(self) -> float:
        return tracemalloc.get_traced_memory()[0] / MB if tracemalloc.is_tracing() else 0.0

    def report(self, n: int = 15) -> list[str]:
        if self._base is None:
            return []
        snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        lines = []
        for stat in snap.compare_to(self._base, "traceback")[:n]:
            if stat.size_diff <= 0:
                continue
            frames = [f"{fr.filename.split('/site-packages/')[-1].split('/h-soak/')[-1]}:{fr.lineno}" for fr in stat.traceback]
            lines.append(f"{stat.size_diff / 1024:8.0f} KiB {stat.count_diff:+7d} blocks  " + " < ".join(reversed(frames[-4:])))
        tracemalloc.stop()
        return lines
