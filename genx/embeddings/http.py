"""Embedding and rerank adapters over the project's httpx transport.

* :class:`OpenAIEmbedder`: ``POST {base}/embeddings`` ``{"model", "input": [...]}`` →
  ``{"data": [{"index", "embedding"}]}`` (ordered by ``index``). Also any
  OpenAI-compatible server (``base_url=``, key only when given).
* :class:`GeminiEmbedder`: ``POST {base}/v1beta/models/{model}:batchEmbedContents``
  ``{"requests": [{"model", "content": {"parts": [{"text"}]}}]}`` → ``{"embeddings": [{"values"}]}``.
* :class:`OllamaEmbedder`: ``POST {base}/api/embed`` ``{"model", "input": [...]}`` → ``{"embeddings": [[...]]}``.
* :class:`HttpReranker`: ``POST {base}/rerank`` ``{"model", "query", "documents", "top_n"}`` →
  ``{"results": [{"index", "relevance_score"}]}`` (llama.cpp server, Jina, Cohere v2).

Defaults (base URL, auth header, key variable, the key only for the default
host) come from the provider kinds table rows ``openai-chat``, ``gemini`` and
``ollama``. HTTP failures are the transport's typed ``ProviderError`` s; a body
of the wrong shape is a ``ProtocolError``. Keys are never logged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import httpx

from genx.embeddings import Scored
from genx.generators.provider_kinds import KINDS
from genx.generators.providers.config import ProviderConfig, Timeouts, kind_config
from genx.generators.providers.errors import ProtocolError
from genx.generators.providers.transport import HttpTransport, WireRequest


class _HttpModel:
    """One endpoint and model over :class:`HttpTransport` (``client`` injectable for tests)."""

    KIND: ClassVar[str]

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeouts: Timeouts | Mapping[str, Any] | float | None = None,
        provider: str | None = None,
        config: ProviderConfig | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        if config is None:
            row = KINDS[self.KIND]
            config = kind_config(
                row, base_url=base_url, api_key=api_key, model=model, headers=headers, timeouts=timeouts, provider=provider
            )
        self.config = config
        self.model = model
        self.transport = HttpTransport(config, client)

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        return await self.transport.post_json(WireRequest(self.config.url(path), body, self.config.request_headers()))

    def _bad(self, what: str) -> ProtocolError:
        return ProtocolError(self.config.provider, f"unexpected embedding response: {what}")

    def _vector(self, v: Any) -> list[float]:
        if not isinstance(v, list) or not v or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in v):
            raise self._bad("a vector is not a non-empty list of numbers")
        return [float(x) for x in v]

    def _check_count(self, vectors: list[list[float]], n: int) -> list[list[float]]:
        if len(vectors) != n:
            raise self._bad(f"{len(vectors)} vectors for {n} texts")
        return vectors


class OpenAIEmbedder(_HttpModel):
    KIND = "openai-chat"

    def __init__(self, model: str = "text-embedding-3-small", *, dimensions: int | None = None, **kw: Any) -> None:
        super().__init__(model, **kw)
        self.dimensions = dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        body: dict[str, Any] = {"model": self.model, "input": list(texts), "encoding_format": "float"}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        data = await self._post("embeddings", body)
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise self._bad("no 'data' list")
        ordered = sorted(items, key=lambda i: i.get("index", 0) if isinstance(i.get("index"), int) else 0)
        return self._check_count([self._vector(i.get("embedding")) for i in ordered], len(texts))


class GeminiEmbedder(_HttpModel):
    KIND = "gemini"

    def __init__(self, model: str = "text-embedding-004", *, task_type: str | None = None, **kw: Any) -> None:
        super().__init__(model, **kw)
        self.task_type = task_type

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        name = self.model if self.model.startswith("models/") else f"models/{self.model}"
        requests: list[dict[str, Any]] = []
        for t in texts:
            r: dict[str, Any] = {"model": name, "content": {"parts": [{"text": t}]}}
            if self.task_type:
                r["taskType"] = self.task_type
            requests.append(r)
        data = await self._post(f"v1beta/{name}:batchEmbedContents", {"requests": requests})
        items = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise self._bad("no 'embeddings' list")
        return self._check_count([self._vector(i.get("values")) for i in items], len(texts))


class OllamaEmbedder(_HttpModel):
    KIND = "ollama"

    def __init__(self, model: str = "nomic-embed-text", **kw: Any) -> None:
        super().__init__(model, **kw)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        data = await self._post("api/embed", {"model": self.model, "input": list(texts)})
        items = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise self._bad("no 'embeddings' list")
        return self._check_count([self._vector(v) for v in items], len(texts))


class HttpReranker(_HttpModel):
    """The ``/rerank`` endpoint; ``base_url`` is required (an OpenAI-compatible server's, e.g. ``http://127.0.0.1:8080/v1``)."""

    KIND = "openai-compatible"

    async def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[Scored]:
        if not documents or top_n <= 0:
            return []
        data = await self._post("rerank", {"model": self.model, "query": query, "documents": list(documents), "top_n": top_n})
        items = data.get("results") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise self._bad("no 'results' list")
        out: list[Scored] = []
        for i in items:
            idx = i.get("index") if isinstance(i, dict) else None
            score = i.get("relevance_score", i.get("score")) if isinstance(i, dict) else None
            if not isinstance(idx, int) or not 0 <= idx < len(documents) or not isinstance(score, int | float):
                raise self._bad("a result without a valid index and relevance_score")
            out.append(Scored(idx, float(score)))
        out.sort(key=lambda s: -s.score)
        return out[:top_n]


__all__ = ["GeminiEmbedder", "HttpReranker", "OllamaEmbedder", "OpenAIEmbedder"]
