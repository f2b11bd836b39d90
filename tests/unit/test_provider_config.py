"""Provider configuration: redaction, validation, error classification, and the model-loader factory."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest

from genx.errors import GenxError
from genx.generators import Generator
from genx.generators.providers import (
    AnthropicGenerator,
    GeminiGenerator,
    OllamaGenerator,
    OpenAIChatGenerator,
    OpenAIResponsesGenerator,
    openai_compatible,
)
from genx.generators.providers.config import ProviderConfig, Timeouts
from genx.generators.providers.errors import (
    AuthenticationError,
    BadRequestError,
    ContentFilterError,
    ContextLengthError,
    ModelNotFoundError,
    PermissionDeniedError,
    ProviderConfigError,
    RateLimitError,
    ServerError,
    classify_body,
    parse_retry_after,
)
from genx.generators.providers.factory import build
from genx.model import ModelContextBuilder, ModelParams

SECRET = "sk-test-SECRET-1234567890"


def test_repr_of_config_and_generator_never_shows_the_key_or_auth_headers() -> None:
    cfg = ProviderConfig("openai", "https://api.openai.com/v1", api_key=SECRET, headers={"X-Api-Token": SECRET, "X-Title": "parley"})
    gen = OpenAIChatGenerator(config=cfg)
    for text in (repr(cfg), str(cfg), repr(gen)):
        assert SECRET not in text
    assert "parley" in repr(cfg)


def test_base_url_without_scheme_is_a_config_error_naming_the_provider() -> None:
    with pytest.raises(ProviderConfigError, match=r"groq: base URL 'api.groq.com/openai/v1' needs an http:// or https:// scheme"):
        openai_compatible("groq", base_url="api.groq.com/openai/v1", api_key="k")


def test_missing_api_key_names_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicGenerator(model="claude")


def test_local_servers_need_no_key() -> None:
    assert OllamaGenerator(model="m").config.api_key is None
    assert openai_compatible("llamacpp").config.api_key_required is False


def test_all_adapters_are_genx_generators() -> None:
    gens = [
        OpenAIChatGenerator(api_key="k"),
        OpenAIResponsesGenerator(api_key="k"),
        AnthropicGenerator(api_key="k"),
        GeminiGenerator(api_key="k"),
        OllamaGenerator(),
        openai_compatible("vllm"),
    ]
    assert all(isinstance(g, Generator) for g in gens)


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (
            401,
            {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}},
            AuthenticationError,
        ),
        (403, {"type": "error", "error": {"type": "permission_error", "message": "no access"}}, PermissionDeniedError),
        (404, {"error": {"message": "The model `gpt-9` does not exist", "code": "model_not_found"}}, ModelNotFoundError),
        (429, {"error": {"message": "slow down", "type": "rate_limit_exceeded"}}, RateLimitError),
        (
            400,
            {"error": {"message": "prompt is too long: 300000 tokens > 200000 maximum", "type": "invalid_request_error"}},
            ContextLengthError,
        ),
        (400, {"error": {"message": "flagged", "code": "content_filter"}}, ContentFilterError),
        (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, ServerError),
        (
            400,
            {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}},
            AuthenticationError,
        ),
        (400, {"error": {"code": 400, "message": "Invalid value at 'contents'", "status": "INVALID_ARGUMENT"}}, BadRequestError),
    ],
)
def test_http_errors_are_classified_and_keep_the_provider_message(status: int, body: dict[str, Any], kind: type) -> None:
    err = classify_body("prov", status, json.dumps(body).encode(), httpx.Headers({"retry-after": "7"}))
    assert isinstance(err, kind) and isinstance(err, GenxError)
    assert str(err).startswith("prov: ")
    message = body["error"]["message"]
    assert message in str(err) and err.status == status


def test_rate_limit_error_carries_retry_after_seconds() -> None:
    err = classify_body("openai", 429, b'{"error":{"message":"x"}}', httpx.Headers({"retry-after": "3"}))
    assert isinstance(err, RateLimitError) and err.retry_after == 3.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250"})) == 0.25
    assert parse_retry_after(httpx.Headers({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0


def test_non_json_error_body_is_kept_as_the_message() -> None:
    err = classify_body("vllm", 502, b"<html>Bad Gateway</html>", httpx.Headers())
    assert isinstance(err, ServerError) and "Bad Gateway" in str(err)


class FakeSecrets:
    """Stands in for genx.modelloader.SecretStore: api_key(provider) / headers(provider)."""

    def __init__(self, key: str | None) -> None:
        self.key = key
        self.calls = 0

    def api_key(self, provider: Any) -> str | None:
        self.calls += 1
        return self.key

    def headers(self, provider: Any) -> dict[str, str]:
        return {"X-Secret": "hdr"}


def _capture() -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = b'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return seen, httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_factory_builds_from_spec_and_resolves_the_key_only_when_requesting() -> None:
    seen, client = _capture()
    secrets = FakeSecrets(SECRET)
    provider = {
        "name": "groq",
        "kind": "openai-compatible",
        "base_url": "https://api.groq.com/openai/v1",
        "api_key": {"env": "GROQ_API_KEY"},
        "headers": {"X-Secret": {"env": "H"}},
    }
    spec = {
        "name": "fast",
        "model": "llama-3.1-8b",
        "params": ModelParams(temperature=0.3),
        "system_prompt": "You are fast.",
        "options": {"timeouts": {"read": 5}},
    }
    gen = build(spec, provider, secrets, client=client)
    assert secrets.calls == 0  # no secret lookup in the factory
    assert gen.config.timeouts == Timeouts(read=5.0)
    stream = await gen.generate_stream("fast", ModelContextBuilder().prompt("Persona").user("hi").params(max_tokens=7).build())
    chunks = [c async for c in stream]
    assert chunks and secrets.calls == 1
    req = seen[0]
    assert req.url == "https://api.groq.com/openai/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {SECRET}" and req.headers["x-secret"] == "hdr"
    body = json.loads(req.content)
    assert body["model"] == "llama-3.1-8b" and body["temperature"] == 0.3 and body["max_completion_tokens"] == 7
    assert body["messages"][0] == {"role": "system", "content": "Persona"}  # the conversation's prompt, not stacked
    await client.aclose()


async def test_a_generators_system_prompt_is_used_only_when_the_conversation_brings_none() -> None:
    seen, client = _capture()
    spec = {"name": "fast", "model": "m", "system_prompt": "You are fast."}
    provider = {"name": "groq", "kind": "openai-compatible", "base_url": "https://x.test/v1", "api_key": {"env": "GROQ_API_KEY"}}
    gen = build(spec, provider, FakeSecrets(SECRET), client=client)
    for ctx in (ModelContextBuilder().user("hi").build(), ModelContextBuilder().prompt("Be a pirate.").user("hi").build()):
        assert [c async for c in await gen.generate_stream("fast", ctx)]
    systems = [[m for m in json.loads(r.content)["messages"] if m["role"] == "system"] for r in seen]
    assert systems == [[{"role": "system", "content": "You are fast."}], [{"role": "system", "content": "Be a pirate."}]]
    await client.aclose()


async def test_missing_key_fails_the_request_with_a_config_error_not_the_factory(caplog: pytest.LogCaptureFixture) -> None:
    seen, client = _capture()
    gen = build(
        {"name": "g", "model": "gpt"}, {"name": "openai", "kind": "openai-chat", "api_key": {"env": "X"}}, FakeSecrets(None), client=client
    )
    stream = await gen.generate_stream("g", ModelContextBuilder().user("hi").build())
    with pytest.raises(ProviderConfigError, match="no API key"):
        async for _ in stream:
            pass
    assert seen == []
    await client.aclose()


def test_factory_rejects_unknown_options_and_kinds() -> None:
    with pytest.raises(GenxError, match="unknown option"):
        build({"name": "g", "options": {"temprature": 1}}, {"name": "openai", "kind": "openai-chat"}, FakeSecrets("k"))
    with pytest.raises(GenxError, match="not an HTTP provider kind"):
        build({"name": "g", "kind": "llamacpp"}, None, None)
    with pytest.raises(GenxError, match="unknown quirk"):
        build(
            {"name": "g", "options": {"quirks": {"nope": 1}}}, {"name": "x", "kind": "openai-compatible", "base_url": "http://h/v1"}, None
        )


def test_factory_picks_the_compat_row_by_server_option_or_provider_name() -> None:
    g = build({"name": "g"}, {"name": "deepseek", "kind": "openai-compatible"}, FakeSecrets("k"))
    assert g.config.base_url == "https://api.deepseek.com/v1"
    g = build({"name": "g", "options": {"server": "lmstudio"}}, {"name": "local", "kind": "openai-compatible"}, None)
    assert g.config.base_url == "http://127.0.0.1:1234/v1" and g.config.auth == "none"
    g = build(
        {"name": "g", "kind": "llamacpp-server"}, {"name": "srv", "kind": "llamacpp-server", "base_url": "http://127.0.0.1:9/v1"}, None
    )
    assert g.config.base_url == "http://127.0.0.1:9/v1"


async def test_api_key_never_appears_in_logs_or_errors(caplog: pytest.LogCaptureFixture) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})

    caplog.set_level(logging.DEBUG)
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        gen = OpenAIChatGenerator(api_key=SECRET, model="m", client=client)
        stream = await gen.generate_stream("m", ModelContextBuilder().user("hi").build())
        with pytest.raises(AuthenticationError) as ei:
            async for _ in stream:
                pass
    assert SECRET not in str(ei.value)
    assert SECRET not in caplog.text


async def test_factory_sends_plain_provider_headers_without_a_secret_store() -> None:
    seen, client = _capture()
    gen = build(
        {"name": "g", "model": "m"}, {"name": "local", "kind": "llamacpp-server", "headers": {"X-Title": "parley"}}, None, client=client
    )
    [c async for c in await gen.generate_stream("g", ModelContextBuilder().user("hi").build())]
    assert seen[0].headers["x-title"] == "parley" and "authorization" not in seen[0].headers
    await client.aclose()
