"""The ordered cut of an answer, and its volume: the part of the answer runner that stops what plays.

:class:`AnswerCuts` is :class:`~genx.agentkit.answers.AnswerRunner`'s base. The cut
(barge-in, stop, a newer question, a stall) runs in order: (1) the player stops
and discards its buffer, (2) the streamkit interrupt drops the unpulled suffix of
the answer's route, (3) the generation is cancelled (its stream closed), (4) the
TTS stream is closed (synthesis stops); the turn is then recorded with the words
heard up to the player's ``samples_heard``. :meth:`AnswerCuts.discard` stops an
answer nobody heard and records nothing; :meth:`AnswerCuts.duck` lowers or
restores the answer's volume.

Does not own: running an answer or recording it (:mod:`.answers`), deciding when to cut (:mod:`.turn_manager`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from genx.agentkit.core import LoopCore
from genx.agentkit.events import BargeIn, ErrorKind, LoopState
from genx.agentkit.heard import HeardTracker, spoken_text
from genx.agentkit.mic import MicFrontEnd
from genx.agentkit.ports import AudioOutput, Ducking, Speech
from genx.agentkit.turns import Answer, Turn
from genx.deadline import within

log = logging.getLogger("genx.agentkit.loop")


class AnswerCuts:
    """See the module docstring. The state is the runner's (set in its ``__init__``)."""

    _core: LoopCore
    speech: Speech
    _player: AudioOutput
    _mic: MicFrontEnd
    _heard: HeardTracker
    _answers: dict[str, tuple[Turn, Answer]]
    cutting: set[asyncio.Task[None]]
    ducked: bool
    on_over: Callable[[Turn], None]

    def _finish(self, turn: Turn, ans: Answer, *, interrupted: bool, spoken: str | None = None) -> None:
        raise NotImplementedError  # the runner's: records the turn

    def cut(self, turn: Turn, ans: Answer, onset: float | None, why: str) -> None:
        """End ``ans`` now, keeping what was heard (see the module docstring)."""
        if ans.finished or ans.interrupted:
            return
        ans.interrupted = True
        self.on_over(turn)
        if onset is not None:
            turn.timeline.mark("barge_in", onset)
            self._mic.user_barged_in()
        self._core.set_state(LoopState.INTERRUPTED, why)
        if ans.task is not None and not ans.task.done():
            ans.task.cancel()  # (3) generation: its stream is closed in the task's finally
        t = asyncio.get_running_loop().create_task(self._do_cut(turn, ans, onset, why), name=f"voice-loop-cut-{turn.turn_id}")
        self.cutting.add(t)
        t.add_done_callback(self.cutting.discard)

    def duck(self, on: bool) -> bool:
        """Lower (or restore) the answer's volume at the player; False when the player cannot."""
        player = self._player
        if not isinstance(player, Ducking):
            return False
        db = self._core.config.duck_db
        player.duck(db if on else None)
        self._heard.far_gain = float(10.0 ** (min(0.0, db) / 20.0)) if on else 1.0
        if on != self.ducked:
            self._mic.user_over_answer(on)
        self.ducked = on
        return True

    # -- the cut and the end ----------------------------------------------------------------------
    async def _stop_output(self, turn: Turn, ans: Answer, onset: float | None) -> tuple[Any, float]:
        """Steps (1), (2) and (4) of the cut; returns the player's positions and when playback stopped."""
        core = self._core
        positions: Any = {}
        audio = ans.audio
        if audio is None:
            return positions, core.clock()
        try:
            positions = await self._player.stop(discard=True)  # (1)
        except Exception as e:
            core.error(ErrorKind.PLAYER, f"could not stop playback: {e}", turn.turn_id)
        t_stop = core.clock()
        if self.ducked:
            self.duck(False)  # the next answer plays at full volume
        self._mic.truncate_far(t_stop)
        if onset is not None:
            self._mic.user_barged_in()
        try:
            self.speech.interrupt(audio.inner, ans.route_id)  # (2)
        except Exception:
            log.exception("TTS interrupt failed")
        audio.cut()  # (4) closes the TTS stream: synthesis stops
        return positions, t_stop

    async def _do_cut(self, turn: Turn, ans: Answer, onset: float | None, why: str) -> None:
        core = self._core
        audio = ans.audio
        try:
            positions, t_stop = await self._stop_output(turn, ans, onset)
            turn.timeline.mark("playback_stopped", t_stop)
            pos = positions.get(ans.route_id) if hasattr(positions, "get") else None
            if pos is not None:
                ans.heard_samples = max(ans.heard_samples, int(pos.samples_heard))
                ans.played_samples = max(ans.played_samples, int(pos.samples_played))
            if onset is not None:
                latency = max(0.0, (t_stop - onset) * 1000.0)
                core.emit(BargeIn(turn_id=turn.turn_id, latency_ms=round(latency, 1)))
                log.info("turn %s: barge-in (%s), playback stopped %.0f ms after onset", turn.turn_id, why, latency)
            if ans.task is not None and not ans.task.done():
                with contextlib.suppress(BaseException):
                    await within(asyncio.shield(ans.task), 5.0)
        finally:
            self._finish(turn, ans, interrupted=True, spoken=spoken_text(ans, ans.heard_samples))
            if audio is not None:
                with contextlib.suppress(Exception):
                    await audio.wait_closed()

    def discard(self, turn: Turn, ans: Answer, why: str) -> None:
        """Forget a committed answer nobody has heard yet (its turn goes on): stop it, record nothing."""
        if ans.finished or ans.interrupted:
            return
        ans.finished = ans.interrupted = True
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        self._answers.pop(ans.route_id, None)
        self._heard.forget(ans.route_id)
        if ans.task is not None and not ans.task.done():
            ans.task.cancel()
        t = asyncio.get_running_loop().create_task(self._silence(turn, ans), name=f"voice-loop-discard-{turn.turn_id}")
        self.cutting.add(t)
        t.add_done_callback(self.cutting.discard)

    async def _silence(self, turn: Turn, ans: Answer) -> None:
        await self._stop_output(turn, ans, None)
        if ans.audio is not None:
            with contextlib.suppress(Exception):
                await ans.audio.wait_closed()


__all__ = ["AnswerCuts"]
