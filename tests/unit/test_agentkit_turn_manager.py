"""The turn manager alone, on scripted timelines: a fake answer port, a virtual clock, routes and transcripts by hand.

What the router would do (open a route, transcribe an utterance, flush at a
pause, close a route) is written out step by step; the manager's decisions are
read from the calls it makes on the answer port and the events it publishes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from genx.agentkit.core import LoopConfig, LoopCore
from genx.agentkit.events import EventBus, LoopError, LoopState, SpeechDismissed, SpeechStarted, StateChanged, TurnReopened, UserFinal
from genx.agentkit.spoken import SegmentRecorder
from genx.agentkit.turn_manager import TurnManager
from genx.agentkit.turns import Answer, SpeechRoute, Turn, Utterance


@dataclass
class FakeAnswers:
    """Records the manager's calls; answers are plain data the test finishes by hand."""

    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (call, turn id, detail)
    seq: int = 0
    can_duck: bool = False

    def duck(self, on: bool) -> bool:
        if self.can_duck:
            self.calls.append(("duck" if on else "unduck", "", ""))
        return self.can_duck

    def create(self, turn: Turn, *, held: bool, prompt: str) -> Answer:
        self.seq += 1
        return Answer(f"a{self.seq}", SegmentRecorder(), "fake/model", held=held, prompt=prompt)

    def launch(self, turn: Turn, ans: Answer) -> None:
        self.calls.append(("launch-held" if ans.held else "launch", turn.turn_id, ans.prompt))

    def commit(self, turn: Turn, ans: Answer) -> None:
        ans.held = False
        self.calls.append(("commit", turn.turn_id, ans.prompt))

    def discard(self, turn: Turn, ans: Answer, why: str) -> None:
        ans.finished = ans.interrupted = True
        self.calls.append(("discard", turn.turn_id, why))

    def drop(self, turn: Turn, ans: Answer, why: str) -> None:
        ans.finished = ans.interrupted = True
        self.calls.append(("drop", turn.turn_id, why))

    def cut(self, turn: Turn, ans: Answer, onset: float | None, why: str) -> None:
        ans.interrupted = True
        self.calls.append(("cut", turn.turn_id, f"{why}@{onset}"))


class Timeline:
    def __init__(self, **config: object) -> None:
        self.now = 0.0
        self.events: list[object] = []
        bus = EventBus()
        bus.subscribe(self.events.append)
        cfg = LoopConfig(generator="fake/model", **config)  # type: ignore[arg-type]
        self.core = LoopCore(cfg, generator=object(), conversation_id="c1", clock=lambda: self.now, wall_clock=lambda: 1000.0, bus=bus)  # type: ignore[arg-type]
        self.core.running = True
        self.answers = FakeAnswers()
        self.turns = TurnManager(self.core, self.answers)

    def at(self, t: float) -> Timeline:
        self.now = t
        return self

    # what the router does, by hand
    def speech(self, sid: str, source: str = "vad") -> tuple[SpeechRoute, Utterance]:
        route = self.turns.open_route(sid, source, self.now)
        u = Utterance(f"asr-{sid}", route.turn, source)
        route.turn.utterances.append(u)
        route.current = u
        return route, u

    def pause(self, route: SpeechRoute, provisional: str) -> None:
        """A flush at a pause and its provisional transcript."""
        assert route.current is not None
        route.flushed = True
        route.current.flushed_bytes = 0
        route.current.provisional = provisional
        self.turns.maybe_answer(route.turn)

    def resume(self, route: SpeechRoute) -> None:
        route.flushed = False
        if route.current is not None:
            route.current.provisional = ""
        self.turns.drop_held(route.turn, "the user went on talking")

    def end(self, route: SpeechRoute) -> None:
        route.open = False
        if route.current is not None:
            route.current.open = False
        route.current = None
        self.turns.maybe_answer(route.turn)

    def transcribed(self, u: Utterance, text: str) -> None:
        u.text, u.transcribed = text, True
        self.turns.maybe_answer(u.turn)

    def of(self, kind: type) -> list[object]:
        return [e for e in self.events if isinstance(e, kind)]


def test_speech_that_starts_while_the_turn_waits_for_its_words_joins_that_turn_and_one_answer_gets_both() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.5).end(r1)
    r2, u2 = tl.at(1.7).speech("v2")  # the first utterance is not transcribed yet
    assert r2.turn is r1.turn
    tl.at(1.8).transcribed(u1, "book a table for")
    assert tl.answers.calls == []  # the second utterance is still open
    tl.at(2.5).end(r2)
    tl.at(2.7).transcribed(u2, "four people")
    assert tl.answers.calls == [("launch", "t1", "book a table for four people")]
    assert [e.text for e in tl.of(UserFinal)] == ["book a table for four people"]  # type: ignore[attr-defined]
    assert len(tl.of(SpeechStarted)) == 2


def test_speech_after_the_answer_started_opens_a_new_turn_and_barges_in_with_its_onset() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.5).end(r1)
    tl.at(1.6).transcribed(u1, "tell me a story")
    assert tl.turns.answering is r1.turn and r1.turn.answer is not None
    r1.turn.answer.started_playing = True  # the user has heard some of it
    onset = 3.25
    assert tl.turns.admit_speech(onset, "speech onset") is True
    r2, _ = tl.at(3.3).speech("v2")
    assert r2.turn is not r1.turn and r2.turn.turn_id == "t2"
    assert tl.answers.calls[-1] == ("cut", "t1", "speech onset@3.25")


def test_with_barge_in_off_speech_during_an_answer_is_refused_and_nothing_is_cut() -> None:
    tl = Timeline(barge_in=False, preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.end(r1)
    tl.transcribed(u1, "hello")
    assert r1.turn.answer is not None
    r1.turn.answer.started_playing = True
    assert tl.turns.admit_speech(2.0, "speech onset") is False
    assert [c[0] for c in tl.answers.calls] == ["launch"]


def test_speech_after_the_answer_finished_is_admitted_without_a_cut() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.end(r1)
    tl.transcribed(u1, "hello")
    assert r1.turn.answer is not None
    r1.turn.answer.finished = True
    tl.turns.answer_over(r1.turn)
    assert tl.turns.admit_speech(5.0, "speech onset") is True
    assert [c[0] for c in tl.answers.calls] == ["launch"]


def test_a_turn_with_no_words_is_reported_and_starts_no_answer() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.end(r1)
    tl.transcribed(u1, "")
    assert tl.answers.calls == []
    errors = tl.of(LoopError)
    assert len(errors) == 1 and errors[0].kind == "input"  # type: ignore[attr-defined]
    assert tl.turns.collecting is None


def test_a_complete_pause_starts_a_held_answer_which_is_committed_when_the_turn_ends_with_the_same_words() -> None:
    tl = Timeline()
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.6).pause(r1, "what time is it")
    assert tl.answers.calls == [("launch-held", "t1", "what time is it")]
    assert tl.turns.answering is None  # held: not the running answer yet
    assert r1.turn.timeline.preemptive is True
    tl.at(2.0).end(r1)
    tl.transcribed(u1, "what time is it")
    assert tl.answers.calls[-1] == ("commit", "t1", "what time is it")
    assert tl.turns.answering is r1.turn


def test_speech_after_the_pause_drops_the_held_answer_and_the_whole_turn_is_answered() -> None:
    tl = Timeline()
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.6).pause(r1, "so I was thinking that maybe")
    r1.turn.timeline.mark("generation_start", 1.61)
    tl.at(2.0).resume(r1)
    assert tl.answers.calls[-1] == ("drop", "t1", "the user went on talking")
    assert r1.turn.answer is None and r1.turn.timeline.generation_start is None
    assert r1.turn.timeline.preemptive is False
    tl.at(3.5).end(r1)
    tl.transcribed(u1, "so I was thinking that maybe we could talk about planets")
    assert tl.answers.calls[-1] == ("launch", "t1", "so I was thinking that maybe we could talk about planets")


def test_a_final_transcript_other_than_the_held_answers_words_drops_it_and_answers_the_final() -> None:
    tl = Timeline()
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.6).pause(r1, "what time is")
    tl.at(2.0).end(r1)
    tl.transcribed(u1, "what time is it")
    assert [c[:2] for c in tl.answers.calls] == [("launch-held", "t1"), ("drop", "t1"), ("launch", "t1")]
    assert tl.answers.calls[-1][2] == "what time is it"


def test_push_to_talk_routes_never_start_a_held_answer() -> None:
    tl = Timeline()
    r1, _ = tl.at(0.5).speech("p1", source="ptt")
    tl.at(1.6).pause(r1, "what time is it")
    assert tl.answers.calls == []


def test_with_preemption_off_a_pause_starts_nothing_before_the_end_of_the_turn() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.6).pause(r1, "what time is it")
    assert tl.answers.calls == []
    tl.end(r1)
    tl.transcribed(u1, "what time is it")
    assert tl.answers.calls == [("launch", "t1", "what time is it")]


def test_a_new_answer_cuts_the_running_one_as_a_newer_question_and_a_typed_message_is_its_own_turn() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.end(r1)
    tl.transcribed(u1, "first question")
    tl.at(2.0).turns.typed("second question")
    assert tl.answers.calls[-2:] == [("cut", "t1", "a newer question@None"), ("launch", "t2", "second question")]
    finals = tl.of(UserFinal)
    assert [(e.text, e.typed) for e in finals] == [("first question", False), ("second question", True)]  # type: ignore[attr-defined]
    assert tl.turns.answering is not None and tl.turns.answering.turn_id == "t2"
    assert StateChanged in {type(e) for e in tl.events}
    assert tl.core.state is LoopState.THINKING


def test_abandoning_the_heard_turn_drops_its_held_answer_and_forgets_the_turn() -> None:
    tl = Timeline()
    r1, _ = tl.at(0.5).speech("v1")
    tl.at(1.6).pause(r1, "what time is it")
    dropped = tl.turns.abandon_collecting("new conversation")
    assert dropped is r1.turn and tl.turns.collecting is None
    assert tl.answers.calls[-1] == ("drop", "t1", "new conversation")


def test_speech_before_any_of_the_answer_was_heard_reopens_the_turn_and_the_joined_words_get_one_answer() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.5).end(r1)
    tl.at(1.6).transcribed(u1, "I'd like to book a table for")
    assert tl.answers.calls == [("launch", "t1", "I'd like to book a table for")]
    assert tl.turns.admit_speech(2.4, "speech onset") is True  # nothing of the answer was played yet
    assert tl.answers.calls[-1] == ("discard", "t1", "speech onset")
    assert [e.turn_id for e in tl.of(TurnReopened)] == ["t1"]  # type: ignore[attr-defined]
    r2, u2 = tl.at(2.45).speech("v2")
    assert r2.turn is r1.turn and tl.turns.answering is None
    tl.at(3.2).end(r2)
    tl.transcribed(u2, "four people")
    assert tl.answers.calls[-1] == ("launch", "t1", "I'd like to book a table for four people")


def test_a_key_press_after_a_hands_free_turn_barges_in_instead_of_reopening_it() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.5).end(r1)
    tl.transcribed(u1, "what is the weather")
    assert tl.turns.admit_speech(1.7, "push-to-talk", "ptt") is True
    assert tl.answers.calls[-1] == ("cut", "t1", "push-to-talk@1.7")


def test_a_push_to_talk_turn_is_never_reopened_a_new_press_barges_in() -> None:
    tl = Timeline(preemptive_generation=False)
    r1, u1 = tl.at(0.5).speech("p1", source="ptt")
    tl.at(1.5).end(r1)
    tl.transcribed(u1, "what is the weather")
    assert tl.turns.admit_speech(1.7, "speech onset") is True
    assert tl.answers.calls[-1] == ("cut", "t1", "speech onset@1.7")
    assert tl.of(TurnReopened) == []


def test_with_reopen_off_speech_before_the_answer_was_heard_cuts_it_as_a_barge_in() -> None:
    tl = Timeline(preemptive_generation=False, reopen_turns=False)
    r1, u1 = tl.at(0.5).speech("v1")
    tl.end(r1)
    tl.transcribed(u1, "hello")
    assert tl.turns.admit_speech(2.0, "speech onset") is True
    assert tl.answers.calls[-1] == ("cut", "t1", "speech onset@2.0")


def _speaking(tl: Timeline) -> Turn:
    """A hands-free turn whose answer is being heard."""
    r1, u1 = tl.at(0.5).speech("v1")
    tl.at(1.5).end(r1)
    tl.transcribed(u1, "tell me a story")
    assert r1.turn.answer is not None
    r1.turn.answer.started_playing = True
    return r1.turn


def test_a_backchannel_over_the_answer_ducks_it_and_is_dismissed_without_a_turn() -> None:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    story = _speaking(tl)
    assert tl.turns.admit_speech(3.0, "speech onset") is True
    r2, u2 = tl.at(3.05).speech("v2")
    tl.turns.heard_words(r2.turn, "Mm-hm.")
    tl.at(3.6).end(r2)
    tl.transcribed(u2, "Mm-hm.")
    assert [c[0] for c in tl.answers.calls] == ["launch", "duck", "unduck"]  # never cut
    assert story.answer is not None and not story.answer.interrupted
    assert [(e.turn_id, e.text) for e in tl.of(SpeechDismissed)] == [("t2", "Mm-hm.")]  # type: ignore[attr-defined]
    assert [e.text for e in tl.of(UserFinal)] == ["tell me a story"]  # the backchannel is no turn
    assert tl.turns.collecting is None and tl.turns.answering is story


def test_a_cough_with_no_words_over_the_answer_is_dismissed_too() -> None:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, u2 = tl.at(3.05).speech("v2")
    tl.at(3.4).end(r2)
    tl.transcribed(u2, "")
    assert [c[0] for c in tl.answers.calls] == ["launch", "duck", "unduck"]
    assert tl.of(LoopError) == []  # not "heard something but no words"
    assert len(tl.of(SpeechDismissed)) == 1


def test_a_stop_word_in_a_partial_over_the_answer_cuts_it_at_the_onset() -> None:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, u2 = tl.at(3.05).speech("v2")
    tl.at(3.3).turns.heard_words(r2.turn, "Wait")
    assert tl.answers.calls[-1] == ("cut", "t1", "barge-in@3.0")  # timed from the onset, not the word
    tl.at(4.0).end(r2)
    tl.transcribed(u2, "wait, what was that?")
    assert tl.answers.calls[-1] == ("launch", "t2", "wait, what was that?")


def test_words_that_are_not_a_backchannel_make_it_a_real_interruption() -> None:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, _ = tl.at(3.05).speech("v2")
    tl.turns.heard_words(r2.turn, "okay")
    assert tl.answers.calls[-1][0] == "duck"  # still only listener talk
    tl.turns.heard_words(r2.turn, "okay tell me about dogs")
    assert tl.answers.calls[-1] == ("cut", "t1", "barge-in@3.0")


def test_long_speech_over_the_answer_is_an_interruption_even_before_any_words() -> None:
    tl = Timeline(preemptive_generation=False, interrupt_after_ms=800, backchannel_ducking=True)
    tl.answers.can_duck = True
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, _ = tl.at(3.05).speech("v2")
    r2.pauses.total_voiced_ms = 790.0
    tl.turns.voiced(r2)
    assert tl.answers.calls[-1][0] == "duck"
    r2.pauses.total_voiced_ms = 800.0
    tl.turns.voiced(r2)
    assert tl.answers.calls[-1] == ("cut", "t1", "barge-in@3.0")


def test_a_second_stretch_of_speech_joins_the_candidate_instead_of_cutting() -> None:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, u2 = tl.at(3.05).speech("v2")
    tl.at(3.5).end(r2)  # "mm-hm" not transcribed yet
    assert tl.turns.admit_speech(3.7, "speech onset") is True
    r3, u3 = tl.at(3.75).speech("v3")
    assert r3.turn is r2.turn
    tl.transcribed(u2, "mm-hm")
    tl.at(4.1).end(r3)
    tl.transcribed(u3, "yeah")
    assert [c[0] for c in tl.answers.calls] == ["launch", "duck", "unduck"]


def test_without_a_player_that_can_duck_speech_over_the_answer_cuts_it_as_before() -> None:
    tl = Timeline(preemptive_generation=False)
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    assert tl.answers.calls[-1] == ("cut", "t1", "speech onset@3.0")


def test_speech_over_the_answer_that_stops_short_is_dismissed_at_its_pause_and_its_routes_end() -> None:
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    ended: list[str] = []
    tl.turns.on_dismissed = lambda turn: ended.append(turn.turn_id)
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, u2 = tl.at(3.05).speech("v2")
    r2.pauses.total_voiced_ms, r2.pauses.quiet_ms = 450.0, 590.0
    tl.turns.voiced(r2)
    assert tl.answers.calls[-1][0] == "duck"  # still ducked: the pause may yet go on into words
    r2.pauses.quiet_ms = 600.0
    tl.turns.voiced(r2)
    assert tl.answers.calls[-1][0] == "duck"  # the pause's words are not known yet: never dismissed before them
    u2.provisional = "Okay."
    tl.turns.voiced(r2)
    assert tl.answers.calls[-1][0] == "unduck" and ended == ["t2"]  # volume back at once, not after the end-of-turn wait
    assert len(tl.of(SpeechDismissed)) == 1 and tl.turns.collecting is None


def test_speech_over_a_later_answer_is_judged_afresh_after_the_earlier_candidate_was_abandoned() -> None:
    # "New conversation" while the user talks over a ducked answer: that candidate's turn is forgotten. The next
    # answer's speech must duck and be judged again, not "join" the abandoned candidate (which never cuts anything).
    tl = Timeline(preemptive_generation=False, interrupt_after_ms=800, backchannel_ducking=True)
    tl.answers.can_duck = True
    story = _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    tl.at(3.05).speech("v2")
    assert story.answer is not None
    tl.turns.stop_answer(None, "new conversation")
    story.answer.finished = True
    tl.turns.answer_over(story)
    tl.turns.abandon_collecting("new conversation")
    assert tl.turns.candidate is None
    r3, u3 = tl.at(10.0).speech("v3")
    tl.at(11.0).end(r3)
    tl.transcribed(u3, "tell me another story")
    second = r3.turn.answer
    assert second is not None
    second.started_playing = True
    calls = len(tl.answers.calls)
    tl.turns.admit_speech(14.0, "speech onset")
    r4, _ = tl.at(14.05).speech("v4")
    assert ("duck", "", "") in tl.answers.calls[calls:]
    r4.pauses.total_voiced_ms = 800.0
    tl.turns.voiced(r4)
    assert tl.answers.calls[-1] == ("cut", r3.turn.turn_id, "barge-in@14.0")


def _checked_speech_over_the_answer() -> tuple[Timeline, list[str], SpeechRoute, Utterance]:
    """Speech over a ducked answer whose pauses an end-of-turn detector judges; ``ended``: dismissed turns."""
    tl = Timeline(preemptive_generation=False, backchannel_ducking=True)
    tl.answers.can_duck = True
    ended: list[str] = []
    tl.turns.on_dismissed = lambda turn: ended.append(turn.turn_id)
    _speaking(tl)
    tl.turns.admit_speech(3.0, "speech onset")
    r2, u2 = tl.at(3.05).speech("v2")
    r2.needs_verdict = True
    return tl, ended, r2, u2


def test_speech_over_the_answer_that_sounds_unfinished_at_a_pause_is_not_dismissed_until_a_longer_pause() -> None:
    # "Quiet please, … I have a question": the comma pause must not end it as a backchannel
    tl, ended, r2, u2 = _checked_speech_over_the_answer()
    u2.provisional = "Question."
    r2.pause_verdict = False  # the detector: unfinished
    r2.pauses.total_voiced_ms, r2.pauses.quiet_ms = 450.0, 700.0
    tl.turns.voiced(r2)
    assert ended == [] and tl.answers.calls[-1][0] == "duck"
    r2.pauses.quiet_ms = 1500.0
    tl.turns.voiced(r2)
    assert ended == ["t2"] and tl.answers.calls[-1][0] == "unduck"


def test_speech_over_the_answer_judged_complete_is_dismissed_at_the_short_pause() -> None:
    tl, ended, r2, u2 = _checked_speech_over_the_answer()
    u2.provisional = "Okay."
    r2.pauses.total_voiced_ms, r2.pauses.quiet_ms = 400.0, 600.0
    tl.turns.voiced(r2)
    assert ended == []  # no verdict yet
    r2.pause_verdict = True
    tl.turns.voiced(r2)
    assert ended == ["t2"]
