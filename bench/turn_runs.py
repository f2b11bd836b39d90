"""One item of each set of the turn-taking bench, played to the live loop and measured on the recordings.

:class:`TurnTakingRun` is a :class:`bench.live.LiveLoop`; each method plays one
item and returns an :class:`Item`:

* :meth:`~TurnTakingRun.question` (sets a and b): the clip is played; ``cut_off``
  when the speaker made any sound between the clip's first sample and its last
  voiced one; ``v2v_ms`` from that last voiced sample (found in the microphone
  recording) to the first audible answer sample; the turn's stages.
* :meth:`~TurnTakingRun.during_answer` (sets c and d): a story is asked for; once
  it has played :data:`LEAD_S`, the clip is played and the answer watched until
  :data:`OBSERVE_S` after the clip. ``stopped``: the loop cut the answer (a
  ``BargeIn``, or its ``AssistantDone`` interrupted) or the speaker stayed
  silent > 1 s before the answer's end. For d also onset (the clip's first sample
  in the microphone) → ducked (the speaker's level, as a 50 ms power average,
  stays :data:`DUCK_DB` under its mean over the 300 ms before the onset for
  100 ms) and onset → silent (the start of a 300 ms quiet stretch), not fooled by the
  story's own pauses (see :meth:`TurnTakingRun._measure_stop`).
* :meth:`~TurnTakingRun.echo_answer` (set e): a story in the session that is
  current (the caller opens a fresh one per item, the speaker looped back into the
  microphone); counts barge-ins and answers cut that the bench did not cause, and
  onsets the loop heard while it spoke.

Each method ends with the loop listening and the speaker quiet (the bench cuts
whatever answer follows); every wait has a limit, so an item never hangs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.live import LiveLoop
from bench.turn_sets import Clip
from genx.agentkit.events import AssistantDone, BargeIn, LoopState, SpeechStarted, StateChanged, TurnReopened, UserFinal

LEAD_S = 1.5  # how much of the story plays before the clip (c, d)
OBSERVE_S = 2.0  # how long after the clip the answer is watched (c, d)
ECHO_LISTEN_S = 6.0  # how much of the story plays with the echo path (e)
HEARD_S = 0.4  # how much of an answer plays before the bench cuts it (a, b)
FALSE_STOP_QUIET_S = 1.0  # the speaker silent this long before the answer's end is a stop
DUCK_DB = 20.0


@dataclass(slots=True)
class Item:
    set: str
    label: str
    v2v_ms: float | None = None
    stages: dict[str, float] = field(default_factory=dict)
    cut_off: bool | None = None  # a, b: Parley made a sound before the clip's speech ended
    stopped: bool | None = None  # c, d: the answer stopped (c: a false stop; d: caught)
    duck_ms: float | None = None
    stop_ms: float | None = None
    self_interruptions: int = 0
    self_onsets: int = 0
    reopened: int = 0
    turns: int = 0  # user turns the loop made of the clip (a, b)
    ended_early: bool = False
    note: str = ""

    @property
    def counted(self) -> bool:
        """Whether the item measured what its set is about (it did not fail before)."""
        if self.set in ("a", "b"):
            return self.cut_off is not None
        if self.set in ("c", "d"):
            return self.stopped is not None
        return self.note == ""


class TurnTakingRun(LiveLoop):
    """See the module docstring. ``verbose``: an item's note has the loop's events around its clip."""

    verbose = False

    async def question(self, set_name: str, clip: Clip) -> Item:
        it = Item(set_name, clip.label())
        mark = len(self.events)
        pb = self.say(clip.audio)
        played_until = pb.started_at + clip.duration_s

        # the answer to the whole clip: the loop speaks once the clip is over (or never); a short answer may be over
        # between two polls, so a SPEAKING event after the clip's end counts too
        def answering() -> bool:
            now_speaking = time.monotonic() > played_until and self.loop.state is LoopState.SPEAKING
            return now_speaking or self.reached(LoopState.SPEAKING, mark, after=played_until)

        ok = await self.wait(answering, clip.duration_s + 20)
        if ok:
            await asyncio.sleep(HEARD_S)
        await self.settle()
        await self.caught_up(time.monotonic())
        start = self.clip_start(pb)
        if start is None:
            it.note = "the clip was not found in the microphone recording"
            return it
        end = start + clip.speech_end_s
        it.cut_off = self.audible_between(start, end)
        it.reopened = len(self.of(TurnReopened, mark))
        it.turns = len(self.of(UserFinal, mark))
        it.self_interruptions = self.self_interruptions(mark)
        heard = self.first_audible_after(end)
        if not ok:
            it.note = "no answer after the clip" + ("" if heard is None else f" (sound {heard - end:+.1f} s)")
        elif heard is not None:
            it.v2v_ms = (heard - end) * 1000
        if not it.cut_off:
            it.stages = self.stages(mark, end, heard)
            m = self.turn_metrics(mark)
            it.ended_early = bool(m and m.ended_early)
        return it

    async def _story(self, question: Clip, limit: float = 40.0) -> int | None:
        """Ask for a story in a fresh conversation; the event mark once it is audible, None when no answer."""
        self.loop.new_conversation()  # a fresh context: the small model then tells a long story, not "Okay."
        await self.wait_quiet(0.3, limit=10)
        mark = len(self.events)
        self.say(question.audio)
        if not await self.wait(lambda: self.reached(LoopState.SPEAKING, mark), limit):
            return None
        return mark

    async def during_answer(self, set_name: str, question: Clip, clip: Clip) -> Item:
        it = Item(set_name, clip.label())
        mark = await self._story(question)
        if mark is None:
            it.note = "no answer to the story request"
            await self.settle()
            return it
        await asyncio.sleep(LEAD_S)
        if self.done_after(mark):
            it.note = "the story ended before the clip"
            await self.settle()
            return it
        mark2 = len(self.events)
        pb = self.say(clip.audio)
        watch_until = pb.started_at + clip.duration_s + OBSERVE_S
        await asyncio.sleep(max(0.0, watch_until - time.monotonic()))
        tid = self.first_turn(mark)
        done = [d for d in self.of(AssistantDone, mark2) if d.turn_id == tid]
        cut = bool(self.of(BargeIn, mark2)) or any(d.interrupted for d in done)
        answer_end = min([d.at for d in done] + [watch_until])
        await self.settle()
        await self.caught_up(watch_until)
        start = self.clip_start(pb)
        if start is None:
            it.note = "the clip was not found in the microphone recording"
            return it
        quiet = self.longest_quiet(start, answer_end)
        it.stopped = cut or quiet > FALSE_STOP_QUIET_S
        if it.stopped and not cut:
            it.note = f"speaker silent {quiet:.1f} s"
        it.self_interruptions = self.self_interruptions(mark)
        if set_name == "d":
            self._measure_stop(it, start, watch_until + 1.0, mark2)
        if self.verbose:
            it.note += f" [onset {start - pb.started_at:+.2f} after play; {self.timeline(mark2, start)}]"
        return it

    def _measure_stop(self, it: Item, onset: float, until: float, mark: int) -> None:
        """Onset → ducked and → silent, not fooled by the story's own pauses between sentences: a drop is looked for
        from the moment the loop could have acted on (it heard the onset: ``SpeechStarted`` less its 150 ms onset
        window; it stopped the playback: ``BargeIn``), and a quiet stretch that began earlier counts only when it
        lasted through that moment (the story never came back)."""
        if self.quiet_before(onset, 0.15):
            it.note = "the story was in a pause at the onset (duck/stop not timed)"
            return
        heard = next((e.at for e in self.of(SpeechStarted, mark)), None)
        stopped = next((e.at for e in self.of(BargeIn, mark)), None)
        if heard is None:
            return  # the loop never heard it: nothing ducked or stopped for it
        silent = None
        if it.stopped and stopped is not None:
            silent = self._quiet_from(onset, stopped - 0.03, lambda t: self.silent_after(t, 0.3, until))
        ref = self.level_db(onset - 0.3, onset)
        ducked = self._quiet_from(onset, heard - 0.2, lambda t: self.dropped_after(t, ref - DUCK_DB, 0.1, until, smooth_ms=50))
        if ducked is not None and silent is not None:
            ducked = min(ducked, silent)  # silent is ducked too (the average lags a sharp stop)
        if ducked is not None:
            it.duck_ms = max(0.0, (ducked - onset) * 1000)
        if silent is not None:
            it.stop_ms = max(0.0, (silent - onset) * 1000)
        if self.verbose:
            rel = {k: None if v is None else round((v - onset) * 1000) for k, v in (("heard", heard), ("stopped", stopped))}
            it.note += f" ms after onset {rel}, level before {ref:.0f} dBFS "

    def _quiet_from(self, onset: float, acted: float, find: Callable[[float], float | None]) -> float | None:
        """``find(t)``: the start of a drop after ``t``. The first one after the onset if the speaker stayed down
        from there until the loop ``acted``, else the first one after that moment."""
        first = find(onset)
        if first is None or first >= acted or not self.audible_between(first + 0.3, acted + 0.1):
            return first
        return find(max(onset, acted))

    async def echo_answer(self, question: Clip) -> Item:
        it = Item("e", question.label())
        mark = await self._story(question)
        if mark is None:
            it.note = "no answer to the story request"
            await self.settle()
            return it
        speaking_at = next(e.at for e in self.events[mark:] if isinstance(e, StateChanged) and e.state is LoopState.SPEAKING)
        await self.wait(lambda: bool(self.done_after(mark)), ECHO_LISTEN_S)
        done = self.done_after(mark)
        cut_by_loop = any(d.interrupted for d in done)
        listened_until = time.monotonic()
        await self.settle()
        it.self_interruptions = max(self.self_interruptions(mark), int(cut_by_loop))
        it.self_onsets = sum(1 for e in self.of(SpeechStarted, mark) if speaking_at < e.at <= listened_until)
        return it


__all__ = ["DUCK_DB", "Item", "TurnTakingRun"]
