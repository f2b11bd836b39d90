"""False-interruption recovery: a barge-in that no words follow resumes the answer from the sentence it was in."""

from __future__ import annotations

import pytest

from genx.agentkit.events import AssistantDone, BargeIn, LoopError, UserFinal
from genx.agentkit.history import History
from genx.agentkit.loop import LoopConfig
from genx.agentkit.records import TurnRecord
from genx.agentkit.resume import join_resumed, resume_split
from genx.agentkit.testing import Reply, Rig

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("full", "kept", "prefix", "rest"),
    [
        ("One. Two three. Four.", "One. Two", "One.", "Two three. Four."),
        ("One. Two three. Four.", "One.", "One.", "Two three. Four."),  # a sentence heard to its end is not repeated
        ("One. Two three. Four.", "On", "", "One. Two three. Four."),
        ("One. Two three. Four.", "", "", "One. Two three. Four."),
        ("Is it? Yes! It is.", "Is it? Yes! It", "Is it? Yes!", "It is."),
        ('He said "go." Then he left.', 'He said "go." Th', 'He said "go."', "Then he left."),
        ("One. Two.", "One. Two.", "One. Two.", ""),  # heard to the end: nothing to resume
        ("3.5 km away. Then home.", "3.5 km aw", "", "3.5 km away. Then home."),  # a decimal point ends no sentence
    ],
)
def test_the_resumed_part_starts_at_the_sentence_the_cut_was_in(full: str, kept: str, prefix: str, rest: str) -> None:
    assert resume_split(full, kept) == (prefix, rest)


def test_the_history_keeps_one_answer_for_the_cut_and_its_resumed_part() -> None:
    h = History()
    h.add("tell me a story", "Once. There was", interrupted=True)
    h.add("", join_resumed("Once.", "There was a fox."), resumes=True)
    assert [(t.user_text, t.assistant_text, t.interrupted) for t in h.turns()] == [("tell me a story", "Once. There was a fox.", False)]
    loaded = History()
    recs = [
        TurnRecord(turn_id="t1", user_text="tell me a story", assistant_text="Once. There was", interrupted=True),
        TurnRecord(turn_id="t3", user_text="", assistant_text="Once. There was a fox.", resumed=True),
    ]
    loaded.add_records(TurnRecord.from_json(r.to_json()) for r in recs)
    assert [(t.user_text, t.assistant_text) for t in loaded.turns()] == [("tell me a story", "Once. There was a fox.")]


# 12 short sentences written in half a second (each ~1 s of the tone voice): generated long before it is heard,
# as the offline model does
STORY = Reply([(0.1 + 0.04 * i, f"Sentence {i} is here. ") for i in range(12)])
STORY_TEXT = "".join(t for _, t in STORY.tokens).strip()


async def _run(speech: list[tuple[float, float]], transcripts: list[str], until: float, **cfg: object) -> Rig:
    config = LoopConfig(generator="fake/model", system_prompt="Be brief.", **cfg)  # type: ignore[arg-type]
    rig = Rig(speech=speech, transcripts=transcripts, replies=[STORY], config=config)
    await rig.start()
    await rig.run_until(until)
    return rig


async def test_a_noise_that_stops_parley_without_words_lets_the_answer_resume_from_its_sentence() -> None:
    rig = await _run([(0.5, 1.5), (4.0, 4.3)], ["tell me a story", ""], 30.0, backchannel_ducking=False)
    assert len(rig.of(BargeIn)) == 1  # the door slam stopped it at once
    cut, resumed = rig.of(AssistantDone)
    assert cut.interrupted and cut.spoken_text
    prefix, rest = resume_split(STORY_TEXT, cut.spoken_text)
    assert f"{prefix} {rest}".strip() == STORY_TEXT and cut.spoken_text.startswith(prefix)
    assert rest.startswith("Sentence ") and rest[: rest.index(".") + 1] not in cut.spoken_text  # the sentence cut midway
    assert (resumed.text, resumed.spoken_text, resumed.interrupted) == (rest, rest, False)
    assert [e.text for e in rig.of(UserFinal)] == ["tell me a story"]
    assert not [e for e in rig.of(LoopError) if "no words" in e.message]  # resuming is not "heard nothing"
    # one turn, the whole story as heard (the repeated sentence once)
    assert [(t.user_text, t.assistant_text, t.interrupted) for t in rig.loop.history.turns()] == [("tell me a story", STORY_TEXT, False)]
    await rig.stop()


async def test_long_wordless_sound_over_a_ducked_answer_cuts_it_and_then_it_resumes() -> None:
    rig = await _run([(0.5, 1.5), (4.0, 5.2)], ["tell me a story", ""], 30.0, backchannel_ducking=True)
    assert len(rig.of(BargeIn)) == 1  # 800 ms of sound is an interruption
    cut, resumed = rig.of(AssistantDone)
    assert cut.interrupted and not resumed.interrupted
    assert [(t.user_text, t.assistant_text) for t in rig.loop.history.turns()] == [("tell me a story", STORY_TEXT)]
    await rig.stop()


async def test_words_after_the_barge_in_take_the_turn_and_nothing_resumes() -> None:
    rig = Rig(
        speech=[(0.5, 1.5), (4.0, 4.6)],
        transcripts=["tell me a story", "what about dogs"],
        replies=[STORY, Reply([(0.1, "Dogs bark.")])],
        config=LoopConfig(generator="fake/model", system_prompt="Be brief.", backchannel_ducking=False),
    )
    await rig.start()
    await rig.run_until(20.0)
    done = rig.of(AssistantDone)
    assert [d.text for d in done][1:] == ["Dogs bark."]
    assert [t.user_text for t in rig.loop.history.turns()] == ["tell me a story", "what about dogs"]
    await rig.stop()


async def test_a_wordless_stop_that_ends_after_the_resume_window_does_not_resume() -> None:
    rig = await _run([(0.5, 1.5), (4.0, 4.3)], ["tell me a story", ""], 30.0, backchannel_ducking=False, resume_false_stop_s=0.2)
    assert [d.interrupted for d in rig.of(AssistantDone)] == [True]
    assert [t.interrupted for t in rig.loop.history.turns()] == [True]
    await rig.stop()


async def test_an_answer_cut_before_the_model_finished_resumes_what_it_had_written() -> None:
    slow = Reply([(0.1 + 0.4 * i, f"Sentence {i} is here. ") for i in range(12)])  # one sentence per 0.4 s
    config = LoopConfig(generator="fake/model", system_prompt="Be brief.", backchannel_ducking=False)
    rig = Rig(speech=[(0.5, 1.5), (4.0, 4.3)], transcripts=["tell me a story", ""], replies=[slow], config=config)
    await rig.start()
    await rig.run_until(30.0)
    cut, resumed = rig.of(AssistantDone)
    assert cut.text != "".join(t for _, t in slow.tokens).strip()  # the cut stopped the generation
    assert resumed.text == resume_split(cut.text, cut.spoken_text)[1] and resumed.text.endswith("is here.")
    assert [t.assistant_text for t in rig.loop.history.turns()] == [cut.text]  # heard to the end of what was written
    await rig.stop()


async def test_resuming_can_be_switched_off() -> None:
    rig = await _run([(0.5, 1.5), (4.0, 4.3)], ["tell me a story", ""], 30.0, backchannel_ducking=False, resume_false_stop_s=0.0)
    assert [d.interrupted for d in rig.of(AssistantDone)] == [True]
    await rig.stop()
