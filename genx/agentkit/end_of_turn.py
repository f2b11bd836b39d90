"""Semantic end of turn: at a pause, ask an end-of-turn detector whether the user has finished.

:class:`TurnEndChecker` keeps the last seconds of each hands-free speech route's
audio. Once a pause has lasted ``turn_check_ms`` and the ASR has the pause's
provisional transcript, it asks the :class:`~genx.agentkit.ports.EndOfTurnDetector`
once per pause, off the event loop, with the conversation so far as context (a
text model then extends the prefilled prompt instead of replacing it). A
*complete* verdict that arrives while the same pause still lasts calls
``on_complete``: the router then ends the turn at once, instead of waiting for
the VAD's silence (``max_end_of_turn_ms``). Any other outcome (incomplete, a
failed check) is recorded on the route as "not complete" and ``on_verdict`` is
called, so a held answer may start; the VAD's silence still ends the turn, so a
check can never delay a turn past it.

Does not own: pauses themselves (:mod:`.pauses`, :mod:`.router`), what ending a
turn means (:mod:`.turn_manager`), the models (``genx.turn``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from genx.agentkit.core import LoopCore
from genx.agentkit.ports import EndOfTurnDetector, TurnVerdictLike
from genx.agentkit.turns import SpeechRoute
from genx.model import ModelContext

log = logging.getLogger("genx.agentkit.loop")

KEEP_BYTES = 8 * 32000  # the last 8 s at 16 kHz int16: what the audio model reads


class TurnEndChecker:
    """See the module docstring."""

    def __init__(
        self,
        core: LoopCore,
        detector: EndOfTurnDetector,
        *,
        on_complete: Callable[[SpeechRoute, TurnVerdictLike], None],
        on_verdict: Callable[[SpeechRoute], None],
        context: Callable[[], ModelContext] | None = None,
    ) -> None:
        self._core = core
        self.detector = detector
        self._on_complete = on_complete
        self._on_verdict = on_verdict
        self._context = context
        self._tasks: set[asyncio.Task[None]] = set()
        self.failures = 0  # checks that raised (the turn then ends on silence)

    def audio(self, route: SpeechRoute, pcm: bytes) -> None:
        buf = route.recent
        buf += pcm
        if len(buf) > KEEP_BYTES:
            del buf[: len(buf) - KEEP_BYTES]

    def resumed(self, route: SpeechRoute) -> None:
        """Sound again: the next pause is checked anew, a verdict still coming for this one is void."""
        route.pause_seq += 1
        route.pause_checked = False
        route.pause_verdict = None

    def maybe_check(self, route: SpeechRoute) -> None:
        u = route.current
        if route.pause_checked or not route.flushed or u is None or not u.provisional:
            return
        if route.pauses.quiet_ms < self._core.config.turn_check_ms:
            return
        route.pause_checked = True
        seq = route.pause_seq
        words = route.turn.heard_so_far(u.provisional)  # every word of the turn so far, not only this route's
        t = asyncio.get_running_loop().create_task(self._check(route, seq, bytes(route.recent), words), name="voice-loop-turn-check")
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    async def _check(self, route: SpeechRoute, seq: int, audio: bytes, transcript: str) -> None:
        t0 = self._core.clock()
        verdict: TurnVerdictLike | None = None
        try:
            ctx = self._context() if self._context is not None else None
            verdict = await self.detector.check(audio, transcript, context=ctx)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.failures += 1
            log.warning("end-of-turn check failed (the turn ends on silence): %s", e)
        if verdict is not None:
            tl = route.turn.timeline
            tl.turn_checks += 1
            tl.turn_check_ms = round((self._core.clock() - t0) * 1000.0, 1)
            log.debug("turn %s: end-of-turn %s p=%.3f (%r)", route.turn.turn_id, verdict.complete, verdict.probability, transcript)
        if not (route.open and route.flushed and route.pause_seq == seq and self._core.running):
            return  # the pause is over (or the turn): this verdict is void
        route.pause_verdict = verdict is not None and verdict.complete
        if verdict is not None and verdict.complete:
            self._on_complete(route, verdict)
        else:
            self._on_verdict(route)

    def cancel(self) -> None:
        for t in list(self._tasks):
            t.cancel()


__all__ = ["KEEP_BYTES", "TurnEndChecker"]
