"""Semantic end of turn on the scripted rig: a detector ends complete turns at the pause, waits through unfinished ones.

The rig's VAD would end a turn after 300 ms of silence; with a detector the loop
raises that to ``max_end_of_turn_ms`` and ends the turn itself when the detector
says the words so far are complete. The detector here is scripted by transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from genx.agentkit.events import AssistantDelta, AssistantDone, TurnMetrics, TurnReopened, UserFinal
from genx.agentkit.loop import LoopConfig
from genx.agentkit.testing import Reply, Rig
from genx.chunk import Role
from genx.model import ModelContext

pytestmark = pytest.mark.timeout(60)


@dataclass(frozen=True)
class Verdict:
    complete: bool
    probability: float


@dataclass
class ScriptedDetector:
    """Complete when ``complete(transcript)``; records (transcript, audio seconds, context given) per check."""

    complete: Callable[[str], bool]
    fail: bool = False
    calls: list[tuple[str, float, bool]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "scripted"

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> Verdict:
        self.calls.append((transcript or "", len(audio) / 32000.0, context is not None))
        if self.fail:
            raise RuntimeError("model file corrupt")
        done = self.complete(transcript or "")
        return Verdict(done, 0.9 if done else 0.001)


def ends_like_a_question(text: str) -> bool:
    return text.rstrip().endswith(("it", "planets", "people", "weather"))


async def _rig(detector: ScriptedDetector, **kw: object) -> Rig:
    cfg = kw.pop("config", None) or LoopConfig(generator="fake/model", system_prompt="Be brief.", max_end_of_turn_ms=2500)
    rig = Rig(turn_detector=detector, config=cfg, **kw)  # type: ignore[arg-type]
    await rig.start()
    return rig


def _at(rig: Rig, ev: object) -> float:
    return ev.at - rig.t0  # type: ignore[attr-defined, no-any-return]


async def test_a_complete_question_ends_the_turn_at_the_verdict_long_before_the_silence_would() -> None:
    det = ScriptedDetector(ends_like_a_question)
    rig = await _rig(det, speech=[(0.5, 2.0)], transcripts=["what time is it"], replies=[Reply([(0.05, "It is noon.")])])
    await rig.run_until(6.0)
    (final,) = rig.of(UserFinal)
    assert final.text == "what time is it"
    assert _at(rig, final) < 2.0 + 0.6  # the VAD alone would wait 2.5 s of silence
    assert det.calls and det.calls[0][0] == "what time is it" and det.calls[0][2]  # with the conversation as context
    (metrics,) = rig.of(TurnMetrics)
    assert metrics.ended_early and metrics.turn_check_ms is not None
    (done,) = rig.of(AssistantDone)
    assert done.text == "It is noon." and not done.interrupted
    await rig.stop()


async def test_an_unfinished_sentence_waits_through_its_pause_and_the_whole_turn_is_answered_once() -> None:
    det = ScriptedDetector(ends_like_a_question)
    full = "so I was thinking that maybe we could talk about planets"
    rig = await _rig(
        det,
        speech=[(0.5, 1.5), (2.5, 3.5)],  # a 1 s pause mid-sentence
        transcripts=[["so I was thinking that maybe", full]],
        replies=[Reply([(0.05, "Held answer. ")]), Reply([(0.05, "Planets are great.")])],
    )
    await rig.run_until(8.0)
    assert [e.text for e in rig.of(UserFinal)] == [full]
    assert all(_at(rig, e) > 3.5 for e in rig.of(AssistantDelta))  # nothing shown before the user finished
    assert [(d.text, d.interrupted) for d in rig.of(AssistantDone)] == [("Planets are great.", False)]
    assert [(m.role, m.text()) for m in rig.gen.calls[-1].messages][-1] == (Role.USER, full)
    # the pause was checked and judged unfinished; the end was checked and judged complete
    assert [c[0] for c in det.calls] == ["so I was thinking that maybe", full]
    await rig.stop()


async def test_a_held_answer_starts_only_after_the_pause_was_judged_unfinished() -> None:
    det = ScriptedDetector(lambda text: False)
    rig = await _rig(
        det,
        speech=[(0.5, 1.5)],
        transcripts=["I would like to"],
        replies=[Reply([(0.05, "Sure.")])],
        config=LoopConfig(generator="fake/model", system_prompt="Be brief.", max_end_of_turn_ms=1200),
    )
    await rig.run_until(6.0)
    assert len(det.calls) == 1
    assert rig.gen.calls, "the turn still ends on silence and is answered"
    assert rig.of(TurnMetrics)[0].preemptive  # started during the silence, after the verdict
    (final,) = rig.of(UserFinal)
    assert _at(rig, final) >= 1.5 + 0.9 * 1.2  # ended by the silence (the detector would end it ~0.2 s after speech)
    await rig.stop()


async def test_a_detector_that_fails_leaves_the_turn_to_the_silence_and_the_question_is_answered() -> None:
    det = ScriptedDetector(lambda text: True, fail=True)
    rig = await _rig(
        det,
        speech=[(0.5, 1.5)],
        transcripts=["what is the weather"],
        replies=[Reply([(0.05, "Sunny.")])],
        config=LoopConfig(generator="fake/model", system_prompt="Be brief.", max_end_of_turn_ms=1000),
    )
    await rig.run_until(6.0)
    (final,) = rig.of(UserFinal)
    assert _at(rig, final) >= 1.5 + 0.9 * 1.0
    assert [d.text for d in rig.of(AssistantDone)] == ["Sunny."]
    assert not rig.of(TurnMetrics)[0].ended_early
    await rig.stop()


async def test_speech_after_an_early_end_but_before_the_answer_was_heard_reopens_the_same_turn() -> None:
    det = ScriptedDetector(lambda text: text.endswith(("for", "people")))  # wrongly "complete" after "for"
    rig = await _rig(
        det,
        speech=[(0.5, 1.5), (2.1, 2.9)],
        transcripts=["book a table for", "four people"],
        replies=[Reply([(1.5, "Late. ")]), Reply([(0.05, "Booked for four.")])],
    )
    await rig.run_until(8.0)
    assert [e.turn_id for e in rig.of(TurnReopened)] == ["t1"]
    assert [e.text for e in rig.of(UserFinal)] == ["book a table for", "book a table for four people"]
    assert det.calls[-1][0] == "book a table for four people"  # the check sees the whole turn
    assert [(d.turn_id, d.text, d.interrupted) for d in rig.of(AssistantDone)] == [("t1", "Booked for four.", False)]
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("book a table for four people", "Booked for four.")]
    await rig.stop()
