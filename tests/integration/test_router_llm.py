"""The real offline router: SmolLM2-135M under the grammar built from the tool schemas, on the 109 tuning utterances.

Floors are generous (the bench, ``bench/tools.py``, measures the held-out set):
every model answer is a clean rule line or ``none`` (the grammar guarantees it;
at most 5 % are cut at ``max_tokens`` inside a free string slot, which routes nowhere),
and pre-match plus model gets at least 90 % of the intents right. Each route has
its own time limit, so a hanging decode fails the test instead of blocking it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2]))

from bench.tool_slots import load
from genx.assistant import ModelRouter, prematch, router_generator
from genx.generators.llamacpp import LlamaCppGenerator
from genx.local.models import ModelNotFoundError
from genx.toolbox import Reminders, offline_tools

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(1500)]

ROUTE_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def router(tmp_path_factory: pytest.TempPathFactory) -> ModelRouter:
    pytest.importorskip("llama_cpp", reason="pip install llama-cpp-python")
    try:
        llm = LlamaCppGenerator()
    except ModelNotFoundError as e:
        pytest.skip(str(e))
    return ModelRouter(router_generator(llm), offline_tools(Reminders(tmp_path_factory.mktemp("reminders"))))


async def test_the_router_answers_every_utterance_with_a_valid_line_and_most_intents_right(router: ModelRouter) -> None:
    cases = load("tools_tuning.jsonl")
    assert len(cases) >= 100
    right_both = right_model = 0
    misses: list[str] = []
    cut: list[str] = []
    for c in cases:
        route = await asyncio.wait_for(router.route(c.text), ROUTE_TIMEOUT_S)
        if not route.line:  # a string slot ran past max_tokens: the line was cut, so no tool (counted below)
            cut.append(c.text)
        else:
            [parsed] = router.matcher.parse(route.line)
            assert parsed.is_none or (parsed.rule and parsed.problems() == []), (c.text, route.line)
        model_tool = route.intent.tool if route.intent else "none"
        right_model += model_tool == c.intent
        pre = prematch(c.text)
        both = pre.tool if pre is not None else model_tool
        right_both += both == c.intent
        if both != c.intent:
            misses.append(f"{c.text!r}: {both} (model said {route.line!r}), want {c.intent}")
    print(f"\nmodel alone {right_model}/{len(cases)}, pre-match + model {right_both}/{len(cases)}", *misses, sep="\n  ")
    assert right_both / len(cases) >= 0.90, misses
    assert len(cut) <= len(cases) // 20, cut
    assert right_model / len(cases) >= 0.30  # far above chance (10 classes), far below what the pre-match adds
