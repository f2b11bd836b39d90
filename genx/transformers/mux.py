"""TransformerMux: pick a configured :class:`~genx.transformers.Transformer` by name.

Concrete transformers do not receive a pattern (``transform(stream)``); choosing
one by name is the mux's job: ``await mux.transform("tts/joe", text_stream)``.
Patterns follow :mod:`genx.mux`.

On a miss ``transform`` raises ``NotFoundError`` before touching ``stream``:
the caller still owns it and may close it or retry with another name.
"""

from __future__ import annotations

from genx.mux import TopicMux
from genx.stream import Stream
from genx.transformers import Transformer


class TransformerMux:
    __slots__ = ("_mux",)

    def __init__(self) -> None:
        self._mux: TopicMux[Transformer] = TopicMux()

    def register(self, pattern: str, transformer: Transformer) -> None:
        """Raises ``PatternError`` (invalid pattern) or ``AlreadyRegisteredError``."""
        self._mux.register(pattern, transformer)

    def unregister(self, pattern: str) -> Transformer:
        return self._mux.unregister(pattern)

    def resolve(self, name: str) -> Transformer:
        """The transformer that serves ``name``; ``NotFoundError`` on a miss."""
        return self._mux.get(name)

    def match(self, name: str) -> tuple[str, Transformer]:
        return self._mux.match(name)

    def has_pattern(self, pattern: str) -> bool:
        return self._mux.has_pattern(pattern)

    def patterns(self) -> list[str]:
        return self._mux.patterns()

    def __contains__(self, name: object) -> bool:
        return name in self._mux

    def __len__(self) -> int:
        return len(self._mux)

    async def transform(self, pattern: str, stream: Stream) -> Stream:
        return await self._mux.get(pattern).transform(stream)

    def __repr__(self) -> str:
        return f"TransformerMux({self._mux.patterns()!r})"


__all__ = ["TransformerMux"]
