"""The turn manager: whose turn it is, when the user's turn ends, and what happens to the answer.

:class:`TurnManager` is a state machine over the router's events (a speech route
opened, a transcript or provisional text arrived, a route closed, speech resumed
after a pause) and the user's commands (typed text, stop). It owns the turn being
heard (``collecting``) and the turn being answered (``answering``), and decides:

* **turn open / join**: a route that starts while the turn still waits for its
  words joins it; otherwise it opens a new turn;
* **barge-in admission**: new speech while an answer runs cuts that answer, or
  is refused when barge-in is off;
* **end of turn**: when every route is closed and every utterance transcribed,
  the joined words start the answer (an empty transcript is reported and the
  loop listens again);
* **turn reopen** (hands-free): speech that starts after the turn ended but
  before any of its answer was heard continues that turn: the answer is dropped unheard, the
  transcripts join, one turn is recorded (``reopen_turns``);
* **backchannels** (hands-free, ``backchannel_ducking``): speech while the
  answer is heard ducks it and opens a *candidate* turn. It becomes a barge-in
  (the answer is cut, the turn goes on) on a stop phrase, on enough words that
  are not listener talk, or after ``interrupt_after_ms`` of voiced speech
  (:func:`~genx.agentkit.backchannel.is_interruption`); when it ends short of
  that (a backchannel, a cough, a murmur misheard as a word or two), it is dismissed
  (``SpeechDismissed``): the volume comes back and the answer goes on untouched;
* **false-interruption recovery** (hands-free, ``resume_false_stop_s``): a
  barge-in on sound alone (no words yet) whose speech ends without words was a
  noise: the cut answer resumes from the start of the sentence it was in
  (:mod:`.resume`);
* **held answers** (preemptive generation): at a pause whose transcript is
  complete, the answer starts *held*; it is committed when the turn ends with
  the same words, and dropped unheard when the user goes on.

It does no I/O: the answer's machinery is behind :class:`AnswerPort` (the answer
runner), events go through the :class:`~genx.agentkit.core.LoopCore`, and time
comes from its injected clock, so it can be driven on a scripted timeline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from genx.agentkit.backchannel import is_interruption
from genx.agentkit.core import LoopCore
from genx.agentkit.events import ErrorKind, LoopState, SpeechDismissed, SpeechStarted, TurnReopened, UserFinal
from genx.agentkit.metrics import TurnTimeline
from genx.agentkit.over_answer import Candidate, DuckHint, Resumable, dismiss_pause_ms, voiced_ms
from genx.agentkit.resume import resume_split
from genx.agentkit.spoken import join_segments
from genx.agentkit.turns import Answer, SpeechRoute, Turn

log = logging.getLogger("genx.agentkit.loop")


class AnswerPort(Protocol):
    """What the turn manager asks of the answer runner."""

    def create(self, turn: Turn, *, held: bool, prompt: str) -> Answer: ...
    def launch(self, turn: Turn, ans: Answer) -> None: ...
    def commit(self, turn: Turn, ans: Answer) -> None: ...
    def drop(self, turn: Turn, ans: Answer, why: str) -> None: ...
    def discard(self, turn: Turn, ans: Answer, why: str) -> None: ...
    def duck(self, on: bool) -> bool: ...
    def cut(self, turn: Turn, ans: Answer, onset: float | None, why: str) -> None: ...


class TurnManager:
    """See the module docstring."""

    def __init__(self, core: LoopCore, answers: AnswerPort) -> None:
        self._core = core
        self._answers = answers
        self._seq = 0
        self.collecting: Turn | None = None  # the user's turn being heard / transcribed
        self.answering: Turn | None = None  # the turn whose answer runs
        self.candidate: Candidate | None = None  # speech over the answer, judged as it goes on
        self.resumable: Resumable | None = None  # the last answer cut by sound alone (see Resumable)
        self.hinted: DuckHint | None = None  # the answer ducked on a voice hint, ahead of an onset
        # a dismissed candidate's speech routes end now (the router's; speech after it is a new onset)
        self.on_dismissed: Callable[[Turn], None] = lambda turn: None

    def new_turn(self, typed: bool = False) -> Turn:
        self._seq += 1
        tid = f"t{self._seq}"
        return Turn(tid, self._core.conversation_id, TurnTimeline(tid), self._core.wall(), typed=typed)

    def continue_numbering(self, next_seq: int) -> None:
        """A stored conversation was loaded: new turns are numbered from ``next_seq`` on (ids never repeat)."""
        self._seq = max(self._seq, next_seq - 1)

    def current_answer(self) -> tuple[Turn, Answer] | None:
        turn = self.answering
        if turn is None or turn.answer is None:
            return None
        return turn, turn.answer

    # -- speech from the router ---------------------------------------------------------------
    def admit_speech(self, onset: float, why: str, source: str = "vad") -> bool:
        """New user speech (``source``: "vad" or "ptt"): reopen the turn, barge in on a running answer, or refuse
        it (barge-in off)."""
        self.hinted = None  # an onset: what the hint ducked for is judged now
        turn = self.answering
        if turn is None or turn.answer is None or turn.answer.finished:
            return True
        if source == "vad" and self._can_reopen(turn, turn.answer):
            self._reopen(turn, turn.answer, why)
            return True
        if not self._core.config.barge_in:
            log.info("%s while the assistant speaks ignored (barge-in is off)", why)
            return False
        ans = turn.answer
        if source == "vad" and self._core.config.backchannel_ducking and ans.started_playing:
            c = self.candidate
            if c is not None and (c.answer is not ans or (c.turn is not None and c.turn is not self.collecting)):
                self.candidate = c = None  # left from an answer or a turn that is over: this speech is judged afresh
            if c is not None and (self.collecting is None or self.collecting is c.turn):
                return True  # more speech of the same candidate: it joins its turn
            if c is None and self.collecting is None and self._answers.duck(True):
                self.candidate = Candidate(turn, ans, onset)
                log.debug("turn %s: speech over the answer, ducked (%s)", turn.turn_id, why)
                return True
        self._cut_on_sound(turn, ans, onset, why, by=self.collecting if source == "vad" else None, resumable=source == "vad")
        return True

    def voice_hint(self, now: float) -> DuckHint | None:
        """Voiced frames that may become an onset while the answer is heard: it ducks now, ahead of the
        VAD's onset; :meth:`hint_expired` brings the volume back if no onset followed."""
        cur = self.current_answer()
        if cur is None or self.candidate is not None or self.collecting is not None or not self._core.config.backchannel_ducking:
            return None
        ans = cur[1]
        if not ans.started_playing or ans.finished or ans.interrupted or not self._answers.duck(True):
            return None
        self.hinted = DuckHint(ans, now)
        return self.hinted

    def hint_expired(self, hint: DuckHint) -> None:
        """``hint``'s time is up: with no onset since (nor a newer hint), the answer's volume comes back."""
        if self.hinted is not hint:
            return
        self.hinted = None
        if self.candidate is None and self.collecting is None:
            log.debug("voice hint without an onset: the volume comes back")
            self._answers.duck(False)

    def _cut_on_sound(self, turn: Turn, ans: Answer, onset: float | None, why: str, *, by: Turn | None, resumable: bool) -> None:
        """Barge in on speech whose words are not known yet; it may turn out to be a noise (see Resumable)."""
        heard = ans.started_playing and not ans.finished and not ans.interrupted
        self._answers.cut(turn, ans, onset, why)
        if resumable and heard and self._core.config.resume_false_stop_s > 0:
            self.resumable = Resumable(turn, ans, self._core.clock(), by)

    # -- speech over the answer ----------------------------------------------------------------
    def _candidate_of(self, turn: Turn) -> Candidate | None:
        c = self.candidate
        return c if c is not None and c.turn is turn else None

    def judging(self, turn: Turn) -> bool:
        """``turn`` is speech over a ducked answer whose words decide whether the answer stops."""
        return self._candidate_of(turn) is not None

    def heard_words(self, turn: Turn, text: str) -> None:
        """A partial / provisional transcript of ``turn`` (called by the ASR feed)."""
        c = self._candidate_of(turn)
        if c is not None and is_interruption(text, voiced_ms(turn), after_ms=self._core.config.interrupt_after_ms):
            self._interrupt(c, f"words: {text!r}")

    def voiced(self, route: SpeechRoute) -> None:
        """More audio of ``route`` (called by the router): long speech over the answer is an interruption."""
        c = self._candidate_of(route.turn)
        if c is None:
            return
        if voiced_ms(route.turn) >= self._core.config.interrupt_after_ms:
            self._interrupt(c, f"{voiced_ms(route.turn):.0f} ms of speech", wordless=not route.turn.heard_so_far())
        elif route.pauses.quiet_ms >= dismiss_pause_ms(route) and route.current is not None and route.current.provisional:
            # it stopped short of an interruption, and the ASR has judged the words of the pause (never dismiss before
            # the words are known): the volume comes back now
            self._dismiss(c, route.turn, route.turn.heard_so_far(route.current.provisional))

    def _interrupt(self, c: Candidate, why: str, *, wordless: bool = False) -> None:
        """The speech over the answer is a real interruption: the answer is cut (kept up to what was heard)."""
        self.candidate = None
        log.debug("turn %s: interrupted (%s)", c.answer_turn.turn_id, why)
        if not c.answer.finished and not c.answer.interrupted:
            if wordless:
                self._cut_on_sound(c.answer_turn, c.answer, c.onset, "barge-in", by=c.turn, resumable=True)
            else:
                self._answers.cut(c.answer_turn, c.answer, c.onset, "barge-in")
        else:
            self._answers.duck(False)

    def _dismiss(self, c: Candidate, turn: Turn, text: str) -> None:
        """A backchannel or a noise: not a turn; the answer's volume comes back."""
        self.candidate = None
        self.collecting = None
        self._answers.duck(False)
        self.on_dismissed(turn)
        log.info("turn %s: %s while the assistant spoke, answer goes on", turn.turn_id, repr(text) if text else "a noise")
        self._core.emit(SpeechDismissed(turn_id=turn.turn_id, text=text))
        self._core.settle("backchannel")

    def _can_reopen(self, turn: Turn, ans: Answer) -> bool:
        return (
            self._core.config.reopen_turns
            and bool(turn.routes)
            and not turn.capped  # the monologue limit holds for the whole turn
            and all(r.source == "vad" for r in turn.routes)  # push-to-talk ends a turn on purpose
            and not ans.started_playing
            and self.collecting is None
            and turn.conversation_id == self._core.conversation_id
        )

    def _reopen(self, turn: Turn, ans: Answer, why: str) -> None:
        """The user goes on before hearing the answer: forget it, and let the new speech join ``turn``."""
        log.debug("turn %s: reopened before its answer was heard (%s)", turn.turn_id, why)
        self._answers.discard(turn, ans, why)
        turn.answer = None
        self.answering = None
        turn.user_text = ""
        turn.timeline.clear("asr_final", "generation_start", "first_token", "first_audio")
        turn.timeline.preemptive = False
        turn.timeline.ended_early = False
        self.collecting = turn
        self._core.emit(TurnReopened(turn_id=turn.turn_id))

    def open_route(self, sid: str, source: str, t: float) -> SpeechRoute:
        """A speech route starts: it joins the turn being heard, or opens a new one."""
        turn = self.collecting
        if turn is None:
            turn = self.new_turn()
            self.collecting = turn
            if self.candidate is not None and self.candidate.turn is None:
                self.candidate.turn = turn
            if self.resumable is not None and self.resumable.by is None:
                self.resumable.by = turn
        turn.timeline.mark("speech_start", t)
        route = SpeechRoute(sid, turn, source)
        turn.routes.append(route)
        self._core.emit(SpeechStarted(turn_id=turn.turn_id))
        self._core.set_state(LoopState.HEARING, "speech")
        return route

    def maybe_answer(self, turn: Turn) -> None:
        """Something of ``turn``'s speech changed: answer it if every word is known, else maybe start a held answer."""
        core = self._core
        if turn is not self.collecting:
            return
        c = self._candidate_of(turn)
        if turn.waiting_for_words():
            if c is None:
                self._maybe_preempt(turn)
            return
        text = turn.heard_so_far()
        if c is not None:
            if not is_interruption(text, voiced_ms(turn), after_ms=self._core.config.interrupt_after_ms):
                self._dismiss(c, turn, text)
                return
            self._interrupt(c, f"words: {text!r}")
        self.collecting = None
        held = turn.answer if turn.answer is not None and turn.answer.held else None
        if held is not None and (held.prompt != text or held.finished):
            self.drop_held(turn, "the transcript changed")
            held = None
        if not text:
            if self._maybe_resume(turn):
                return
            if not any(u.error for u in turn.utterances):
                core.error(ErrorKind.INPUT, "heard something but no words; listening again", turn.turn_id, level=logging.INFO)
            core.settle("nothing recognised")
            return
        turn.user_text = text
        core.emit(UserFinal(turn_id=turn.turn_id, text=text))
        if held is not None:
            self._commit_held(turn, held)
        else:
            self.start_answer(turn)

    def _maybe_resume(self, turn: Turn) -> bool:
        """``turn`` ended without words: if its speech cut an answer on sound alone, that answer goes on."""
        r, self.resumable = self.resumable, None
        core = self._core
        if r is None or r.by is not turn or core.clock() - r.cut_at > core.config.resume_false_stop_s:
            return False
        if self.answering is not None or not r.answer.finished or turn.conversation_id != core.conversation_id:
            return False  # something else answers now, or the cut is not recorded yet
        if not resume_split(r.answer.full_text(), r.answer.kept)[1]:
            return False  # it had been heard to its end
        resumed = self.new_turn()
        resumed.resumed = True
        ans = self._answers.create(resumed, held=False, prompt="")
        ans.resume_of = r.answer
        resumed.answer = ans
        self.answering = resumed
        log.info("turn %s: no words after the barge-in on %s's answer: it resumes", turn.turn_id, r.answer_turn.turn_id)
        core.set_state(LoopState.THINKING, "resuming")
        self._answers.launch(resumed, ans)
        return True

    def _maybe_preempt(self, turn: Turn) -> None:
        """The user paused and the ASR has every word so far, but the VAD still waits for the end of the turn:
        start the answer, held (:meth:`_commit_held` when the turn ends as assumed, :meth:`drop_held` if not)."""
        if not self._core.config.preemptive_generation or not self._core.running or turn.answer is not None:
            return
        open_routes = [r for r in turn.routes if r.open]
        if not open_routes or any(r.source != "vad" or not r.flushed for r in open_routes):
            return
        if any(r.needs_verdict and r.pause_verdict is None for r in open_routes):
            return  # the end-of-turn check comes first: the answer would hold the model it needs
        pending = [u for u in turn.utterances if not u.transcribed]
        if any(not u.open or not u.provisional for u in pending):
            return
        text = join_segments([u.text if u.transcribed else u.provisional for u in turn.utterances])
        if not text:
            return
        turn.preempted += 1
        turn.timeline.preemptive = True
        self.start_answer(turn, held=True, prompt=text)

    def _commit_held(self, turn: Turn, ans: Answer) -> None:
        """The turn ended as the held answer assumed: it becomes the answer."""
        prev = self.answering
        if prev is not None and prev is not turn and prev.answer is not None:
            self._answers.cut(prev, prev.answer, None, "a newer question")
        self.answering = turn
        self._answers.commit(turn, ans)

    def drop_held(self, turn: Turn, why: str) -> None:
        """Forget the held answer of ``turn``: nothing of it was played, nothing is recorded."""
        ans = turn.answer
        if ans is None or not ans.held:
            return
        turn.answer = None
        turn.timeline.clear("generation_start", "first_token", "first_audio")
        turn.timeline.preemptive = False
        log.debug("turn %s: preemptive answer dropped (%s)", turn.turn_id, why)
        self._answers.drop(turn, ans, why)

    # -- answers ------------------------------------------------------------------------------
    def start_answer(self, turn: Turn, *, held: bool = False, prompt: str = "") -> None:
        """Answer ``turn.user_text``; ``held``: answer ``prompt`` before the turn ended (see :meth:`_maybe_preempt`)."""
        ans = self._answers.create(turn, held=held, prompt=prompt or turn.user_text)
        turn.answer = ans
        if not held:
            self.resumable = None  # the user has the turn: nothing resumes
            prev = self.answering
            if prev is not None and prev.answer is not None:
                self._answers.cut(prev, prev.answer, None, "a newer question")
            self.answering = turn
            self._core.set_state(LoopState.THINKING, "answering")
        self._answers.launch(turn, ans)

    def answer_over(self, turn: Turn) -> None:
        """``turn``'s answer was cut or finished (called by the answer runner)."""
        if self.answering is turn:
            self.answering = None

    def typed(self, text: str) -> None:
        """A typed message: a turn of its own, answered at once."""
        turn = self.new_turn(typed=True)
        turn.user_text = text
        turn.timeline.mark("asr_final", self._core.clock())
        self._core.emit(UserFinal(turn_id=turn.turn_id, text=text, typed=True))
        self.start_answer(turn)

    def stop_answer(self, onset: float | None, why: str) -> None:
        """Cut the running answer (``onset``: when the user started it, for the barge-in latency)."""
        cur = self.current_answer()
        if cur is not None:
            self._answers.cut(cur[0], cur[1], onset, why)

    def abandon_collecting(self, why: str) -> Turn | None:
        """Forget the turn being heard (its held answer too); returns it so its routes can be closed."""
        turn = self.collecting
        if turn is None:
            return None
        self.drop_held(turn, why)
        self.collecting = None
        if self.candidate is not None and self.candidate.turn is turn:
            self.candidate = None
            self._answers.duck(False)
        return turn


__all__ = ["AnswerPort", "Candidate", "Resumable", "TurnManager"]
