"""Fresh StreamID allocation.

IDs are base62 renderings of a counter (``0-9A-Za-z``): short, non-empty and
unique per allocator. The process-wide :func:`new_stream_id` is safe to call
from any thread (``itertools.count`` is atomic under the GIL).
"""

from __future__ import annotations

import itertools

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(n: int) -> str:
    """``base62(61) == "z"``, ``base62(62) == "10"``."""
    if n < 0:
        raise ValueError("base62 takes a non-negative integer")
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 62)
        out.append(BASE62[r])
    return "".join(reversed(out))


class StreamIDAllocator:
    """Allocates unique StreamIDs; ``prefix`` keeps several allocators apart."""

    __slots__ = ("_counter", "_prefix")

    def __init__(self, prefix: str = "", start: int = 1) -> None:
        self._prefix = prefix
        self._counter = itertools.count(start)

    def new(self) -> str:
        return self._prefix + base62(next(self._counter))


_GLOBAL = StreamIDAllocator(prefix="s")


def new_stream_id() -> str:
    """A process-wide fresh StreamID (``"s1"``, ``"s2"`` …)."""
    return _GLOBAL.new()
