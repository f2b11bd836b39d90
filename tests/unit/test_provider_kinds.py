"""The provider kinds table drives every kind: constructors, the loader's factory and the key rules.

Expected endpoints, auth headers and key variables are written here, not read from the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from genx.generators.mux import GeneratorMux
from genx.generators.provider_kinds import PROVIDER_KINDS, ProviderKind
from genx.generators.providers import (
    AnthropicGenerator,
    GeminiGenerator,
    OllamaGenerator,
    OpenAIChatGenerator,
    OpenAIResponsesGenerator,
    ProviderConfigError,
    ProviderStream,
    openai_compatible,
)
from genx.generators.providers.factory import build
from genx.generators.providers.generator import HttpGenerator
from genx.model import ModelContextBuilder
from genx.modelloader import ConfigError, SecretStore, load_into, parse_model
from genx.modelloader.specs import ModelConfig

AUTH_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "DASHSCOPE_API_KEY",
    "DEEPSEEK_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
)
Make = Callable[[httpx.AsyncClient], HttpGenerator]


@dataclass(frozen=True)
class Expect:
    provider: dict[str, Any]  # the [providers.p] table that selects the row
    url: str  # where a streamed request for model "m" goes
    auth: str | None = None  # the header carrying the key (None: the kind sends no key)
    env: str | None = None  # the variable the key falls back to on the default host
    bearer: bool = True
    make: Make | None = None  # the Python constructor for the row


EXPECTED: dict[str, Expect] = {
    "openai-chat": Expect(
        {"kind": "openai-chat"},
        "https://api.openai.com/v1/chat/completions",
        "authorization",
        "OPENAI_API_KEY",
        make=lambda c: OpenAIChatGenerator(model="m", client=c),
    ),
    "openai-responses": Expect(
        {"kind": "openai-responses"},
        "https://api.openai.com/v1/responses",
        "authorization",
        "OPENAI_API_KEY",
        make=lambda c: OpenAIResponsesGenerator(model="m", client=c),
    ),
    "anthropic": Expect(
        {"kind": "anthropic"},
        "https://api.anthropic.com/v1/messages",
        "x-api-key",
        "ANTHROPIC_API_KEY",
        bearer=False,
        make=lambda c: AnthropicGenerator(model="m", client=c),
    ),
    "gemini": Expect(
        {"kind": "gemini"},
        "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse",
        "x-goog-api-key",
        "GEMINI_API_KEY",
        bearer=False,
        make=lambda c: GeminiGenerator(model="m", client=c),
    ),
    "ollama": Expect({"kind": "ollama"}, "http://127.0.0.1:11434/api/chat", make=lambda c: OllamaGenerator(model="m", client=c)),
    "openai-compatible": Expect(
        {"kind": "openai-compatible", "base_url": "http://127.0.0.1:9999/v1"}, "http://127.0.0.1:9999/v1/chat/completions"
    ),
    "llamacpp-server": Expect(
        {"kind": "llamacpp-server"},
        "http://127.0.0.1:8080/v1/chat/completions",
        make=lambda c: openai_compatible("llamacpp", model="m", client=c),
    ),
    "vllm": Expect(
        {"kind": "openai-compatible", "options": {"server": "vllm"}},
        "http://127.0.0.1:8000/v1/chat/completions",
        make=lambda c: openai_compatible("vllm", model="m", client=c),
    ),
    "lmstudio": Expect(
        {"kind": "openai-compatible", "options": {"server": "lmstudio"}},
        "http://127.0.0.1:1234/v1/chat/completions",
        make=lambda c: openai_compatible("lmstudio", model="m", client=c),
    ),
    "dashscope": Expect(
        {"kind": "openai-compatible", "options": {"server": "dashscope"}},
        "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
        "authorization",
        "DASHSCOPE_API_KEY",
        make=lambda c: openai_compatible("dashscope", model="m", client=c),
    ),
    "deepseek": Expect(
        {"kind": "openai-compatible", "options": {"server": "deepseek"}},
        "https://api.deepseek.com/v1/chat/completions",
        "authorization",
        "DEEPSEEK_API_KEY",
        make=lambda c: openai_compatible("deepseek", model="m", client=c),
    ),
    "groq": Expect(
        {"kind": "openai-compatible", "options": {"server": "groq"}},
        "https://api.groq.com/openai/v1/chat/completions",
        "authorization",
        "GROQ_API_KEY",
        make=lambda c: openai_compatible("groq", model="m", client=c),
    ),
    "openrouter": Expect(
        {"kind": "openai-compatible", "options": {"server": "openrouter"}},
        "https://openrouter.ai/api/v1/chat/completions",
        "authorization",
        "OPENROUTER_API_KEY",
        make=lambda c: openai_compatible("openrouter", model="m", client=c),
    ),
}


def row_id(row: ProviderKind) -> str:
    return row.kind or row.server or row.label


ROWS = {row_id(r): r for r in PROVIDER_KINDS}
KEYED = [name for name, e in EXPECTED.items() if e.env is not None]


def env_value(name: str) -> str:
    return f"sk-{name.lower()}-from-env"


@pytest.fixture
def all_keys_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind's key variable is set (to a distinct value), so a key sent where it must not be shows up."""
    for var in KEY_VARIABLES:
        monkeypatch.setenv(var, env_value(var))


def capture() -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"", headers={"content-type": "text/event-stream"})

    return seen, httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def request_once(gen: HttpGenerator) -> BaseException:
    """Start one streamed request and drain it; the end state (Done, or the stream's error)."""
    stream: ProviderStream = await gen.generate_stream("m", ModelContextBuilder().user("hi").build())
    while True:
        try:
            await asyncio.wait_for(stream.next(), 10)
        except BaseException as e:
            return e


def assert_auth(request: httpx.Request, expect: Expect) -> None:
    sent = {h: request.headers[h] for h in AUTH_HEADERS if h in request.headers}
    if expect.auth is None:
        assert sent == {}
    else:
        assert expect.env is not None
        key = env_value(expect.env)
        assert sent == {expect.auth: f"Bearer {key}" if expect.bearer else key}


def test_every_row_of_the_table_has_its_expectations_here() -> None:
    assert set(ROWS) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(ROWS))
async def test_the_loader_factory_reaches_each_kind_at_its_endpoint_with_its_key_variable(name: str, all_keys_set: None) -> None:
    expect = EXPECTED[name]
    seen, client = capture()
    gen = build({"name": "g", "model": "m"}, {"name": "p", **expect.provider}, SecretStore(), client=client)
    await request_once(gen)
    await client.aclose()
    assert len(seen) == 1 and str(seen[0].url) == expect.url
    assert_auth(seen[0], expect)


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if e.make is not None))
async def test_each_constructor_defaults_to_its_row(name: str, all_keys_set: None) -> None:
    expect = EXPECTED[name]
    assert expect.make is not None
    seen, client = capture()
    await request_once(expect.make(client))
    await client.aclose()
    assert len(seen) == 1 and str(seen[0].url) == expect.url
    assert_auth(seen[0], expect)


@pytest.mark.parametrize("custom", ["http://127.0.0.1:9/v1", "https://proxy.example.org/v1", "http://api.openai.com/v1"])
@pytest.mark.parametrize("name", KEYED)
async def test_a_custom_base_url_never_gets_the_environment_key(name: str, custom: str, all_keys_set: None) -> None:
    seen, client = capture()
    gen = build({"name": "g", "model": "m"}, {"name": "p", **EXPECTED[name].provider, "base_url": custom}, SecretStore(), client=client)
    end = await request_once(gen)
    await client.aclose()
    assert seen == []  # nothing was sent: no request without its key, and no key from the environment
    assert isinstance(end, ProviderConfigError) and "no API key configured" in str(end)
    assert "a custom base_url needs its own api_key reference" in str(end)


def test_a_constructor_with_a_custom_base_url_does_not_read_the_environment_key(all_keys_set: None) -> None:
    with pytest.raises(ProviderConfigError, match=r"OPENAI_API_KEY is only sent to https://api\.openai\.com/v1"):
        OpenAIChatGenerator(base_url="http://10.0.0.7:8000/v1", model="m")
    with pytest.raises(ProviderConfigError, match="GROQ_API_KEY is only sent to"):
        openai_compatible("groq", base_url="https://groq-proxy.example.org/v1")
    explicit = OpenAIChatGenerator(base_url="http://10.0.0.7:8000/v1", api_key="sk-given", model="m")
    assert explicit.config.api_key == "sk-given"


def test_the_default_host_written_out_still_gets_the_environment_key(all_keys_set: None) -> None:
    gen = build({"name": "g"}, {"name": "p", "kind": "openai-chat", "base_url": "https://API.openai.com:443/v1/"}, SecretStore())
    assert gen.config.api_key_env == "OPENAI_API_KEY"
    assert gen.config.key_resolver is not None and gen.config.key_resolver() == env_value("OPENAI_API_KEY")


def write(tmp_path: Path, text: str) -> ModelConfig:
    path = tmp_path / "models.toml"
    path.write_text(text, encoding="utf-8")
    from genx.modelloader import load_config

    return load_config(path)


async def test_an_explicit_reference_sends_its_key_to_a_custom_host(tmp_path: Path, all_keys_set: None) -> None:
    cfg = write(
        tmp_path,
        """
[providers.proxy]
kind = "openai-chat"
base_url = "https://llm-proxy.example.org/v1"
api_key = { env = "PROXY_KEY" }
headers = { "X-Title" = "parley", "X-Proxy-Token" = { env = "PROXY_TOKEN" } }

[[generators]]
name = "proxy/m"
provider = "proxy"
model = "m"
""",
    )
    mux = GeneratorMux()
    load_into(cfg, mux, None, secrets=SecretStore(environ={"PROXY_KEY": "sk-proxy", "PROXY_TOKEN": "tok-proxy"}))
    gen = mux.resolve("proxy/m")
    assert isinstance(gen, HttpGenerator)
    seen, client = capture()
    gen.transport.client = client
    await request_once(gen)
    await client.aclose()
    (req,) = seen
    assert str(req.url) == "https://llm-proxy.example.org/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-proxy"
    assert req.headers["x-proxy-token"] == "tok-proxy" and req.headers["x-title"] == "parley"


@pytest.mark.parametrize(
    "header", ["Authorization", "x-api-key", "api-key", "X-Goog-Api-Key", "Proxy-Authorization", "X-Auth-Token", "Cookie"]
)
def test_a_credential_looking_literal_header_in_the_config_file_is_refused_naming_the_key(tmp_path: Path, header: str) -> None:
    with pytest.raises(ConfigError) as ei:
        write(
            tmp_path,
            f"""
[providers.p]
kind = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
headers = {{ "X-Title" = "parley", "{header}" = "sk-literal-SECRET" }}
""",
        )
    assert ei.value.key == f"providers.p.headers.{header}"
    assert "{ env = " in str(ei.value) and "sk-literal-SECRET" not in str(ei.value)


def test_the_factory_refuses_a_credential_looking_literal_header_from_a_mapping() -> None:
    with pytest.raises(ProviderConfigError) as ei:
        build({"name": "g"}, {"name": "p", "kind": "ollama", "headers": {"X-Api-Key": "literal"}}, None)
    assert ei.value.key == "providers.p.headers.X-Api-Key"


def test_plain_headers_are_still_accepted(tmp_path: Path) -> None:
    cfg = write(tmp_path, '[providers.p]\nkind = "ollama"\nheaders = { "X-Title" = "parley", "HTTP-Referer" = "https://x" }\n')
    assert cfg.providers["p"].headers == {"X-Title": "parley", "HTTP-Referer": "https://x"}


@pytest.mark.parametrize(
    ("provider", "generator_options", "key", "message"),
    [
        ({"kind": "openai-compatible", "options": {"server": "nope"}}, {}, "providers.p.options.server", "unknown server 'nope'"),
        ({"kind": "ollama"}, {"server_typo": 1}, "generators[0].options.server_typo", "unknown option(s) server_typo"),
        ({"kind": "ollama", "options": {"speed": 2}}, {}, "providers.p.options.speed", "unknown option(s) speed"),
        ({"kind": "gemini", "api_key": {"env": "K"}}, {"quirks": {"top_k": True}}, "generators[0].options.quirks", "quirks apply"),
        ({"kind": "openai-compatible"}, {}, "providers.p.base_url", "needs a base_url"),
    ],
)
def test_the_loader_turns_provider_config_errors_into_config_errors_at_their_key(
    provider: dict[str, Any], generator_options: dict[str, Any], key: str, message: str
) -> None:
    cfg = parse_model(
        ModelConfig, {"providers": {"p": provider}, "generators": [{"name": "p/m", "provider": "p", "options": generator_options}]}
    )
    with pytest.raises(ConfigError) as ei:
        load_into(cfg, GeneratorMux(), None, secrets=SecretStore(environ={}), source="models.toml")
    assert ei.value.key == key and ei.value.source == "models.toml"
    assert message in ei.value.detail
