"""Opt-in measurements for benchmarks (``bench/ui_responsiveness.py``): event-loop lag and startup times.

Enabled by environment variables so the shipped app pays nothing unless asked:

* ``PARLEY_TIMINGS_FILE=<path>``: append one JSON object per milestone (``window_shown``, ``ready``, ``lag``,
  ``exit``) with wall-clock ``t`` (``time.time()``), so a parent process can subtract its own launch time;
* ``PARLEY_LAG_PROBE=1``: run :class:`LagProbe` and write its samples at exit.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer


class LagProbe(QObject):
    """A 5 ms precise timer; each tick records how late it fired (ms) — the event loop's responsiveness."""

    def __init__(self, interval_ms: int = 5, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.samples: list[tuple[float, float]] = []  # (monotonic time, lateness ms)
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0

        self.stalls: list[dict[str, Any]] = []  # what the main thread was doing when a tick was overdue
        self.gc_pauses: list[tuple[float, int, float]] = []  # (monotonic end, generation, ms) of collections ≥ 20 ms
        self._gc_started = 0.0
        self._watch: threading.Thread | None = None
        self._stop = threading.Event()
        self._main_id = threading.main_thread().ident

    def start(self) -> None:
        self._last = time.monotonic()
        self._timer.start()
        gc.callbacks.append(self._on_gc)
        self._watch = threading.Thread(target=self._watchdog, name="lag-watchdog", daemon=True)
        self._watch.start()

    def stop(self) -> None:
        self._timer.stop()
        self._stop.set()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._watch is not None:
            self._watch.join(1.0)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.monotonic()
        elif self._gc_started:
            ms = (time.monotonic() - self._gc_started) * 1000.0
            if ms >= 20.0:
                self.gc_pauses.append((time.monotonic(), int(info.get("generation", -1)), round(ms, 1)))

    def _watchdog(self, threshold_s: float = 0.15) -> None:
        reported = 0.0
        while not self._stop.wait(0.02):
            last = self._last
            if time.monotonic() - last > threshold_s and last != reported:
                reported = last
                frame = sys._current_frames().get(self._main_id or 0)
                stack = traceback.format_stack(frame)[-8:] if frame is not None else []
                self.stalls.append({"at": time.monotonic(), "since_tick_ms": round((time.monotonic() - last) * 1000), "stack": stack})

    def _tick(self) -> None:
        now = time.monotonic()
        late = (now - self._last) * 1000.0 - self.interval_ms
        self.samples.append((now, max(0.0, late)))
        self._last = now


class Timings:
    """Writes milestones to ``$PARLEY_TIMINGS_FILE`` (no-op when unset)."""

    def __init__(self, path: str | None = None) -> None:
        p = path if path is not None else os.environ.get("PARLEY_TIMINGS_FILE")
        self.path = Path(p) if p else None

    def mark(self, name: str, **data: Any) -> None:
        if self.path is None:
            return
        rec = {"event": name, "t": time.time(), "mono": time.monotonic(), **data}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")


def probe_from_env() -> LagProbe | None:
    return LagProbe() if os.environ.get("PARLEY_LAG_PROBE") == "1" else None
