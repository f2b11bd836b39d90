"""Generators: the LLM side of genx.

Owns the :class:`Generator` protocol and the generator mux (``genx.generators.mux``),
the in-process llama.cpp generator (``genx.generators.llamacpp``) and the provider
adapters over HTTP (``genx.generators.providers``).

Does not own: running tools (the caller does), conversation history (the voice loop
keeps it), audio (transformers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from genx.chunk import FuncCall
from genx.model import ModelContext, Usage
from genx.stream import Stream

if TYPE_CHECKING:
    from genx.tools import FuncTool


@runtime_checkable
class Generator(Protocol):
    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        """Start a streaming generation for the model named ``pattern``.

        The stream carries text / thinking / tool-call chunks (role assistant) and
        ends with Done, Truncated, Blocked or the provider's typed error. Closing the
        stream cancels the generation.
        """
        ...

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        """Make the model call ``tool``; return usage and schema-valid arguments."""
        ...


__all__ = ["Generator"]
