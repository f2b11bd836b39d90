"""GeneratorMux: one :class:`~genx.generators.Generator` that routes by model name.

The mux itself implements the Generator protocol. A call resolves the requested
name against the registered topic patterns (see :mod:`genx.mux`) and forwards the
call with the FULL requested name, so a generator registered as ``openai/#`` can
read the concrete model out of ``openai/gpt-4o-mini``.

:meth:`GeneratorMux.aclose` closes every registered generator that has an
``aclose`` (the HTTP adapters' connection pools): call it when the mux is
dropped, e.g. on a rebuild after new settings.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from genx.chunk import FuncCall
from genx.generators import Generator
from genx.model import ModelContext, Usage
from genx.mux import TopicMux
from genx.stream import Stream

if TYPE_CHECKING:
    from genx.tools import FuncTool

log = logging.getLogger(__name__)


class GeneratorMux:
    """Registry of generators by topic pattern; itself a :class:`Generator`."""

    __slots__ = ("_mux",)

    def __init__(self) -> None:
        self._mux: TopicMux[Generator] = TopicMux()

    def register(self, pattern: str, generator: Generator) -> None:
        """Serve names matching ``pattern`` with ``generator``.

        Raises ``PatternError`` (invalid pattern) or ``AlreadyRegisteredError``.
        """
        self._mux.register(pattern, generator)

    def unregister(self, pattern: str) -> Generator:
        return self._mux.unregister(pattern)

    def resolve(self, name: str) -> Generator:
        """The generator that serves ``name``; ``NotFoundError`` on a miss."""
        return self._mux.get(name)

    def match(self, name: str) -> tuple[str, Generator]:
        """``(registered pattern, generator)`` serving ``name``."""
        return self._mux.match(name)

    def has_pattern(self, pattern: str) -> bool:
        return self._mux.has_pattern(pattern)

    def patterns(self) -> list[str]:
        return self._mux.patterns()

    def __contains__(self, name: object) -> bool:
        return name in self._mux

    def __len__(self) -> int:
        return len(self._mux)

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        return await self._mux.get(pattern).generate_stream(pattern, ctx)

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        return await self._mux.get(pattern).invoke(pattern, ctx, tool)

    async def prefill(self, pattern: str, ctx: ModelContext) -> bool:
        """The resolved generator's ``prefill`` (prompt caching ahead of the next turn), if it has one."""
        fn = getattr(self._mux.get(pattern), "prefill", None)
        return bool(await fn(pattern, ctx)) if fn is not None else False

    async def aclose(self) -> None:
        """Close every distinct registered generator that has ``aclose`` (all of them, even when one fails)."""
        closers = []
        seen: set[int] = set()
        for _, gen in self._mux.items():
            fn = getattr(gen, "aclose", None)
            if fn is not None and id(gen) not in seen:
                seen.add(id(gen))
                closers.append(fn())
        for result in await asyncio.gather(*closers, return_exceptions=True):
            if isinstance(result, Exception):
                log.warning("closing a generator failed: %s: %s", type(result).__name__, result)

    def __repr__(self) -> str:
        return f"GeneratorMux({self._mux.patterns()!r})"


__all__ = ["GeneratorMux"]
