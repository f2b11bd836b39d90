"""Labelers: the behaviour rules (genx-behaviours "labelers"), the mux, the generator-backed and keyword labelers."""

from __future__ import annotations

import pytest
from invoke_fakes import InvokeScript

from genx.errors import NotFoundError
from genx.labelers import InvalidLabelError, Label, select_labels
from genx.labelers.generator import GeneratorLabeler
from genx.labelers.keywords import KeywordLabeler
from genx.labelers.mux import LabelerMux
from genx.structured import GeneratorRef, StructuredOutputError


def labeler(*answers: object) -> tuple[GeneratorLabeler, InvokeScript]:
    gen = InvokeScript(*answers)
    return GeneratorLabeler(GeneratorRef(gen, "offline/smollm2", timeout_s=0.5)), gen


async def test_empty_input_gives_an_empty_result_without_asking_the_model() -> None:
    lab, gen = labeler()
    assert await lab.label("memory/recall", "   ", ["home", "job"], 3) == []
    assert await lab.label("memory/recall", "where do I live", [], 3) == []
    assert await lab.label("memory/recall", "where do I live", ["home"], 0) == []
    assert gen.calls == []


async def test_duplicates_are_removed_and_at_most_top_k_are_kept() -> None:
    lab, _ = labeler(
        {"labels": [{"label": "a", "score": 0.5}, {"label": "a", "score": 0.5}, {"label": "b", "score": 0.5}, {"label": "c", "score": 0.5}]}
    )
    assert await lab.label("memory/recall", "q", ["a", "b", "c"], 2) == [Label("a", 0.5), Label("b", 0.5)]


def test_candidates_a_a_b_c_with_top_k_2_select_a_and_b() -> None:
    assert [x.name for x in select_labels([("a", 1.0), ("a", 1.0), ("b", 1.0), ("c", 1.0)], ["a", "a", "b", "c"], 2)] == ["a", "b"]


async def test_a_label_that_is_not_a_candidate_is_an_error() -> None:
    lab, _ = labeler({"labels": [{"label": "zebra", "score": 0.9}]})
    with pytest.raises(InvalidLabelError, match="not a candidate"):
        await lab.label("memory/recall", "q", ["a", "b"], 2)


@pytest.mark.parametrize("score", [1.5, -0.1, float("nan")])
def test_a_score_outside_zero_to_one_is_an_invalid_score(score: float) -> None:
    with pytest.raises(InvalidLabelError, match="invalid score"):
        select_labels([("a", score)], ["a"], 1)


async def test_results_are_ordered_by_score_best_first() -> None:
    lab, gen = labeler({"labels": [{"label": "a", "score": 0.2}, {"label": "b", "score": 0.9}]})
    assert await lab.label("memory/recall", "q", ["a", "b"], 2) == [Label("b", 0.9), Label("a", 0.2)]
    schema = gen.calls[0].tool.schema["properties"]["labels"]
    assert schema["items"]["properties"]["label"]["enum"] == ["a", "b"] and schema["maxItems"] == 2


async def test_invalid_json_and_a_timeout_are_structured_output_errors() -> None:
    lab, _ = labeler("{not json", 5.0)
    with pytest.raises(StructuredOutputError, match="not valid JSON"):
        await lab.label("memory/recall", "q", ["a"], 1)
    with pytest.raises(StructuredOutputError, match=r"within 0\.5 s"):
        await lab.label("memory/recall", "q", ["a"], 1)


async def test_the_mux_routes_by_topic_pattern_and_misses_are_not_found() -> None:
    mux = LabelerMux()
    mux.register("memory/#", KeywordLabeler({"home": r"\blive\b"}))
    assert await mux.label("memory/recall", "where do I live", ["home", "job"], 2) == [Label("home", 0.5)]
    with pytest.raises(NotFoundError):
        await mux.label("other/recall", "where do I live", ["home"], 2)


async def test_the_keyword_labeler_ranks_two_matching_words_above_one() -> None:
    lab = KeywordLabeler({"home": r"\b(live|city)\b", "job": r"\bwork\b"})
    out = await lab.label("x", "which city do I live and work in", ["job", "home", "home"], 5)
    assert [x.name for x in out] == ["home", "job"] and out[0].score > out[1].score
