"""The match grammar constraining the real SmolLM2-135M: every answer is one valid rule line or ``none``.

Sampling runs hot (temperature 1.0) on purpose: without the grammar a 135M model
wanders; with it, whatever it picks must still be a line the parser types cleanly.
"""

from __future__ import annotations

import time

import pytest

from genx.local.models import DEFAULT_LLM, ModelNotFoundError
from genx.match import Example, Matcher, Rule, Slot, SlotType

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

RULES = [
    Rule(
        "timer",
        "Set a countdown timer.",
        (Slot("minutes", SlotType.INT, "length in minutes", required=True), Slot("label", description="what it is for")),
        (Example("set a timer for ten minutes", {"minutes": 10}),),
    ),
    Rule(
        "convert",
        "Convert a quantity between units.",
        (Slot("value", SlotType.FLOAT, required=True), Slot("from_unit", choices=("km", "mi")), Slot("to_unit", choices=("km", "mi"))),
        (Example("20 km in miles", {"value": 20.0, "from_unit": "km", "to_unit": "mi"}),),
    ),
    Rule(
        "time",
        "Tell the current time.",
        (Slot("place", description="a city or time zone"),),
        (Example("time in Tokyo?", {"place": "Tokyo"}),),
    ),
    Rule("stop", "Stop talking.", (), (Example("stop", {}),)),
]

UTTERANCES = [
    "What time is it in Paris?",
    "Set a timer for five minutes please",
    "How many miles is 42 kilometers?",
    "Shut up",
    "Tell me a story about a dragon",
    "timer for the eggs, 7 minutes",
    "what's the time",
    "Convert 3.5 miles to km",
]


@pytest.fixture(scope="module")
def llama() -> object:
    llama_cpp = pytest.importorskip("llama_cpp", reason="pip install llama-cpp-python")
    try:
        path = DEFAULT_LLM.path()
    except ModelNotFoundError as e:
        pytest.skip(str(e))
    return llama_cpp.Llama(str(path), n_ctx=2048, n_threads=2, verbose=False, seed=1)


def test_every_constrained_answer_is_one_clean_rule_line_or_none(llama: object) -> None:
    from llama_cpp import Llama, LlamaGrammar

    assert isinstance(llama, Llama)
    m = Matcher(RULES, none_examples=["tell me a joke"])
    grammar = LlamaGrammar.from_string(m.grammar, verbose=False)
    answers: list[tuple[str, str, float]] = []
    for i, text in enumerate(UTTERANCES * 2):
        t0 = time.perf_counter()
        out = llama.create_chat_completion(
            messages=[{"role": "system", "content": m.prompt}, {"role": "user", "content": text}],
            grammar=grammar,
            temperature=1.0,
            max_tokens=160,  # room for a whole line: the grammar bounds its length, a cut at max_tokens is no rule line
            seed=i,
        )
        answer = out["choices"][0]["message"]["content"] or ""  # type: ignore[index]
        answers.append((text, answer, (time.perf_counter() - t0) * 1000))
        results = m.parse(answer)
        assert len(results) == 1, (text, answer)
        [r] = results
        assert r.is_none or (r.rule and r.problems() == []), (text, answer, r.problems())
    print("\n".join(f"{ms:6.0f} ms  {t!r} -> {a!r}" for t, a, ms in answers))
