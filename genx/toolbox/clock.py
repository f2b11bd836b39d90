"""The toolbox's notion of now: an injectable millisecond clock and the machine's time zone.

Every tool that reads the time takes a :data:`genx.realtime.Clock` (Unix time in
milliseconds; :class:`genx.realtime.ManualClock` in tests) and a ``tzinfo``
(default: :func:`local_zone`), so tests never depend on the wall clock or the
machine's zone.
"""

from __future__ import annotations

import os
import zoneinfo
from datetime import datetime, tzinfo
from pathlib import Path

from genx.realtime import Clock, wall_clock_ms

__all__ = ["Clock", "local_zone", "local_zone_name", "now_in", "wall_clock_ms"]


def local_zone() -> tzinfo:
    """The machine's zone: ``$TZ``, else ``/etc/localtime``'s IANA name, else ``/etc/timezone``, else a fixed offset."""
    name = local_zone_name()
    if name:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    fixed = datetime.now().astimezone().tzinfo
    assert fixed is not None
    return fixed


def local_zone_name() -> str:
    """The machine's IANA zone name, or "" when it cannot be told (Windows without $TZ, a bare file)."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and _valid(tz):
        return tz
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        target = ""
    if "/zoneinfo/" in target:
        name = target.split("/zoneinfo/", 1)[1]
        if _valid(name):
            return name
    try:
        name = Path("/etc/timezone").read_text(encoding="utf-8").strip()
    except OSError:
        name = ""
    return name if name and _valid(name) else ""


def _valid(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def now_in(clock: Clock, zone: tzinfo) -> datetime:
    """The clock's time as an aware datetime in ``zone``."""
    return datetime.fromtimestamp(clock() / 1000.0, zone)
