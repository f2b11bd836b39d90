"""Segmentors and profilers: validation rules, muxes and the generator-backed implementations on scripted answers."""

from __future__ import annotations

import pytest
from invoke_fakes import InvokeScript

from genx.chunk import Message, Role, Text
from genx.profilers import FactChange, Profile, ProfileFact, check_changes
from genx.profilers.generator import GeneratorProfiler
from genx.profilers.mux import ProfilerMux
from genx.segmentors import Entity, Relation, Segment, parse_segments
from genx.segmentors.generator import GeneratorSegmentor
from genx.segmentors.mux import SegmentorMux
from genx.structured import GeneratorRef, StructuredOutputError

USER_SAYS = [Message(Role.USER, [Text("My sister Anna moved to Paris.")])]


async def test_a_segmentor_returns_segments_with_entities_and_relations() -> None:
    gen = InvokeScript(
        {
            "segments": [
                {
                    "summary": "The user's sister Anna moved to Paris.",
                    "entities": [{"name": "user", "type": "user"}, {"name": "Anna", "type": "person"}, {"name": "Paris", "type": "place"}],
                    "relations": [{"subject": "Anna", "predicate": "lives in", "object": "Paris"}],
                }
            ]
        }
    )
    mux = SegmentorMux()
    mux.register("memory/+", GeneratorSegmentor(GeneratorRef(gen, "offline/smollm2")))
    [seg] = await mux.segment("memory/segments", USER_SAYS)
    assert seg.entity("anna") == Entity("Anna", "person")
    assert seg.relations == (Relation("Anna", "lives in", "Paris"),)
    assert gen.calls[0].pattern == "offline/smollm2" and "User: My sister Anna moved to Paris." in gen.calls[0].user


async def test_a_conversation_without_text_is_not_sent_to_the_model() -> None:
    gen = InvokeScript()
    assert await GeneratorSegmentor(GeneratorRef(gen, "m")).segment("s", [Message(Role.USER, [Text("  ")])]) == []
    assert gen.calls == []


def test_relations_naming_an_unknown_entity_are_dropped_and_counted() -> None:
    [seg] = parse_segments(
        {
            "segments": [
                {
                    "summary": "s",
                    "entities": [{"name": "Anna", "type": "Person"}, {"name": "anna", "type": "place"}],
                    "relations": [{"subject": "Anna", "predicate": "knows", "object": "Bob"}],
                }
            ]
        }
    )
    assert seg.entities == (Entity("Anna", "person"),) and seg.relations == () and seg.dropped == 1


def test_a_malformed_segment_answer_is_a_structured_output_error() -> None:
    with pytest.raises(StructuredOutputError):
        parse_segments({"segments": [{"summary": "s", "entities": [{"name": "", "type": "person"}]}]})
    with pytest.raises(StructuredOutputError):
        parse_segments({"segments": "nope"})


PROFILE = Profile("user", "user", (ProfileFact("lives_in", "Lisbon"),))
SEGMENTS = [Segment("The user moved to Berlin.")]


async def test_a_profiler_changes_adds_and_retires_facts_noting_the_source_segment() -> None:
    gen = InvokeScript(
        {
            "changes": [
                {"op": "change", "attribute": "lives_in", "value": "Berlin", "confidence": 0.8, "source": 0},
                {"op": "change", "attribute": "Job", "value": "nurse", "confidence": 0.6},
            ]
        }
    )
    mux = ProfilerMux()
    mux.register("memory/profile", GeneratorProfiler(GeneratorRef(gen, "m"), ["lives_in", "job"]))
    changes = await mux.profile("memory/profile", PROFILE, SEGMENTS)
    assert changes == [FactChange("change", "lives_in", "Berlin", 0.8, 0), FactChange("add", "job", "nurse", 0.6, 0)]
    assert gen.calls[0].tool.schema["properties"]["changes"]["items"]["properties"]["attribute"]["enum"] == ["lives_in", "job"]
    assert "- lives_in: Lisbon" in gen.calls[0].user


def test_retiring_a_fact_the_profile_lacks_or_a_bad_confidence_is_an_error() -> None:
    with pytest.raises(StructuredOutputError, match="cannot retire"):
        check_changes(PROFILE, [FactChange("retire", "job")], 1)
    with pytest.raises(StructuredOutputError, match="invalid confidence"):
        check_changes(PROFILE, [FactChange("add", "job", "nurse", 1.5)], 1)
    with pytest.raises(StructuredOutputError, match="needs a value"):
        check_changes(PROFILE, [FactChange("add", "job", " ")], 1)
    with pytest.raises(StructuredOutputError, match="source segment 3"):
        check_changes(PROFILE, [FactChange("add", "job", "nurse", 1.0, 3)], 1)


async def test_no_segments_means_no_changes_and_no_model_call() -> None:
    gen = InvokeScript()
    assert await GeneratorProfiler(GeneratorRef(gen, "m")).profile("p", PROFILE, []) == []
    assert gen.calls == []
