"""The answer runner: generation → TTS → player for one turn's answer, its watchdog, and the ordered cut.

:class:`AnswerRunner` implements the turn manager's
:class:`~genx.agentkit.turn_manager.AnswerPort`. An answer's task opens the
generator stream on the recorder's context, pipes its text into the TTS and hands
the TTS audio to the player (through :class:`~genx.agentkit.speaker.AnswerAudio`,
which pulls just in time). A *held* answer generates and synthesizes but shows,
plays and stores nothing until :meth:`commit`; :meth:`drop` forgets it unheard.

The ordered cut (barge-in, stop, a newer question, a stall) and the volume are
its base's (:mod:`.answer_cut`); the turn is then recorded with the words heard,
marked interrupted. A new answer waits for pending cuts, so history stays in order.

Does not own: deciding when to answer or cut (:mod:`.turn_manager`), mapping
positions to words (:mod:`.heard`), history and store (:mod:`.recorder`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from genx.agentkit.answer_cut import AnswerCuts
from genx.agentkit.answer_streams import describe_error, shielded_open, text_stream
from genx.agentkit.core import LoopCore
from genx.agentkit.events import AssistantDelta, AssistantDone, AssistantSpoken, ErrorKind, LoopState
from genx.agentkit.heard import HeardTracker, in_generated_words, spoken_text
from genx.agentkit.mic import MicFrontEnd
from genx.agentkit.ports import AudioOutput, Speech
from genx.agentkit.recorder import Recorder
from genx.agentkit.resume import resume_split
from genx.agentkit.speaker import AnswerAudio
from genx.agentkit.spoken import SegmentRecorder
from genx.agentkit.tool_activity import activity_event, is_tool_chunk, kept_tool_messages
from genx.agentkit.turns import Answer, Turn
from genx.chunk import Blob, MessageChunk, Role, Text
from genx.deadline import Deadline
from genx.errors import Done, StreamClosedError, Truncated
from genx.ids import new_stream_id
from genx.stream import StreamBuilder

log = logging.getLogger("genx.agentkit.loop")

# a cut cancelled at a stop's deadline records its turn at once; this bounds the rest of its unwinding
_CANCELLED_CUT_S = 0.2
TOOLS_SETTLE_S = 5.0  # after a cut: how long a side-effecting tool may take to finish and be kept in history


class AnswerRunner(AnswerCuts):
    """See the module docstring."""

    def __init__(
        self, core: LoopCore, *, speech: Speech, player: AudioOutput, mic: MicFrontEnd, heard: HeardTracker, recorder: Recorder
    ) -> None:
        self._core = core
        self.speech = speech
        self._player = player
        self._mic = mic
        self._heard = heard
        self._recorder = recorder
        self._answers: dict[str, tuple[Turn, Answer]] = {}  # answer route id → turn, answer
        self.cutting: set[asyncio.Task[None]] = set()
        self._background: set[asyncio.Task[None]] = set()
        self.ducked = False
        # the answer of ``turn`` was cut or finished (the turn manager forgets it as the running answer)
        self.on_over: Callable[[Turn], None] = lambda turn: None
        # forget ``turn``'s held answer (the turn manager's, which also clears the turn's timeline)
        self.drop_held: Callable[[Turn, str], None] = lambda turn, why: None

    def output_latency(self) -> float:
        return max(0.0, float(getattr(self._player, "latency", 0.0) or 0.0))

    # -- AnswerPort ---------------------------------------------------------------------------
    def create(self, turn: Turn, *, held: bool, prompt: str) -> Answer:
        core = self._core
        return Answer(new_stream_id(), SegmentRecorder(clock=core.clock), core.generator_name, held=held, prompt=prompt)

    def launch(self, turn: Turn, ans: Answer) -> None:
        self._answers[ans.route_id] = (turn, ans)
        ans.task = asyncio.get_running_loop().create_task(self._run(turn, ans), name=f"voice-loop-answer-{turn.turn_id}")
        self._arm_watchdog(turn, ans)

    def commit(self, turn: Turn, ans: Answer) -> None:
        """The held answer becomes the answer: its buffered text is published and its audio goes to the player."""
        core = self._core
        ans.held = False
        self._recorder.memory.committed(ans)  # a request the held answer previewed is done now
        text = ans.full_text()
        if ans.error:
            core.error(ErrorKind.GENERATOR, f"the answer failed: {ans.error}", turn.turn_id)
        for ev in ans.tool_events:
            core.emit(ev)
        if ans.generated:
            core.emit(AssistantDelta(turn_id=turn.turn_id, text="".join(ans.generated)))
        log.debug("turn %s: preemptive answer committed (%d characters ready)", turn.turn_id, len(text))
        if ans.audio is not None:
            if self.cutting:  # a cut still stopping the player would discard this stream too: play after it
                t = asyncio.get_running_loop().create_task(self._play_after_cuts(ans), name=f"voice-loop-commit-{turn.turn_id}")
                self._background.add(t)
                t.add_done_callback(self._background.discard)
            else:
                self._player.play(ans.audio)
        elif ans.run_done:
            self._finish(turn, ans, interrupted=False)  # nothing to play (an error or an empty answer)
            return
        core.set_state(LoopState.THINKING, "answering")
        self._arm_watchdog(turn, ans)

    def drop(self, turn: Turn, ans: Answer, why: str) -> None:
        """Cancel a held answer: nothing of it was played, nothing is recorded."""
        ans.finished = ans.interrupted = True
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        self._answers.pop(ans.route_id, None)
        self._recorder.memory.dropped(ans)  # its previewed memory request is not done
        if ans.task is not None and not ans.task.done():
            ans.task.cancel()  # its finally closes the generation
        if ans.audio is not None:
            ans.audio.cut()  # closes the TTS stream: synthesis stops

    async def _play_after_cuts(self, ans: Answer) -> None:
        while self.cutting:
            await asyncio.gather(*self.cutting, return_exceptions=True)
        if ans.audio is not None and not ans.finished and not ans.interrupted:
            self._player.play(ans.audio)

    async def wait_cuts(self, deadline: Deadline) -> None:
        """Wait for the pending cuts until ``deadline``. A cut still running then (a player that does not stop, a
        generation that does not close) is cancelled: its turn is recorded with what was heard so far."""
        pending = set(self.cutting)
        if not pending:
            return
        late = await deadline.wait_tasks(pending)
        if not late:
            return
        log.warning("%d answer cut(s) still running at the stop's deadline; recording what was heard", len(late))
        for t in late:
            t.cancel()
        await asyncio.wait(late, timeout=_CANCELLED_CUT_S)

    # -- the answer's task ----------------------------------------------------------------------
    async def _run(self, turn: Turn, ans: Answer) -> None:
        core = self._core
        tl = turn.timeline
        try:
            while self.cutting:  # history must hold the previous (cut) answer first
                await asyncio.gather(*self.cutting, return_exceptions=True)
            tl.mark("generation_start", core.clock())
            if ans.resume_of is not None:
                ans.resume_prefix, rest = resume_split(ans.resume_of.full_text(), ans.resume_of.kept)
                ans.gen = text_stream(rest, ans.route_id)
            else:
                ctx = self._recorder.context(ans.prompt)
                ctx = await self._recorder.memory.context(turn, ans, ctx)  # with what long-term memory has for these words
                ans.gen = await shielded_open(core.generator.generate_stream(ans.generator, ctx))
            ans.text_in = StreamBuilder()
            inner = await shielded_open(self.speech.speak(ans.text_in.stream, ans.recorder))
            audio = AnswerAudio(ans.route_id, inner, on_pull=self._on_pull, on_end=self._on_audio_end)
            audio.keep_far = self._heard.keeps_far
            ans.audio = audio
            if not ans.held:
                self._player.play(audio)
            while True:
                try:
                    c = await ans.gen.next()
                except Done:
                    break
                except Truncated:
                    log.info("turn %s: the answer was truncated (max tokens)", turn.turn_id)
                    break
                if is_tool_chunk(c):
                    self._tool_event(turn, ans, c)
                    continue
                part = c.part
                if isinstance(part, Text) and part.text:
                    tl.mark("first_token", core.clock())
                    ans.generated.append(part.text)
                    if not ans.held:
                        core.emit(AssistantDelta(turn_id=turn.turn_id, text=part.text))
                    try:
                        ans.text_in.push(MessageChunk.text(part.text, role=Role.ASSISTANT, stream_id=ans.route_id))
                    except StreamClosedError:
                        if not ans.speech_failed:
                            raise
                        break  # the TTS failed and closed its input: the rest cannot be spoken
                    self._arm_watchdog(turn, ans)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            ans.error = describe_error(e)
            if not ans.held:  # (a held answer's error is reported when it is committed)
                core.error(ErrorKind.GENERATOR, f"the answer failed: {ans.error}", turn.turn_id)
        finally:
            ans.run_done = True
            gen = ans.gen
            if gen is not None:
                with contextlib.suppress(Exception):
                    await gen.close()
                ans.tool_messages = await kept_tool_messages(gen, TOOLS_SETTLE_S)
            b = ans.text_in
            if b is not None and not b.ended and not ans.interrupted:
                b.push(MessageChunk.eos(ans.route_id, Text(""), role=Role.ASSISTANT))
                b.done()
        if ans.audio is None and not ans.finished and not ans.held:
            self._finish(turn, ans, interrupted=False)

    def _tool_event(self, turn: Turn, ans: Answer, c: MessageChunk) -> None:
        ev = activity_event(turn.turn_id, c)
        if ev is None:
            return
        ans.tool_events.append(ev)
        if not ans.held:
            self._core.emit(ev)
        self._arm_watchdog(turn, ans)

    def _arm_watchdog(self, turn: Turn, ans: Answer) -> None:
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        if ans.finished:
            return
        ans.watchdog = asyncio.get_running_loop().call_later(self._core.config.answer_timeout_s, self._stalled, turn, ans)

    def _stalled(self, turn: Turn, ans: Answer) -> None:
        if ans.finished:
            return
        if ans.held:
            self.drop_held(turn, "no progress")
            return
        ans.error = ans.error or f"no progress for {self._core.config.answer_timeout_s:.0f} s"
        self._core.error(ErrorKind.GENERATOR, f"the answer stalled ({ans.error}); giving up", turn.turn_id)
        self.cut(turn, ans, None, "stalled")

    # -- player and TTS callbacks ---------------------------------------------------------------
    def _on_pull(self, audio: AnswerAudio, c: MessageChunk) -> None:
        entry = self._answers.get(audio.stream_id)
        if entry is None:
            return
        turn, ans = entry
        if isinstance(c.part, Blob) and c.part.data:
            turn.timeline.mark("first_audio", ans.recorder.first_audio_at or self._core.clock())
            self._arm_watchdog(turn, ans)
        if c.is_end_of_stream() and c.error and not ans.interrupted and not ans.error:
            # the TTS ended the route with an error (the stream raises it next)
            ans.error = c.error
            ans.speech_failed = True
            self._core.error(ErrorKind.TTS, f"speech synthesis failed: {c.error}", turn.turn_id)

    def _on_audio_end(self, audio: AnswerAudio, exc: BaseException | None) -> None:
        entry = self._answers.get(audio.stream_id)
        if entry is None:
            return
        turn, ans = entry
        if ans.finished or ans.interrupted:
            return
        if exc is not None:
            ans.speech_failed = True
            if not ans.error:
                ans.error = describe_error(exc)
                self._core.error(ErrorKind.TTS, f"speech synthesis failed: {ans.error}", turn.turn_id)
        if not audio.saw_open:
            # no audio route reached the player: nothing will be played (nothing was heard when the TTS failed)
            self._finish(turn, ans, interrupted=ans.speech_failed, spoken="" if ans.speech_failed else None)

    def on_played(self, pos: Any) -> None:
        entry = self._answers.get(str(pos.stream_id))
        if entry is None:
            return
        turn, ans = entry
        if ans.finished:
            return
        core = self._core
        if int(pos.samples_played) > 0 and not ans.started_playing:
            ans.started_playing = True
            tl = turn.timeline
            now = core.clock()
            tl.mark("first_played", now)
            rate = int(pos.rate or 0)
            audible_at = float(getattr(pos, "audible_at", 0.0) or 0.0)
            if audible_at > 0 and rate:
                tl.output_latency = max(0.0, audible_at - int(pos.samples_played) / rate - now)
            else:
                tl.output_latency = self.output_latency()
            self._mic.speaking(True)
            core.set_state(LoopState.SPEAKING, "first audio")
        spoken = self._heard.advance(ans, pos)
        self._arm_watchdog(turn, ans)
        if spoken != ans.spoken:
            ans.spoken = spoken
            core.emit(AssistantSpoken(turn_id=turn.turn_id, spoken_text=spoken))

    def on_route_end(self, pos: Any) -> None:
        entry = self._answers.get(str(pos.stream_id))
        if entry is None:
            return
        turn, ans = entry
        if ans.finished or ans.interrupted:
            return
        ans.played_samples = max(ans.played_samples, int(pos.samples_played))
        if bool(getattr(pos, "interrupted", False)):
            # cut by an upstream error or by the output itself (not by the user; e.g. the device was lost): the
            # answer is cut in order (generation and synthesis stop) and keeps what was heard, marked interrupted
            ans.heard_samples = max(ans.heard_samples, int(pos.samples_heard))
            reason = str(getattr(pos, "error", "") or "")
            if not ans.error:
                ans.error = reason or "playback stopped"
                message = f"{reason}; the answer stopped where it was heard" if reason else "playback of the answer stopped early"
                self._core.error(ErrorKind.PLAYER, message, turn.turn_id)
            self.cut(turn, ans, None, "playback stopped")
            return
        if ans.speech_failed:  # every sample was played, but the TTS could not speak the rest of the text
            self._finish(turn, ans, interrupted=True, spoken=spoken_text(ans, ans.played_samples, to_the_end=True))
            return
        self._finish(turn, ans, interrupted=False)

    # -- the end --------------------------------------------------------------------------------
    def _finish(self, turn: Turn, ans: Answer, *, interrupted: bool, spoken: str | None = None) -> None:
        """``spoken``: the heard text when only part of the answer was heard (else the whole answer counts)."""
        if ans.finished:
            return
        core = self._core
        ans.finished = True
        if ans.watchdog is not None:
            ans.watchdog.cancel()
        self.on_over(turn)
        self._answers.pop(ans.route_id, None)
        self._heard.forget(ans.route_id)
        full = ans.full_text()
        kept = full if spoken is None else in_generated_words(full, spoken)
        ans.kept = kept
        tl = turn.timeline
        tl.mark("answer_end", core.clock())
        tl.interrupted = interrupted
        if spoken is None and kept and kept != ans.spoken:
            ans.spoken = kept
            core.emit(AssistantSpoken(turn_id=turn.turn_id, spoken_text=kept))
        core.emit(AssistantDone(turn_id=turn.turn_id, text=full, interrupted=interrupted, spoken_text=kept, error=ans.error))
        self._recorder.record(turn, ans, kept=kept, interrupted=interrupted)
        if self.ducked:
            self.duck(False)
        self._mic.speaking(False)
        core.settle("answer done")


__all__ = ["AnswerRunner"]
