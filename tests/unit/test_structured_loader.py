"""Config → registered segmentors, profilers and labelers ([[segmentors]] …) over any configured generator."""

from __future__ import annotations

import pytest
from invoke_fakes import InvokeScript

from genx.generators.mux import GeneratorMux
from genx.labelers.generator import GeneratorLabeler
from genx.labelers.keywords import KeywordLabeler
from genx.labelers.mux import LabelerMux
from genx.modelloader import ConfigError, ModelConfig, parse_model
from genx.modelloader.registry import default_registry
from genx.modelloader.structured import load_structured
from genx.profilers.mux import ProfilerMux
from genx.segmentors.generator import GeneratorSegmentor
from genx.segmentors.mux import SegmentorMux


def config(**tables: object) -> ModelConfig:
    return parse_model(ModelConfig, tables)


def gens() -> GeneratorMux:
    mux = GeneratorMux()
    mux.register("offline/smollm2", InvokeScript())  # type: ignore[arg-type]
    mux.register("cloud/#", InvokeScript())  # type: ignore[arg-type]
    return mux


async def test_each_section_registers_its_capability_pointing_at_a_generator_by_name() -> None:
    cfg = config(
        segmentors={"name": "memory/segments", "generator": "offline/smollm2"},
        profilers=[{"name": "memory/profile", "generator": "cloud/gpt", "options": {"timeout_s": 5}, "params": {"temperature": 0.1}}],
        labelers=[
            {"name": "memory/recall", "kind": "keywords", "options": {"patterns": {"home": "live"}}},
            {"name": "memory/llm", "generator": "offline/smollm2"},
        ],
    )
    seg, prof, lab = SegmentorMux(), ProfilerMux(), LabelerMux()
    result = load_structured(cfg, gens(), segmentors=seg, profilers=prof, labelers=lab)
    assert result.segmentors == ["memory/segments"] and result.labelers == ["memory/recall", "memory/llm"]
    assert isinstance(seg.resolve("memory/segments"), GeneratorSegmentor)
    assert isinstance(lab.resolve("memory/recall"), KeywordLabeler) and isinstance(lab.resolve("memory/llm"), GeneratorLabeler)
    ref = prof.resolve("memory/profile").ref  # type: ignore[attr-defined]
    assert ref.model == "cloud/gpt" and ref.timeout_s == 5.0 and ref.params.temperature == 0.1


def test_a_generator_name_nothing_serves_is_a_config_error_at_its_key_and_nothing_is_registered() -> None:
    cfg = config(labelers=[{"name": "a/b", "kind": "keywords"}, {"name": "memory/llm", "generator": "nowhere/x"}])
    lab = LabelerMux()
    with pytest.raises(ConfigError, match=r"labelers\[1\]\.generator: 'nowhere/x' matches no configured generator"):
        load_structured(cfg, gens(), labelers=lab)
    assert len(lab) == 0


def test_an_unknown_kind_or_option_names_its_key() -> None:
    with pytest.raises(ConfigError, match=r"segmentors\[0\]\.kind: unknown segmentor kind 'magic'"):
        load_structured(config(segmentors=[{"name": "s", "kind": "magic"}]), gens(), segmentors=SegmentorMux())
    with pytest.raises(ConfigError, match=r"profilers\[0\]\.options\.speed: unknown option 'speed'"):
        load_structured(
            config(profilers=[{"name": "p", "generator": "offline/smollm2", "options": {"speed": 1}}]), gens(), profilers=ProfilerMux()
        )
    with pytest.raises(ConfigError, match=r"labelers\[0\]\.options\.patterns"):
        load_structured(
            config(labelers=[{"name": "l", "kind": "keywords", "options": {"patterns": {"a": "("}}}]), gens(), labelers=LabelerMux()
        )


def test_duplicate_names_in_a_section_are_rejected_when_the_file_is_parsed() -> None:
    with pytest.raises(ConfigError, match=r"labelers\[1\]\.name: 'x' is already used"):
        config(labelers=[{"name": "x", "kind": "keywords"}, {"name": "x", "kind": "keywords"}])


def test_the_same_kind_name_serves_each_role_and_a_role_mismatch_is_explained() -> None:
    reg = default_registry()
    for role in ("segmentor", "profiler", "labeler"):
        assert "generator" in reg.kinds(role)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="kind 'keywords' makes a labeler, not a segmentor"):
        reg.entry("keywords", "segmentor")
