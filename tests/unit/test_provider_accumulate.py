"""Folding provider chunks into the history message: parts, signed thinking blocks, calls, round-trip meta."""

from __future__ import annotations

from genx.chunk import FuncCall, MessageChunk, Role, Text, Thinking
from genx.generators.providers.accumulate import MessageAccumulator, accumulate
from genx.generators.providers.convert import call_chunk, text_chunk, thinking_chunk
from genx.model import Usage


def test_consecutive_text_and_thinking_deltas_merge_into_one_part_each() -> None:
    msg = accumulate([thinking_chunk("a"), thinking_chunk("b"), text_chunk("x"), text_chunk("y")])
    assert msg.role == Role.ASSISTANT and msg.parts == [Thinking("ab"), Text("xy")]


def test_a_signature_closes_its_thinking_block_so_the_next_block_is_separate() -> None:
    msg = accumulate([thinking_chunk("one"), thinking_chunk("", "S1"), thinking_chunk("two"), thinking_chunk("", "S2")])
    assert msg.parts == [Thinking("one", "S1"), Thinking("two", "S2")]


def test_redacted_blocks_stay_separate_even_when_adjacent() -> None:
    msg = accumulate([thinking_chunk("", "R1", {"redacted": True}), thinking_chunk("", "R2", {"redacted": True})])
    assert msg.parts == [Thinking("", "R1"), Thinking("", "R2")]


def test_calls_signatures_and_final_meta_are_kept_and_other_choices_ignored() -> None:
    acc = MessageAccumulator()
    acc.add(text_chunk("ignored", {"choice": 1}))
    acc.add(call_chunk(FuncCall("f", "{}", "c1"), {"thought_signature": "SIG"}))
    acc.add(MessageChunk(role=Role.ASSISTANT, meta={"usage": Usage(1, 0, 0, 2), "finish_reason": "STOP", "family": "gemini"}))
    msg = acc.message()
    assert msg.text() == "" and msg.tool_calls == [FuncCall("f", "{}", "c1")]
    assert msg.meta == {"thought_signatures": {"c1": "SIG"}, "provider_family": "gemini"}
    assert acc.usage == Usage(1, 0, 0, 2) and acc.finish_reason == "STOP"
