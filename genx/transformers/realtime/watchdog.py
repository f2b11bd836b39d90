"""The read timeout of a realtime session: fires when no frame came for ``seconds`` while an answer is awaited."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Watchdog:
    """Armed while the session waits for the provider; every received frame restarts the wait."""

    __slots__ = ("_fire", "_seconds", "_timer")

    def __init__(self, seconds: float, fire: Callable[[], None]) -> None:
        self._seconds = seconds
        self._fire = fire
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, awaiting: bool) -> None:
        """Arm (if not armed) while ``awaiting``, disarm otherwise."""
        if not awaiting:
            self.kick()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._seconds, self._expired)

    def kick(self) -> None:
        """A frame arrived: the next wait starts from now (the caller re-arms with :meth:`watch`)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        self._fire()


__all__ = ["Watchdog"]
