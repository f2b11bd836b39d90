"""What a device stream tells the UI and the log: :class:`AudioEvent` and the per-device :class:`EventHub`."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from app.audio.backend import Direction

log = logging.getLogger("app.audio.link")

EventKind = Literal[
    "opened", "overflow", "underrun", "dropped", "device_lost", "reopened", "reopen_failed", "fallback", "returned", "format", "closed"
]

_WARN_KINDS = frozenset({"overflow", "underrun", "dropped", "device_lost", "reopen_failed", "fallback", "format"})


@dataclass(frozen=True, slots=True)
class AudioEvent:
    """Something the UI and the log should know about a device stream."""

    kind: EventKind
    direction: Direction
    device: str
    message: str
    count: int = 0
    at: float = field(default_factory=time.monotonic)


EventListener = Callable[[AudioEvent], None]


class EventHub:
    """Listeners of one capture/player; every event is also logged."""

    __slots__ = ("_listeners",)

    def __init__(self) -> None:
        self._listeners: list[EventListener] = []

    def add(self, listener: EventListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return remove

    def emit(self, event: AudioEvent) -> None:
        level = logging.WARNING if event.kind in _WARN_KINDS else logging.INFO
        log.log(level, "audio %s %s [%s]: %s", event.direction, event.kind, event.device, event.message)
        for cb in list(self._listeners):
            try:
                cb(event)
            except Exception:
                log.exception("audio event listener failed")


__all__ = ["AudioEvent", "EventHub", "EventKind", "EventListener"]
