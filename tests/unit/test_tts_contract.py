"""TTSTransformer (with a scripted synthesizer) meets the Transformer contract."""

from __future__ import annotations

from genx.chunk import MessageChunk, Role, Text
from genx.transformers.tts import TTSTransformer
from tests.contract.fakes import FakeSynth
from tests.contract.transformer_contract import (
    ContractCase,
    check_cancel_ends_open_routes,
    check_close_with_error_raises_it_and_closes_input,
    check_closing_output_closes_input,
    check_concurrent_calls_are_isolated,
    check_input_error_ends_output,
    check_normal_end_closes_every_route,
    check_transformer_contract,
)


def case() -> ContractCase:
    return ContractCase(
        make_transformer=lambda: TTSTransformer(FakeSynth()),
        opening=lambda i: [MessageChunk.text(f"Hello number {i}, my friend. And", role=Role.ASSISTANT, stream_id=f"in{i}")],
        closing=lambda i: [MessageChunk.eos(f"in{i}", Text(" goodbye."))],
        timeout=10.0,
    )


async def test_concurrent_tts_calls_are_isolated() -> None:
    await check_concurrent_calls_are_isolated(case())


async def test_closing_tts_output_closes_its_input() -> None:
    await check_closing_output_closes_input(case())


async def test_close_with_error_raises_it_and_closes_input() -> None:
    await check_close_with_error_raises_it_and_closes_input(case())


async def test_cancel_ends_open_audio_routes_with_context_canceled() -> None:
    assert await check_cancel_ends_open_routes(case())


async def test_normal_end_closes_every_audio_route_once() -> None:
    await check_normal_end_closes_every_route(case())


async def test_input_error_ends_tts_output() -> None:
    await check_input_error_ends_output(case())


async def test_whole_contract_in_one_go() -> None:
    await check_transformer_contract(case())
