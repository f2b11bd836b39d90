"""Embedding and rerank models (seed 002): the :class:`Embedder` and :class:`Reranker` protocols.

Owns the protocols, :class:`Scored`, :func:`cosine`, the HTTP adapters
(:mod:`genx.embeddings.http`: OpenAI ``/embeddings``, Gemini
``:batchEmbedContents``, Ollama ``/api/embed``, and the ``/rerank`` endpoint of
llama.cpp server / Jina / Cohere-style APIs) and :class:`EmbeddingReranker`
(cosine order over any Embedder).

The adapters reuse the provider kinds table (base URL, auth header, key
variable: :mod:`genx.generators.provider_kinds`), the httpx transport (retries
before the first byte) and its typed :class:`~genx.generators.providers.errors.ProviderError` s.

Does not own: storing vectors (the memory store does), chunking documents.
Offline recall never depends on these: they are used only when configured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Scored:
    """One document of a rerank: its index in the input and its relevance (higher is better)."""

    index: int
    score: float


@runtime_checkable
class Embedder(Protocol):
    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...


@runtime_checkable
class Reranker(Protocol):
    async def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[Scored]:
        """At most ``top_n`` documents, most relevant first."""
        ...


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is zero or the lengths differ."""
    if len(a) != len(b) or not a:
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


class EmbeddingReranker:
    """A :class:`Reranker` from any :class:`Embedder`: documents by cosine similarity to the query."""

    __slots__ = ("embedder",)

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[Scored]:
        if not documents or top_n <= 0:
            return []
        vectors = await self.embedder.embed([query, *documents])
        q = vectors[0]
        scored = [Scored(i, cosine(q, v)) for i, v in enumerate(vectors[1:])]
        scored.sort(key=lambda s: -s.score)
        return scored[:top_n]


__all__ = ["Embedder", "EmbeddingReranker", "Reranker", "Scored", "cosine"]
