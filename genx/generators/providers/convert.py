"""Shared pieces of the pure wire-event → MessageChunk converters.

A converter is created per stream and fed decoded events in order
(``feed(event_name, json_object)``, ``on_done()`` for ``[DONE]``). It returns
the chunks each event produces and never does I/O. ``close()`` is called at the
end of the body: it flushes pending tool calls and returns the end state, which
is :class:`~genx.errors.Done`, :class:`~genx.errors.Truncated`,
:class:`~genx.errors.Blocked` or a :class:`ProviderError`. A body that ends
before the provider's terminal event ends with
:class:`~genx.generators.providers.errors.StreamEndedError`.

Chunk conventions (all chunks have role ``assistant``):

* visible text → ``Text``; reasoning → ``Thinking(text)``;
* a thinking signature (Anthropic ``signature_delta``, Gemini
  ``thoughtSignature`` on a text part, Responses encrypted reasoning) →
  ``Thinking("", signature)``; Anthropic redacted thinking additionally has
  ``meta={"redacted": True}``;
* a complete, valid tool call → ``tool_call=FuncCall`` (Gemini's signature in
  ``meta["thought_signature"]``);
* choices other than 0 (``n>1``) carry ``meta["choice"]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from genx.chunk import FuncCall, MessageChunk, Role, Text, Thinking
from genx.errors import Blocked, Done, Truncated
from genx.generators.providers.errors import ProviderError, StreamEndedError
from genx.generators.providers.toolcalls import DroppedCall, ToolCallAssembler
from genx.model import Usage

ASSISTANT = Role.ASSISTANT


def text_chunk(text: str, meta: dict[str, Any] | None = None) -> MessageChunk:
    return MessageChunk(role=ASSISTANT, part=Text(text), meta=meta)


def thinking_chunk(text: str, signature: str = "", meta: dict[str, Any] | None = None) -> MessageChunk:
    return MessageChunk(role=ASSISTANT, part=Thinking(text, signature), meta=meta)


def call_chunk(call: FuncCall, meta: dict[str, Any] | None = None) -> MessageChunk:
    return MessageChunk(role=ASSISTANT, tool_call=call, meta=meta or None)


def as_int(v: Any) -> int:
    return v if isinstance(v, int) else 0


@dataclass(slots=True)
class Outcome:
    """How a converted stream ended, for logs and the final meta chunk."""

    end: BaseException
    finish_reason: str


class ConverterBase:
    """State every converter shares: usage, finish reason, tool assembly, terminal flag."""

    provider: str
    family = ""  # the wire dialect; signatures only round-trip within one family

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.usage: Usage | None = None
        self.finish_reason = ""
        self.response_id = ""
        self.refusal = ""
        self.calls = ToolCallAssembler()
        self._end: BaseException | None = None
        self.finished = False  # nothing more is expected: the driver may stop reading

    @property
    def dropped_calls(self) -> list[DroppedCall]:
        return self.calls.dropped

    @property
    def terminal(self) -> BaseException | None:
        return self._end

    def feed(self, event: str, data: Any) -> list[MessageChunk]:  # pragma: no cover - abstract
        raise NotImplementedError

    def on_done(self) -> list[MessageChunk]:
        """``data: [DONE]``: the server says the body is complete."""
        self.finished = True
        return []

    def end_with(self, end: BaseException, finish_reason: str = "", *, final: bool = True) -> None:
        if self._end is None or isinstance(end, ProviderError):
            self._end = end
        if finish_reason:
            self.finish_reason = finish_reason
        if final:
            self.finished = True

    def flush_calls(self, meta_for: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None) -> list[MessageChunk]:
        out: list[MessageChunk] = []
        for call, extra in self.calls.complete_all():
            out.append(call_chunk(call, meta_for(extra) if meta_for else None))
        return out

    def close(self) -> tuple[list[MessageChunk], BaseException]:
        """End of body: pending tool calls and the end state."""
        chunks = self.flush_calls()
        end = self._end
        if end is None:
            end = StreamEndedError(self.provider, self.eof_detail())
        return chunks, end

    def eof_detail(self) -> str:
        return "no finish reason received"

    def outcome(self) -> Outcome:
        return Outcome(self._end or StreamEndedError(self.provider), self.finish_reason)


def end_for_finish(reason: str, *, truncated: frozenset[str], blocked: frozenset[str]) -> BaseException:
    """Map a provider finish reason; an unknown reason counts as a normal end (kept in ``finish_reason``)."""
    if reason in truncated:
        return Truncated()
    if reason in blocked:
        return Blocked(reason)
    return Done()


__all__ = ["ASSISTANT", "ConverterBase", "Outcome", "as_int", "call_chunk", "end_for_finish", "text_chunk", "thinking_chunk"]
