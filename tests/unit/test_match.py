"""genx.match: rules, prompt, the streaming ``rule: k=v`` parser, the GBNF grammar, the matcher."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gbnf_probe import admits, compiles
from llama_cpp import LlamaGrammar
from toolround_fakes import ScriptedGenerator, Turn

from genx.chunk import MessageChunk, Role, Text
from genx.errors import MatchRuleError
from genx.match import Example, Matcher, Rule, Slot, SlotType, gbnf, project
from genx.model import ModelContextBuilder
from genx.stream import Stream, StreamBase, StreamBuilder

MEASURE = Rule(
    "measure",
    "Count things.",
    (Slot("count", SlotType.INT, "how many"), Slot("ok", SlotType.BOOL, "whether it is fine")),
)
TIMER = Rule(
    "timer",
    "Set a countdown timer.",
    (Slot("minutes", SlotType.INT, "length in minutes", required=True), Slot("label", description="what it is for")),
    (Example("set a timer for ten minutes", {"minutes": 10}), Example("tea timer, 3 minutes", {"minutes": 3, "label": "tea"})),
)
CONVERT = Rule(
    "convert",
    "Convert a quantity between units.",
    (
        Slot("value", SlotType.FLOAT, required=True),
        Slot("from_unit", choices=("km", "mi")),
        Slot("to_unit", choices=("km", "mi"), required=True),
        Slot("exact", SlotType.BOOL),
    ),
    (Example("20 km in miles", {"value": 20.0, "from_unit": "km", "to_unit": "mi"}),),
)
TIME = Rule(
    "time", "Tell the current time.", (Slot("place", description="a city or time zone"),), (Example("time in Tokyo?", {"place": "Tokyo"}),)
)
STOP = Rule("stop", "Stop talking.", (), (Example("stop", {}),))
ROUTER = [TIMER, CONVERT, TIME, STOP]


# -- the parser -------------------------------------------------------------------


def test_the_originals_framing_case_gives_three_results_in_the_projected_shape() -> None:
    m = Matcher([MEASURE])
    p = m.parser()
    results = []
    for piece in ["measure: count=12, ", "ok=not-bool\r\nunknown", " output\n\nmeasure"]:
        results += p.feed(piece)
    results += p.close()
    count = {"type": "int", "description": "how many"}
    ok = {"type": "bool", "description": "whether it is fine"}
    assert project(results) == [
        {
            "rule": "measure",
            "args": {"count": {"value": 12, "slot": count, "has_value": True}, "ok": {"value": "not-bool", "slot": ok, "has_value": True}},
            "raw_text": "",
        },
        {"rule": "", "args": {}, "raw_text": "unknown output"},
        {
            "rule": "measure",
            "args": {"count": {"value": None, "slot": count, "has_value": False}, "ok": {"value": None, "slot": ok, "has_value": False}},
            "raw_text": "",
        },
    ]
    assert type(results[0].args["count"].value) is int


def test_values_are_typed_by_their_slot_and_unknown_keys_are_ignored() -> None:
    rule = Rule("rule", "All types.", (Slot("i", SlotType.INT), Slot("f", SlotType.FLOAT), Slot("b", SlotType.BOOL), Slot("s")))
    [r] = Matcher([rule]).parse("rule: i=1, f=2.5, b=true, s=hello, unknown=1")
    assert r.values() == {"i": 1, "f": 2.5, "b": True, "s": "hello"}
    assert [type(v) for v in r.values().values()] == [int, float, bool, str]
    assert "unknown" not in r.args


@pytest.mark.parametrize(
    ("slot_type", "raw", "value"),
    [
        (SlotType.INT, "+12", 12),
        (SlotType.INT, "-3", -3),
        (SlotType.INT, "12.0", "12.0"),
        (SlotType.INT, "ten", "ten"),
        (SlotType.INT, "1_000", "1_000"),
        (SlotType.FLOAT, "1e3", 1000.0),
        (SlotType.FLOAT, ".5", 0.5),
        (SlotType.FLOAT, "7", 7.0),
        (SlotType.FLOAT, "nan", "nan"),
        (SlotType.BOOL, "TRUE", True),
        (SlotType.BOOL, "t", True),
        (SlotType.BOOL, "1", True),
        (SlotType.BOOL, "False", False),
        (SlotType.BOOL, "0", False),
        (SlotType.BOOL, "yes", "yes"),
        (SlotType.STRING, "New York", "New York"),
    ],
)
def test_a_value_that_does_not_parse_keeps_its_raw_string(slot_type: SlotType, raw: str, value: Any) -> None:
    [r] = Matcher([Rule("r", "One slot.", (Slot("x", slot_type),))]).parse(f"r: x={raw}")
    assert r.args["x"].value == value and type(r.args["x"].value) is type(value)
    assert r.args["x"].ok is (type(value) is not str or slot_type is SlotType.STRING)


def test_a_line_naming_no_rule_is_raw_text_and_blank_lines_are_skipped() -> None:
    results = Matcher([MEASURE]).parse("\n\n  unknown: x=1  \r\n\r\n   \nmeasures: count=1\n")
    assert [(r.rule, r.raw_text) for r in results] == [("", "unknown: x=1"), ("", "measures: count=1")]


def test_the_answer_none_is_recognised() -> None:
    [r] = Matcher(ROUTER).parse("None\n")
    assert r.is_none and not r.rule


def test_chunk_boundaries_anywhere_give_the_same_results() -> None:
    text = "timer: minutes=10, label=tea\r\nsomething else\rconvert: value=2.5, to_unit=mi\r\n\nstop"
    m = Matcher(ROUTER)
    whole = project(m.parse(text))
    assert [r["rule"] for r in whole] == ["timer", "", "convert", "stop"]
    rng = random.Random(7)
    splits = [[i] for i in range(1, len(text))] + [sorted(rng.sample(range(1, len(text)), k)) for k in (3, 9, 30) for _ in range(20)]
    for cuts in splits:
        p = m.parser()
        got = []
        for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
            got += p.feed(text[a:b])
        got += p.close()
        assert project(got) == whole, cuts


def test_problems_name_missing_required_slots_and_values_of_the_wrong_type() -> None:
    [r] = Matcher(ROUTER).parse("convert: value=lots, from_unit=yards")
    assert sorted(r.problems()) == ["from_unit: 'yards' is not one of ['km', 'mi']", "to_unit: missing", "value: 'lots' is not a float"]
    [good] = Matcher(ROUTER).parse("convert: value=20, to_unit=mi")
    assert good.problems() == []


# -- rules and prompt ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda: Matcher([]), "at least one rule"),
        (lambda: Matcher([TIMER, TIMER]), "duplicate rule name"),
        (lambda: Rule(" timer", "x"), "invalid name"),
        (lambda: Rule("a:b", "x"), "invalid name"),
        (lambda: Rule("None", "x"), "'none' is the answer"),
        (lambda: Rule("r", ""), "description"),
        (lambda: Slot("bad-name"), "slot name"),
        (lambda: Slot("x", "number"), "expected one of string, int, float, bool"),  # type: ignore[arg-type]
        (lambda: Slot("x", description=" padded "), "trimmed"),
        (lambda: Slot("x", SlotType.INT, choices=("1",)), "only for string slots"),
        (lambda: Slot("x", choices=("a,b",)), "choice 'a,b'"),
        (lambda: Rule("r", "x", (Slot("a"), Slot("a"))), "declared twice"),
        (lambda: Rule("r", "x", (Slot("n", SlotType.INT),), (Example("hi", {"m": 1}),)), "'m', which is not a slot"),
        (lambda: Rule("r", "x", (Slot("n", SlotType.INT),), (Example("hi", {"n": "one"}),)), "n: 'one' is not an int"),
        (lambda: Rule("r", "x", (Slot("n", SlotType.INT),), (Example("hi", {"n": True}),)), "n: True is not an int"),
        (lambda: Rule("r", "x", (Slot("n", SlotType.INT, required=True),), (Example("hi"),)), "required slot 'n'"),
        (lambda: Example("two\nlines"), "one non-empty line"),
        (lambda: Matcher([TIMER], none_examples=[""]), "none example"),
        (lambda: Matcher([TIMER], template="$rules $nothing"), "template is invalid"),
    ],
)
def test_rules_that_the_line_format_cannot_carry_are_refused_with_the_reason(make: Any, needle: str) -> None:
    with pytest.raises(MatchRuleError, match=None) as info:
        make()
    assert needle in str(info.value)


def test_the_prompt_lists_rules_slots_and_examples_as_answer_lines() -> None:
    prompt = Matcher(ROUTER, none_examples=["tell me a joke"]).prompt
    assert "timer: Set a countdown timer.\n  minutes (int, required): length in minutes\n  label (string): what it is for\n" in prompt
    assert "  from_unit (one of: km, mi)\n" in prompt
    assert "User: tea timer, 3 minutes\nAnswer: timer: minutes=3, label=tea\n" in prompt
    assert "User: 20 km in miles\nAnswer: convert: value=20, from_unit=km, to_unit=mi\n" in prompt
    assert "User: stop\nAnswer: stop\n" in prompt
    assert prompt.endswith("User: tell me a joke\nAnswer: none")
    assert "answer: none" in prompt


def test_a_custom_template_gets_the_rules_and_examples() -> None:
    m = Matcher([STOP], template="R=$rules|E=$examples|$$5")
    assert m.prompt == "R=stop: Stop talking.|E=User: stop\nAnswer: stop|$5"


# -- the grammar ----------------------------------------------------------------------


def test_the_grammar_compiles_in_llama_cpp() -> None:
    text = gbnf(ROUTER)
    assert LlamaGrammar.from_string(text, verbose=False) is not None  # stores the text only (llama-cpp-python 0.3.x) ...
    assert compiles(text)  # ... so also parse it the way generation does
    assert not compiles(text.replace("r0-slots ::=", "r0-slots ::= (", 1))  # the check itself can fail


@pytest.mark.parametrize(
    "line",
    [
        "none",
        "timer: minutes=10",
        "timer: minutes=3, label=tea",
        "timer: minutes=-1, label=for the pasta",
        "convert: value=20, from_unit=km, to_unit=mi",
        "convert: value=2.5, to_unit=mi, exact=true",
        "time",
        "time: place=New York",
        "time: place=東京",
        "stop",
    ],
)
def test_the_grammar_admits_every_valid_line(line: str) -> None:
    assert admits(gbnf(ROUTER), line)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "None",
        "nothing fits",
        "timer",  # minutes is required
        "timer: label=tea",
        "timer: minutes=ten",
        "timer: minutes=10,label=tea",  # the separator is ", "
        "timer: label=tea, minutes=3",  # declared order
        "timer: minutes=10\n",  # one line, no line end
        "timer: minutes=10\nstop",
        "convert: value=20, from_unit=yards, to_unit=mi",
        "convert: value=20, from_unit=km",  # to_unit is required
        "convert: value=1e3, to_unit=mi",
        "convert: value=2, to_unit=mi, exact=yes",
        "time: ",
        "time: place= Tokyo",
        "time: place=Tokyo, Japan",
        "stop: now=true",
        "stop please",
    ],
)
def test_the_grammar_refuses_anything_else(line: str) -> None:
    assert not admits(gbnf(ROUTER), line)


def test_every_example_line_of_the_prompt_is_admitted_by_the_grammar() -> None:
    grammar = gbnf(ROUTER)
    lines = [ln.removeprefix("Answer: ") for ln in Matcher(ROUTER).prompt.splitlines() if ln.startswith("Answer: ")]
    assert len(lines) == 5
    assert all(admits(grammar, ln) for ln in lines), lines


def test_literals_with_quotes_and_backslashes_are_escaped() -> None:
    rule = Rule("say", "Say a word.", (Slot("word", choices=('"hi"', "back\\slash", "naïve")),))
    grammar = gbnf([rule])
    assert compiles(grammar)
    assert admits(grammar, 'say: word="hi"') and admits(grammar, "say: word=back\\slash") and admits(grammar, "say: word=naïve")
    assert not admits(grammar, "say: word=hi")


# -- the matcher over a generator ---------------------------------------------------


async def test_match_adds_its_prompt_parses_the_answer_and_closes_the_stream() -> None:
    gen = ScriptedGenerator([Turn("timer: minutes=10\nraw text")])
    m = Matcher([TIMER])
    ctx = ModelContextBuilder().prompt("You are Parley.").user("set a timer for ten minutes").build()
    results = [r async for r in m.match(gen, "router", ctx)]
    assert [(r.rule, r.values(), r.raw_text) for r in results] == [("timer", {"minutes": 10}, ""), ("", {}, "raw text")]
    assert gen.closed[0].is_set()
    assert [p.text for p in m.context(ctx).prompts()] == ["You are Parley.", m.prompt]


async def test_a_stream_error_is_raised_after_the_results_before_it() -> None:
    b = StreamBuilder()
    b.push(MessageChunk(role=Role.ASSISTANT, part=Text("stop\ntimer: minu")))
    b.abort(RuntimeError("stream broken"))
    got = []
    with pytest.raises(RuntimeError, match="stream broken"):
        async for r in Matcher(ROUTER).parse_stream(b.stream):
            got.append(r.rule)
    assert got == ["stop"]  # the torn line is not a result


class CountingStream(StreamBase):
    """Counts reads and closes of the stream it wraps."""

    def __init__(self, inner: Stream) -> None:
        self.inner = inner
        self.reads = 0
        self.closes = 0

    async def next(self) -> MessageChunk:
        self.reads += 1
        return await self.inner.next()

    async def close(self) -> None:
        self.closes += 1
        await self.inner.close()

    async def close_with_error(self, exc: BaseException) -> None:
        await self.inner.close_with_error(exc)


async def test_stopping_early_reads_no_further_and_closes_the_stream_once() -> None:
    b = StreamBuilder()
    for _ in range(3):
        b.push(MessageChunk(role=Role.ASSISTANT, part=Text("stop\n")))
    b.done()
    stream = CountingStream(b.stream)
    results = Matcher(ROUTER).parse_stream(stream)
    async for _ in results:
        break
    await results.aclose()
    assert stream.reads == 1 and stream.closes == 1


def test_a_free_string_is_bounded_by_its_slots_max_length() -> None:
    grammar = gbnf(ROUTER)
    assert admits(grammar, "time: place=" + "x" * 48)
    assert not admits(grammar, "time: place=" + "x" * 49)
    short = gbnf([Rule("code", "A code.", (Slot("c", max_length=3),))])
    assert admits(short, "code: c=a b") and not admits(short, "code: c=abcd")
    [r] = Matcher([Rule("code", "A code.", (Slot("c", max_length=3),))]).parse("code: c=abcd")
    assert r.problems() == ["c: 'abcd' is longer than 3 characters"]
    with pytest.raises(MatchRuleError, match="max_length"):
        Slot("c", max_length=0)
