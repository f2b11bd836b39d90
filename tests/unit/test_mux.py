"""Topic-pattern mux rules (genx-behaviours "Mux patterns") and the generator / transformer muxes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genx.chunk import FuncCall, MessageChunk
from genx.errors import AlreadyRegisteredError, NotFoundError, PatternError
from genx.generators import Generator
from genx.generators.mux import GeneratorMux
from genx.model import ModelContext, ModelContextBuilder, Usage
from genx.mux import TopicMux
from genx.stream import Stream, StreamBuilder, collect, stream_of
from genx.tools import FuncTool
from genx.transformers import Transformer
from genx.transformers.mux import TransformerMux


def mux_of(*patterns: str) -> TopicMux[str]:
    m: TopicMux[str] = TopicMux()
    for p in patterns:
        m.register(p, p)
    return m


# -- matching rules ----------------------------------------------------------------


def test_exact_pattern_serves_only_its_own_name() -> None:
    m = mux_of("openai/gpt-4o")
    assert m.get("openai/gpt-4o") == "openai/gpt-4o"
    with pytest.raises(NotFoundError):
        m.get("openai/gpt-4o/x")
    with pytest.raises(NotFoundError):
        m.get("openai")


def test_plus_matches_exactly_one_segment() -> None:
    m = mux_of("a/+")
    assert m.get("a/b") == "a/+"
    assert m.find("a") is None
    assert m.find("a/b/c") is None


def test_plus_in_the_middle_matches_any_single_segment() -> None:
    m = mux_of("a/+/c")
    assert m.get("a/x/c") == "a/+/c"
    assert m.find("a/x/y/c") is None


def test_hash_matches_one_or_more_trailing_segments_but_not_the_parent() -> None:
    m = mux_of("a/#")
    assert m.get("a/b") == "a/#"
    assert m.get("a/b/c/d") == "a/#"
    assert m.find("a") is None
    assert m.find("b/c") is None


def test_bare_hash_matches_every_non_empty_name() -> None:
    m = mux_of("#")
    assert m.get("x") == "#"
    assert m.get("x/y/z") == "#"


def test_exact_beats_plus_beats_hash_at_the_same_depth() -> None:
    m = mux_of("a/b", "a/+", "a/#")
    assert m.get("a/b") == "a/b"
    assert m.get("a/c") == "a/+"
    assert m.get("a/c/d") == "a/#"


def test_priority_is_decided_depth_first_so_an_earlier_exact_segment_wins() -> None:
    m = mux_of("a/+/c", "a/b/#")
    # depth 2: exact "b" is preferred over "+", and a/b/# matches, so it wins over a/+/c
    assert m.get("a/b/c") == "a/b/#"
    assert m.get("a/x/c") == "a/+/c"


def test_lookup_backtracks_from_a_dead_exact_branch_to_hash() -> None:
    m = mux_of("a/+/c", "a/b/#")
    assert m.get("a/b/d") == "a/b/#"


def test_lookup_backtracks_from_a_dead_exact_branch_to_plus() -> None:
    m = mux_of("a/b/c", "a/+/d")
    assert m.get("a/b/c") == "a/b/c"
    assert m.get("a/b/d") == "a/+/d"


def test_lookup_backtracks_several_levels_up_to_a_shallow_hash() -> None:
    m = mux_of("a/b/c/d", "a/b/+/e", "a/#")
    assert m.get("a/b/c/x") == "a/#"
    assert m.get("a/b/z/e") == "a/b/+/e"
    assert m.get("a/b/c/d") == "a/b/c/d"


def test_names_with_empty_segments_never_match() -> None:
    m = mux_of("a/+/b", "#")
    for name in ("", "a//b", "/a", "a/"):
        assert m.find(name) is None, name


def test_a_literal_plus_in_a_name_does_not_act_as_a_wildcard() -> None:
    m = mux_of("a/b")
    assert m.find("a/+") is None


def test_miss_names_the_requested_pattern_and_the_registered_ones() -> None:
    m = mux_of("openai/#", "offline/smollm2")
    with pytest.raises(NotFoundError, match="not found for anthropic/claude") as ei:
        m.get("anthropic/claude")
    assert "offline/smollm2" in str(ei.value)
    assert ei.value.name == "anthropic/claude"


def test_miss_on_an_empty_mux_says_nothing_is_registered() -> None:
    with pytest.raises(NotFoundError, match="nothing is registered"):
        TopicMux[int]().get("x")


# -- registration ------------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["a/b", "a/+", "a/#", "#", "+"])
def test_registering_the_same_pattern_twice_is_an_error(pattern: str) -> None:
    m = mux_of(pattern)
    with pytest.raises(AlreadyRegisteredError, match="already registered"):
        m.register(pattern, "again")
    assert m.get(pattern.replace("+", "x").replace("#", "y")) == pattern


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("", "empty"),
        ("a//b", "segment 2 is empty"),
        ("/a", "segment 1 is empty"),
        ("a/", "segment 2 is empty"),
        ("a/#/b", "'#' may only be the last"),
        ("#/a", "'#' may only be the last"),
        ("a+", "whole segments"),
        ("a/#b", "whole segments"),
        ("a/b#", "whole segments"),
        ("++", "whole segments"),
    ],
)
def test_invalid_patterns_are_rejected_with_the_broken_rule(pattern: str, why: str) -> None:
    with pytest.raises(PatternError, match=why) as ei:
        TopicMux[int]().register(pattern, 1)
    assert ei.value.pattern == pattern


def test_unregister_removes_only_that_pattern() -> None:
    m = mux_of("a/b/c", "a/b/#", "a/+")
    assert m.unregister("a/b/c") == "a/b/c"
    assert m.get("a/b/c") == "a/b/#"
    assert m.unregister("a/b/#") == "a/b/#"
    assert m.find("a/b/c") is None
    assert m.get("a/x") == "a/+"
    assert m.patterns() == ["a/+"]
    assert len(m) == 1


def test_unregistered_pattern_can_be_registered_again() -> None:
    m = mux_of("a/#")
    m.unregister("a/#")
    m.register("a/#", "new")
    assert m.get("a/z") == "new"


def test_unregister_of_an_unknown_pattern_is_not_found() -> None:
    m = mux_of("a/b")
    with pytest.raises(NotFoundError):
        m.unregister("a/+")
    with pytest.raises(NotFoundError):
        m.unregister("a")
    assert m.patterns() == ["a/b"]


def test_patterns_lists_every_registration_sorted() -> None:
    m = mux_of("z/#", "a/b", "a/+", "#")
    assert m.patterns() == ["#", "a/+", "a/b", "z/#"]
    assert len(m) == 4
    assert [p for p, _ in m.items()] == m.patterns()


def test_has_pattern_checks_registration_not_matching() -> None:
    m = mux_of("a/#")
    assert m.has_pattern("a/#")
    assert not m.has_pattern("a/b")
    assert "a/b" in m


# -- property: the depth-first result is the lexicographically best match ----------

SEGMENTS = st.sampled_from(["a", "b", "c"])
PATTERN_SEGMENTS = st.sampled_from(["a", "b", "c", "+"])


@st.composite
def patterns(draw: st.DrawFn) -> str:
    segs = draw(st.lists(PATTERN_SEGMENTS, min_size=1, max_size=4))
    if draw(st.booleans()):
        segs = [*segs[: draw(st.integers(0, len(segs) - 1))], "#"]
    return "/".join(segs)


def _reference_matches(pattern: str, name: str) -> bool:
    p, n = pattern.split("/"), name.split("/")
    for i, seg in enumerate(p):
        if seg == "#":
            return len(n) > i
        if i >= len(n) or (seg != "+" and seg != n[i]):
            return False
    return len(n) == len(p)


def _rank(pattern: str) -> tuple[int, ...]:
    return tuple({"+": 1, "#": 2}.get(s, 0) for s in pattern.split("/"))


@settings(max_examples=300, deadline=None)
@given(st.sets(patterns(), min_size=1, max_size=8), st.lists(SEGMENTS, min_size=1, max_size=5).map("/".join))
def test_match_equals_the_best_ranked_matching_pattern(pats: set[str], name: str) -> None:
    m = mux_of(*pats)
    candidates = [p for p in pats if _reference_matches(p, name)]
    expected = min(candidates, key=_rank) if candidates else None
    assert m.find(name) == expected


# -- GeneratorMux / TransformerMux --------------------------------------------------


class RecordingGenerator:
    def __init__(self, label: str) -> None:
        self.label = label
        self.names: list[str] = []

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        self.names.append(pattern)
        return stream_of(MessageChunk.text(f"{self.label}:{pattern}"))

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        self.names.append(pattern)
        return Usage(prompt_tokens=1), FuncCall(tool.name, "{}", "call-1")


def test_generator_mux_is_a_generator() -> None:
    assert isinstance(GeneratorMux(), Generator)


async def test_generator_mux_passes_the_full_requested_name_to_the_selected_generator() -> None:
    openai, local = RecordingGenerator("openai"), RecordingGenerator("local")
    mux = GeneratorMux()
    mux.register("openai/#", openai)
    mux.register("offline/smollm2", local)
    ctx = ModelContextBuilder().user("hi").build()
    chunks = await collect(await mux.generate_stream("openai/gpt-4o-mini", ctx))
    assert [c.part.text for c in chunks if c.part is not None and hasattr(c.part, "text")] == ["openai:openai/gpt-4o-mini"]
    assert openai.names == ["openai/gpt-4o-mini"]
    assert local.names == []


async def test_generator_mux_invoke_routes_by_name_too() -> None:
    gen = RecordingGenerator("g")
    mux = GeneratorMux()
    mux.register("+/tiny", gen)

    def noop() -> None:
        """Do nothing."""

    usage, call = await mux.invoke("x/tiny", ModelContextBuilder().build(), FuncTool.from_function(noop))
    assert gen.names == ["x/tiny"]
    assert call.name == "noop"
    assert usage.prompt_tokens == 1


async def test_generator_mux_miss_raises_not_found_naming_the_model() -> None:
    mux = GeneratorMux()
    mux.register("offline/smollm2", RecordingGenerator("x"))
    with pytest.raises(NotFoundError, match="not found for openai/gpt-4o"):
        await mux.generate_stream("openai/gpt-4o", ModelContextBuilder().build())


def test_generator_mux_rejects_duplicates_and_lists_patterns() -> None:
    mux = GeneratorMux()
    mux.register("a/#", RecordingGenerator("1"))
    with pytest.raises(AlreadyRegisteredError):
        mux.register("a/#", RecordingGenerator("2"))
    assert mux.patterns() == ["a/#"]
    assert "a/b" in mux
    assert mux.match("a/b")[0] == "a/#"
    mux.unregister("a/#")
    assert len(mux) == 0


class Upper:
    def __init__(self) -> None:
        self.calls = 0

    async def transform(self, stream: Stream) -> Stream:
        self.calls += 1
        b = StreamBuilder()
        async for c in stream:
            assert c.part is not None and hasattr(c.part, "text")
            b.push(MessageChunk.text(c.part.text.upper()))
        b.done()
        return b.stream


def test_a_transformer_fake_satisfies_the_protocol() -> None:
    assert isinstance(Upper(), Transformer)


async def test_transformer_mux_selects_by_pattern_and_transforms() -> None:
    up = Upper()
    mux = TransformerMux()
    mux.register("tts/+", up)
    out = await collect(await mux.transform("tts/joe", stream_of(MessageChunk.text("hi"))))
    assert [c.part.text for c in out if c.part is not None and hasattr(c.part, "text")] == ["HI"]
    assert up.calls == 1
    assert mux.resolve("tts/amy") is up


async def test_transformer_mux_miss_leaves_the_input_stream_to_the_caller() -> None:
    mux = TransformerMux()
    mux.register("tts/joe", Upper())
    src = stream_of(MessageChunk.text("still here"))
    with pytest.raises(NotFoundError, match="not found for asr/whisper"):
        await mux.transform("asr/whisper", src)
    chunks = await collect(src)
    assert len(chunks) == 1
