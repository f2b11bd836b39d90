"""One voice-loop load at a time, always ending on the newest settings.

Saving settings while the models load, or twice while the loop is being rebuilt, must neither leave the app
without a loop nor half-close one. :class:`SerialLoader` runs every load and rebuild in one worker task:

* each :meth:`~SerialLoader.request` bumps a generation and records the settings it wants;
* the worker first *unloads* (closes the loop that is up: the turn in progress is stored, devices closed),
  never interrupted by a newer request, then loads the requested settings;
* a newer request while a load runs cancels that load, and the worker waits for it to finish unwinding
  (its devices closed) before it starts the next one: there is never more than one load;
* the worker stops when the generation it loaded is the newest; :meth:`~SerialLoader.stop` (quit) cancels a
  load in progress and waits, bounded, for the worker.

Qt-free: the controller passes its own load and unload coroutines.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from genx.deadline import within

log = logging.getLogger(__name__)

S = TypeVar("S")


class SerialLoader(Generic[S]):
    def __init__(self, load: Callable[[S], Awaitable[None]], unload: Callable[[], Awaitable[None]]) -> None:
        self._load = load
        self._unload = unload
        self._generation = 0
        self._wanted: S | None = None
        self._worker: asyncio.Task[None] | None = None
        self._build: asyncio.Task[None] | None = None
        self._build_cancelled = False
        self._stopping = False
        self.loaded_generation = 0  # the generation the last finished load was for (tests, logs)

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def busy(self) -> bool:
        """A load or rebuild is running (or about to)."""
        return self._worker is not None and not self._worker.done()

    def request(self, settings: S) -> None:
        """Load ``settings`` (after closing the loop that is up); supersedes every earlier request."""
        if self._stopping:
            return
        self._generation += 1
        self._wanted = settings
        build = self._build
        if build is not None and not build.done() and not self._build_cancelled:
            log.info("newer settings while loading: stopping that load first")
            self._build_cancelled = True  # once: a load unwinding (closing its devices) is not interrupted again
            build.cancel()
        if not self.busy:
            self._worker = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while not self._stopping and self.loaded_generation != self._generation:
            await self._unload()
            if self._stopping:
                break
            generation, settings = self._generation, self._wanted  # the newest, also when it came during the unload
            assert settings is not None
            build = asyncio.ensure_future(self._load(settings))
            self._build, self._build_cancelled = build, False
            try:
                await asyncio.wait([build])  # returns when it ended, cancelled or not
            finally:
                self._build = None
            if not build.cancelled() and build.exception() is not None:
                log.error("loading the voice loop failed", exc_info=build.exception())
            self.loaded_generation = generation

    async def settled(self) -> None:
        """Wait until no load is running or pending (the loop reflects the newest request)."""
        while self._worker is not None and not self._worker.done():
            await asyncio.wait([self._worker])

    async def stop(self, grace_s: float) -> None:
        """No more loads: cancel the one in progress and wait (at most ``grace_s``) for the worker to end."""
        self._stopping = True
        build = self._build
        if build is not None and not build.done():
            build.cancel()
        worker = self._worker
        if worker is None or worker.done():
            return
        try:
            await within(asyncio.shield(worker), grace_s)
        except TimeoutError:
            log.warning("loading did not stop within %.1f s at quit", grace_s)
            worker.cancel()
        except Exception:
            log.exception("loading ended with an error during shutdown")


__all__ = ["SerialLoader"]
