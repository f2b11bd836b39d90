"""Embedding and rerank adapters over httpx.MockTransport, on bodies written from the providers' documented formats."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from genx.embeddings import EmbeddingReranker, Scored, cosine
from genx.embeddings.http import GeminiEmbedder, HttpReranker, OllamaEmbedder, OpenAIEmbedder
from genx.generators.providers.errors import AuthenticationError, ProtocolError, ProviderConfigError, RateLimitError


def client(status: int, body: Any, seen: list[httpx.Request]) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json=body)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_openai_embeddings_are_ordered_by_index_and_sent_with_the_bearer_key() -> None:
    seen: list[httpx.Request] = []
    body = {
        "object": "list",
        "data": [
            {"object": "embedding", "index": 1, "embedding": [0.0, 1.0]},
            {"object": "embedding", "index": 0, "embedding": [1.0, 0.0]},
        ],
        "model": "text-embedding-3-small",
        "usage": {"prompt_tokens": 4, "total_tokens": 4},
    }
    async with client(200, body, seen) as c:
        emb = OpenAIEmbedder(api_key="sk-test", dimensions=2, client=c)
        assert await emb.embed(["first", "second"]) == [[1.0, 0.0], [0.0, 1.0]]
    req = seen[0]
    assert str(req.url) == "https://api.openai.com/v1/embeddings" and req.headers["authorization"] == "Bearer sk-test"
    assert json.loads(req.content) == {
        "model": "text-embedding-3-small",
        "input": ["first", "second"],
        "encoding_format": "float",
        "dimensions": 2,
    }


async def test_gemini_batch_embeddings_use_the_goog_key_header() -> None:
    seen: list[httpx.Request] = []
    async with client(200, {"embeddings": [{"values": [0.1, 0.2]}, {"values": [0.3, 0.4]}]}, seen) as c:
        emb = GeminiEmbedder(api_key="g-key", task_type="RETRIEVAL_QUERY", client=c)
        assert await emb.embed(["a", "b"]) == [[0.1, 0.2], [0.3, 0.4]]
    req = seen[0]
    assert str(req.url) == "https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents"
    assert req.headers["x-goog-api-key"] == "g-key"
    sent = json.loads(req.content)["requests"]
    assert sent[1] == {"model": "models/text-embedding-004", "content": {"parts": [{"text": "b"}]}, "taskType": "RETRIEVAL_QUERY"}


async def test_ollama_embed_needs_no_key() -> None:
    seen: list[httpx.Request] = []
    async with client(200, {"model": "nomic-embed-text", "embeddings": [[0.5, 0.5, 0.0]]}, seen) as c:
        assert await OllamaEmbedder(client=c).embed(["x"]) == [[0.5, 0.5, 0.0]]
    assert str(seen[0].url) == "http://127.0.0.1:11434/api/embed" and "authorization" not in seen[0].headers


async def test_provider_errors_are_typed_and_a_wrong_shape_is_a_protocol_error() -> None:
    seen: list[httpx.Request] = []
    async with client(
        401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}, seen
    ) as c:
        with pytest.raises(AuthenticationError):
            await OpenAIEmbedder(api_key="bad", client=c).embed(["x"])
    async with client(200, {"embeddings": [[0.1], [0.2]]}, seen) as c:
        with pytest.raises(ProtocolError, match="2 vectors for 1 texts"):
            await OllamaEmbedder(client=c).embed(["x"])
    async with client(200, {"embeddings": [{"values": "nope"}]}, seen) as c:
        with pytest.raises(ProtocolError, match="not a non-empty list of numbers"):
            await GeminiEmbedder(api_key="k", client=c).embed(["x"])


async def test_a_rate_limit_with_a_long_retry_after_surfaces_as_a_rate_limit_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, json={"error": {"message": "Rate limit reached", "type": "requests"}}, headers={"retry-after": "120"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as c:
        with pytest.raises(RateLimitError):
            await OpenAIEmbedder(api_key="k", client=c).embed(["x"])


def test_the_environment_key_is_not_sent_to_a_custom_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert OpenAIEmbedder().config.api_key == "sk-env"
    with pytest.raises(ProviderConfigError, match="no API key"):
        OpenAIEmbedder(base_url="https://evil.example.com/v1")


async def test_the_rerank_endpoint_orders_documents_by_relevance() -> None:
    seen: list[httpx.Request] = []
    body = {"model": "bge-reranker", "results": [{"index": 0, "relevance_score": 0.1}, {"index": 2, "relevance_score": 0.9}]}
    async with client(200, body, seen) as c:
        rr = HttpReranker("bge-reranker", base_url="http://127.0.0.1:8080/v1", client=c)
        assert await rr.rerank("where do I live", ["a", "b", "c"], 2) == [Scored(2, 0.9), Scored(0, 0.1)]
    assert str(seen[0].url) == "http://127.0.0.1:8080/v1/rerank"
    assert json.loads(seen[0].content) == {"model": "bge-reranker", "query": "where do I live", "documents": ["a", "b", "c"], "top_n": 2}


class _Fixed:
    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [self.table[t] for t in texts]


async def test_an_embedding_reranker_orders_by_cosine_similarity() -> None:
    emb = _Fixed({"q": [1.0, 0.0], "near": [0.9, 0.1], "far": [0.0, 1.0]})
    out = await EmbeddingReranker(emb).rerank("q", ["far", "near"], 5)
    assert [s.index for s in out] == [1, 0] and out[0].score == pytest.approx(cosine([1.0, 0.0], [0.9, 0.1]))
    assert cosine([1.0], [1.0, 2.0]) == 0.0 and cosine([0.0, 0.0], [1.0, 1.0]) == 0.0
