"""Wake word engines combined and moved off the caller's thread.

* :class:`AnyOfDetector`: several detectors on the same stream; a phrase fires when any of them hears it, once
  (:func:`merge`: a detection of the same phrase within ``refractory_s`` of the last one, by stream time, is the
  same utterance heard twice). ``bench/wake_word.py`` scores "either engine" with :func:`merge` over the
  engines' own detections, so the bench and the app share the rule.
* :class:`BackgroundDetector`: a detector on a thread of its own. :meth:`~BackgroundDetector.process` hands the
  chunk over and returns at once with what the thread completed since the last call, so a detection comes one
  call (plus its compute) later than inline, stamped with its own stream time. For an engine too costly for the
  event loop (openWakeWord, ~4.7 ms per 80 ms step); a failure on the thread is raised by the next call, and
  after :meth:`~BackgroundDetector.reset` nothing made from audio handed before it comes out.

Both have the detector interface the wake gate uses (``genx.agentkit.wake.WakeDetectorLike``): ``phrases``,
``process``, ``reset``, ``close``. Does not own the engines (``genx.local.wakeword``, ``genx.local.openwakeword``).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Protocol

from genx.local.wakeword import WakeWordConfigError, WakeWordDetection

log = logging.getLogger(__name__)

BACKLOG_WARN_S = 2.0  # a background engine this far behind the audio is reported (once)
CLOSE_WAIT_S = 2.0


class Detector(Protocol):
    @property
    def phrases(self) -> list[str]: ...

    def process(self, pcm: bytes) -> list[WakeWordDetection]: ...

    def reset(self) -> None: ...

    def close(self) -> None: ...


def merge(found: Iterable[WakeWordDetection], last_at: dict[str, float], refractory_s: float) -> list[WakeWordDetection]:
    """``found`` in stream order without repeats: a detection of a phrase within ``refractory_s`` after the last
    one kept (``last_at``, by lower-cased phrase, updated in place) is dropped."""
    out: list[WakeWordDetection] = []
    for d in sorted(found, key=lambda d: d.at_s):
        key = d.phrase.lower()
        if d.at_s - last_at.get(key, -1e9) < refractory_s:
            continue
        last_at[key] = d.at_s
        out.append(d)
    return out


class AnyOfDetector:
    """Fires when any of ``detectors`` hears a phrase (see the module docstring)."""

    def __init__(self, detectors: Sequence[Detector], *, refractory_s: float = 1.0) -> None:
        if not detectors:
            raise WakeWordConfigError("no wake word detector given")
        self._detectors = list(detectors)
        self._refractory_s = refractory_s
        self._last_at: dict[str, float] = {}

    @property
    def phrases(self) -> list[str]:
        return list(dict.fromkeys(p for d in self._detectors for p in d.phrases))

    @property
    def detectors(self) -> list[Detector]:
        return list(self._detectors)

    def process(self, pcm: bytes) -> list[WakeWordDetection]:
        return merge([h for d in self._detectors for h in d.process(pcm)], self._last_at, self._refractory_s)

    def flush(self, timeout_s: float = 5.0) -> list[WakeWordDetection]:
        """Wait for the background engines to catch up (:meth:`BackgroundDetector.flush`); what they found, merged."""
        late = [h for d in self._detectors if isinstance(d, BackgroundDetector) for h in d.flush(timeout_s)]
        return merge(late, self._last_at, self._refractory_s)

    def reset(self) -> None:
        for d in self._detectors:
            d.reset()
        self._last_at.clear()

    def close(self) -> None:
        for d in self._detectors:
            d.close()


class _Reset:
    __slots__ = ("epoch",)

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch


class _Flush:
    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


class BackgroundDetector:
    """``inner`` on a thread of its own (see the module docstring). One caller; :meth:`close` stops the thread."""

    def __init__(self, inner: Detector, *, name: str = "wake-word") -> None:
        self._inner = inner
        self._phrases = list(inner.phrases)
        self._inbox: queue.SimpleQueue[bytes | _Reset | _Flush | None] = queue.SimpleQueue()
        # detections with the reset count the thread had reached when it made them: one made from audio handed
        # before a reset() is dropped even when the thread finishes it after the caller reset
        self._done: deque[tuple[int, WakeWordDetection]] = deque()
        self._epoch = 0  # resets asked for (written by the caller only)
        self._thread_epoch = 0  # resets the thread has done (written by the thread only)
        self._error: BaseException | None = None
        self._handed = 0  # bytes given to the thread (written by the caller only)
        self._processed = 0  # bytes the thread finished (written by the thread only)
        self._warned = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def phrases(self) -> list[str]:
        return list(self._phrases)

    @property
    def inner(self) -> Detector:
        return self._inner

    @property
    def backlog_s(self) -> float:
        return (self._handed - self._processed) / 2 / 16000

    def _run(self) -> None:
        prepare = getattr(self._inner, "prepare", None)  # an engine with a model to load first (wake_confirm)
        try:
            if callable(prepare):
                prepare()
        except BaseException as exc:  # raised to the caller by its next process()
            self._error = exc
            return
        while True:
            item = self._inbox.get()
            if item is None:
                return
            try:
                if isinstance(item, _Reset):
                    self._inner.reset()
                    self._thread_epoch = item.epoch
                    continue
                if isinstance(item, _Flush):
                    item.done.set()
                    continue
                epoch = self._thread_epoch
                self._done.extend((epoch, d) for d in self._inner.process(item))
            except BaseException as exc:  # raised to the caller by its next process()
                self._error = exc
                return
            finally:
                if isinstance(item, bytes):
                    self._processed += len(item)

    def process(self, pcm: bytes) -> list[WakeWordDetection]:
        if self._error is not None:
            raise self._error
        if self._closed:
            raise RuntimeError("the wake word detector is closed")
        self._handed += len(pcm)
        self._inbox.put(bytes(pcm))
        if not self._warned and self.backlog_s > BACKLOG_WARN_S:
            self._warned = True
            log.warning("the wake word engine is %.1f s behind the microphone: this machine is too busy for it", self.backlog_s)
        return self._drain()

    def flush(self, timeout_s: float = 5.0) -> list[WakeWordDetection]:
        """Wait until the thread has processed all audio handed over (at most ``timeout_s``); its detections."""
        if self._error is not None:
            raise self._error
        marker = _Flush()
        self._inbox.put(marker)
        if not marker.done.wait(timeout_s) and self._error is None:
            raise TimeoutError(f"the wake word thread did not catch up within {timeout_s:.0f} s")
        if self._error is not None:
            raise self._error
        return self._drain()

    def _drain(self) -> list[WakeWordDetection]:
        out: list[WakeWordDetection] = []
        while self._done:
            epoch, d = self._done.popleft()
            if epoch == self._epoch:
                out.append(d)
        return out

    def reset(self) -> None:
        self._epoch += 1
        self._inbox.put(_Reset(self._epoch))
        self._done.clear()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._inbox.put(None)
        self._thread.join(CLOSE_WAIT_S)
        if self._thread.is_alive():
            log.warning("the wake word thread did not stop within %.0f s; its models stay loaded until exit", CLOSE_WAIT_S)
            return
        self._inner.close()


__all__ = ["AnyOfDetector", "BackgroundDetector", "Detector", "merge"]
