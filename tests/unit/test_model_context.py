"""ModelContextBuilder and MultiModelContext: order of sources and params merging."""

from __future__ import annotations

from genx.chunk import Message, Role
from genx.model import ModelContext, ModelContextBuilder, ModelParams, MultiModelContext, Prompt, Usage
from genx.tools import FuncTool, SearchWebTool


def texts(ctx: ModelContext) -> list[str]:
    return [m.text() for m in ctx.messages()]


def echo(text: str) -> str:
    """Echo the text."""
    return text


def test_builder_keeps_prompts_messages_cots_and_tools_in_insertion_order() -> None:
    tool = FuncTool.from_function(echo)
    ctx = (
        ModelContextBuilder()
        .prompt("persona", name="persona")
        .user("hi")
        .assistant("hello")
        .prompt("rules")
        .message(Message.user("again"))
        .cot("think first")
        .tool(tool, SearchWebTool())
        .build()
    )
    assert [p.text for p in ctx.prompts()] == ["persona", "rules"]
    assert next(ctx.prompts()) == Prompt("persona", "persona")
    assert texts(ctx) == ["hi", "hello", "again"]
    assert [m.role for m in ctx.messages()] == [Role.USER, Role.ASSISTANT, Role.USER]
    assert list(ctx.cots()) == ["think first"]
    assert [t.name for t in ctx.tools()] == ["echo", "web_search"]
    assert ctx.params() is None


def test_build_snapshots_so_later_builder_changes_do_not_leak_into_a_built_context() -> None:
    b = ModelContextBuilder().user("one")
    first = b.build()
    b.user("two").prompt("late")
    assert texts(first) == ["one"]
    assert list(first.prompts()) == []
    assert texts(b.build()) == ["one", "two"]


def test_context_iterators_can_be_consumed_repeatedly() -> None:
    ctx = ModelContextBuilder().user("a").user("b").build()
    assert texts(ctx) == texts(ctx) == ["a", "b"]


def test_builder_params_keyword_updates_accumulate_on_the_current_params() -> None:
    ctx = ModelContextBuilder().params(temperature=0.2).params(max_tokens=50).build()
    p = ctx.params()
    assert p is not None
    assert (p.temperature, p.max_tokens) == (0.2, 50)


def test_builder_params_object_replaces_then_keywords_override_it() -> None:
    ctx = ModelContextBuilder().params(temperature=0.9).params(ModelParams(top_p=0.5), max_tokens=10).build()
    p = ctx.params()
    assert p is not None
    assert (p.temperature, p.top_p, p.max_tokens) == (None, 0.5, 10)


def test_built_contexts_satisfy_the_protocol() -> None:
    assert isinstance(ModelContextBuilder().build(), ModelContext)
    assert isinstance(MultiModelContext(), ModelContext)


def test_multi_context_chains_sources_in_the_given_order() -> None:
    persona = ModelContextBuilder().prompt("You are Parley.").tool(FuncTool.from_function(echo)).build()
    history = ModelContextBuilder().user("hi").assistant("hello").cot("h-cot").build()
    turn = ModelContextBuilder().prompt("Be brief.").user("what time is it?").cot("t-cot").tool(SearchWebTool()).build()
    ctx = MultiModelContext(persona, history, turn)
    assert [p.text for p in ctx.prompts()] == ["You are Parley.", "Be brief."]
    assert texts(ctx) == ["hi", "hello", "what time is it?"]
    assert list(ctx.cots()) == ["h-cot", "t-cot"]
    assert [t.name for t in ctx.tools()] == ["echo", "web_search"]


def test_multi_context_is_a_live_view_not_a_copy() -> None:
    class Live:
        def __init__(self) -> None:
            self.history: list[Message] = []

        def prompts(self):  # type: ignore[no-untyped-def]
            return iter([])

        def messages(self):  # type: ignore[no-untyped-def]
            return iter(list(self.history))

        def cots(self):  # type: ignore[no-untyped-def]
            return iter([])

        def tools(self):  # type: ignore[no-untyped-def]
            return iter([])

        def params(self) -> ModelParams | None:
            return None

    live = Live()
    ctx = MultiModelContext(live, ModelContextBuilder().user("now").build())
    live.history.append(Message.user("earlier"))
    assert texts(ctx) == ["earlier", "now"]


def test_multi_context_merges_params_with_later_sources_winning_field_by_field() -> None:
    base = ModelContextBuilder().params(ModelParams(temperature=0.7, max_tokens=100, extra={"a": 1, "b": 1})).build()
    no_params = ModelContextBuilder().user("x").build()
    turn = ModelContextBuilder().params(ModelParams(max_tokens=20, extra={"b": 2})).build()
    p = MultiModelContext(base, no_params, turn).params()
    assert p is not None
    assert (p.temperature, p.max_tokens) == (0.7, 20)
    assert p.extra == {"a": 1, "b": 2}


def test_merging_params_does_not_mutate_the_sources() -> None:
    first = ModelParams(temperature=0.7, extra={"a": 1})
    second = ModelParams(temperature=0.1, extra={"b": 2})
    MultiModelContext(ModelContextBuilder().params(first).build(), ModelContextBuilder().params(second).build()).params()
    assert first == ModelParams(temperature=0.7, extra={"a": 1})
    assert second == ModelParams(temperature=0.1, extra={"b": 2})


def test_multi_context_params_are_none_when_no_source_sets_any() -> None:
    assert MultiModelContext(ModelContextBuilder().build(), ModelContextBuilder().build()).params() is None


def test_multi_contexts_nest() -> None:
    inner = MultiModelContext(ModelContextBuilder().user("a").build(), ModelContextBuilder().user("b").build())
    outer = MultiModelContext(inner, ModelContextBuilder().user("c").build())
    assert texts(outer) == ["a", "b", "c"]


def test_params_merged_with_none_is_an_independent_copy() -> None:
    p = ModelParams(temperature=0.3, extra={"k": 1})
    q = p.merged(None)
    q.extra["k"] = 2
    assert p.extra == {"k": 1}


def test_usage_adds_field_by_field_and_totals_prompt_plus_generated() -> None:
    u = Usage(prompt_tokens=10, cached_prompt_tokens=4, generated_tokens=5).add(
        Usage(prompt_tokens=1, thinking_tokens=2, generated_tokens=1)
    )
    assert (u.prompt_tokens, u.cached_prompt_tokens, u.generated_tokens, u.thinking_tokens) == (11, 4, 6, 2)
    assert u.total_tokens == 17
