"""Conversation store, history and metrics of the voice loop (pure parts)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from genx.agentkit.history import History
from genx.agentkit.metrics import LatencyStats, TurnTimeline, format_metrics, percentile
from genx.agentkit.store import ConversationStore, ConversationStoreError, TurnRecord, new_conversation_id
from genx.chunk import Role


def _rec(i: int, user: str = "", assistant: str = "", interrupted: bool = False) -> TurnRecord:
    return TurnRecord(f"t{i}", user or f"question {i}", assistant or f"answer {i}", interrupted=interrupted, timings={"v2v_ms": 500.0 + i})


def test_store_appends_one_json_line_per_turn_and_loads_them_in_order(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "conv")
    cid = new_conversation_id()
    for i in range(3):
        store.append(cid, _rec(i, interrupted=i == 1))
    lines = (tmp_path / "conv" / f"{cid}.jsonl").read_text().splitlines()
    assert len(lines) == 3
    recs = store.load(cid)
    assert [r.turn_id for r in recs] == ["t0", "t1", "t2"]
    assert recs[1].interrupted and not recs[0].interrupted
    assert recs[2].timings == {"v2v_ms": 502.0}


def test_store_skips_corrupt_lines_with_a_warning_naming_file_and_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    with open(tmp_path / "c1.jsonl", "a") as f:
        f.write("{not json\n")
        f.write('{"turn_id": 3}\n')
        f.write("[1, 2]\n")
    store.append("c1", _rec(2))
    with caplog.at_level(logging.WARNING, logger="genx.agentkit.store"):
        recs, problems = store.load_with_errors("c1")
    assert [r.turn_id for r in recs] == ["t1", "t2"]
    assert len(problems) == 3
    assert "c1.jsonl:2" in problems[0]
    assert any("corrupt" in r.message for r in caplog.records)


def test_a_torn_last_line_from_a_crash_does_not_swallow_the_next_turn(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    with open(tmp_path / "c1.jsonl", "a") as f:
        f.write('{"turn_id":"t2","user_te')  # crash mid-write
    fresh = ConversationStore(tmp_path)  # a new process
    fresh.append("c1", _rec(3))
    assert [r.turn_id for r in fresh.load("c1")] == ["t1", "t3"]


def test_list_conversations_gives_title_from_first_user_text_newest_first(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path, title_chars=20)
    store.append("a", _rec(1, user="What is the weather like in Paris today?"))
    store.append("b", _rec(1, user="  hi   there "))
    os.utime(tmp_path / "a.jsonl", (1000, 1000))
    os.utime(tmp_path / "b.jsonl", (2000, 2000))
    infos = store.list_conversations()
    assert [c.conversation_id for c in infos] == ["b", "a"]
    assert infos[0].title == "hi there"
    assert infos[1].title.endswith("…") and len(infos[1].title) <= 20


def test_store_rejects_ids_that_could_escape_the_directory(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    with pytest.raises(ConversationStoreError, match="invalid conversation id"):
        store.append("../evil", _rec(1))


def test_store_write_failure_is_a_typed_error_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = ConversationStore(blocker / "sub")  # a file where a directory should be
    with pytest.raises(ConversationStoreError, match="cannot write conversation file"):
        store.append("c", _rec(1))


def test_missing_conversation_loads_as_empty(tmp_path: Path) -> None:
    assert ConversationStore(tmp_path).load("nope") == []


def test_history_context_uses_spoken_text_and_marks_interrupted_answers() -> None:
    h = History()
    h.add("Tell me a story", "Once upon a time", interrupted=True)
    ctx = h.context("What happened next?", system_prompt="Be brief.")
    msgs = list(ctx.messages())
    assert [m.role for m in msgs] == [Role.USER, Role.ASSISTANT, Role.USER]
    assert msgs[1].text() == "Once upon a time"
    assert msgs[1].meta.get("interrupted") is True
    assert [p.text for p in ctx.prompts()] == ["Be brief."]


def test_history_merges_user_words_whose_answer_was_never_heard_into_the_next_question() -> None:
    h = History()
    h.add("What is the weather", "", interrupted=True)
    msgs = h.messages("in Paris")
    assert len(msgs) == 1
    assert msgs[0].text() == "What is the weather in Paris"


def test_history_drops_oldest_turns_beyond_the_character_budget_but_keeps_the_current_question() -> None:
    h = History(max_chars=60)
    for i in range(10):
        h.add(f"question number {i}", f"answer number {i}")
    msgs = h.messages("the current question")
    assert msgs[-1].text() == "the current question"
    assert msgs[0].role == Role.USER
    assert sum(len(m.text()) for m in msgs) <= 60
    assert "question number 9" in [m.text() for m in msgs]


def test_history_from_records_rebuilds_the_same_context() -> None:
    h = History()
    h.add_records([_rec(1, "hi", "hello", False), _rec(2, "story", "Once", True)])
    assert [m.text() for m in h.messages()] == ["hi", "hello", "story", "Once"]


def test_turn_timeline_derives_stage_latencies_and_voice_to_voice() -> None:
    tl = TurnTimeline("t1", output_latency=0.05)
    tl.mark("speech_end", 2.0)
    tl.mark("asr_final", 2.2)
    tl.mark("generation_start", 2.21)
    tl.mark("first_token", 2.4)
    tl.mark("first_token", 2.9)  # later marks of the same stage are ignored
    tl.mark("first_audio", 2.5)
    tl.mark("first_played", 2.52)
    ev = tl.to_event()
    assert ev.asr_ms == pytest.approx(200.0)
    assert ev.llm_first_token_ms == pytest.approx(190.0)
    assert ev.tts_first_audio_ms == pytest.approx(100.0)
    assert ev.playout_ms == pytest.approx(20.0)
    assert ev.v2v_ms == pytest.approx(570.0)
    assert ev.bargein_ms is None
    assert "v2v 570 ms" in format_metrics(ev)


def test_turn_timeline_rejects_unknown_stages() -> None:
    with pytest.raises(ValueError, match="unknown turn stage"):
        TurnTimeline("t").mark("lunch", 1.0)


def test_percentiles_interpolate_and_stats_ignore_missing_values() -> None:
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert percentile([10], 95) == 10
    s = LatencyStats("v2v")
    s.extend([100, None, 300, float("nan"), 200])
    assert len(s) == 3
    assert s.p50 == 200
    assert s.p95 == pytest.approx(290)
