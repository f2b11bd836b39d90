"""HTTP generators' connection pools are closed when their mux, session or loop is closed or rebuilt.

Open clients are counted with an httpx transport spy (tests/http_spy.py): every ``httpx.AsyncClient`` the
adapters create gets a spy transport, which ``AsyncClient.aclose()`` closes.
"""

from __future__ import annotations

import pytest
from http_spy import HttpSpy

from app.headless import Session
from app.settings import Settings
from app.ui.loop_port import close_loop
from app.ui.voice_factory import VoiceLoopFactory
from genx.agentkit.store import ConversationStore
from genx.generators.mux import GeneratorMux
from genx.generators.providers import OllamaGenerator, OpenAIChatGenerator
from genx.modelloader import SecretStore, load_into, parse_model
from genx.modelloader.specs import ModelConfig

TWO_PROVIDERS = {
    "providers": {
        "local": {"kind": "llamacpp-server", "base_url": "http://127.0.0.1:9/v1"},
        "olla": {"kind": "ollama"},
    },
    "generators": [{"name": "local/#", "provider": "local"}, {"name": "olla/#", "provider": "olla"}],
}


def http_settings() -> Settings:
    """The offline stack with the loop's generator on a local llama.cpp server (no request is made)."""
    return Settings.model_validate(
        {
            "providers": {"local": {"kind": "llamacpp-server", "base_url": "http://127.0.0.1:9/v1"}},
            "generators": [{"name": "local/m", "provider": "local", "model": "m"}],
            "loop": {"generator": "local/m"},
        }
    )


async def test_closing_a_mux_closes_every_http_generator_client(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = HttpSpy.install(monkeypatch)
    mux = GeneratorMux()
    load_into(parse_model(ModelConfig, TWO_PROVIDERS), mux, None, secrets=SecretStore(environ={}))
    assert spy.created == 2 and spy.open == 2
    await mux.aclose()
    assert spy.open == 0


async def test_a_generator_that_fails_to_close_does_not_keep_the_others_open(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = HttpSpy.install(monkeypatch)

    class Broken(OllamaGenerator):
        async def aclose(self) -> None:
            raise OSError("boom")

    mux = GeneratorMux()
    mux.register("a/#", Broken(model="m"))
    shared = OpenAIChatGenerator(api_key="k", model="m")
    mux.register("b/#", shared)
    mux.register("c/#", shared)  # one instance under two patterns
    assert spy.open == 2
    await mux.aclose()
    assert spy.open == 1  # only the broken one's


async def test_closing_the_headless_session_closes_the_generator_clients(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    spy = HttpSpy.install(monkeypatch)
    session = Session(http_settings(), store=ConversationStore(tmp_path))  # type: ignore[arg-type]
    session.build()
    assert spy.open == 1
    await session.close()
    assert spy.open == 0


async def test_a_rebuild_of_the_text_only_loop_closes_the_old_client(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    spy = HttpSpy.install(monkeypatch)
    factory = VoiceLoopFactory(store=ConversationStore(tmp_path))  # type: ignore[arg-type]
    first = await factory.build(http_settings(), progress=lambda *_: None, voice=False)
    assert spy.open == 1
    # What AppController does on a rebuild: close the old loop, then build the new one.
    await close_loop(first, 5.0)
    second = await factory.build(http_settings(), progress=lambda *_: None, voice=False)
    assert spy.created == 2 and spy.open == 1
    await close_loop(second, 5.0)
    assert spy.open == 0
