"""Fold a provider stream's chunks into the assistant :class:`~genx.chunk.Message` for history.

The fold keeps what a later request needs for a faithful round trip: text,
thinking with its signatures (one ``Thinking`` part per signed block, redacted
blocks on their own), the complete tool calls, Gemini's per-call thought
signatures in ``meta["thought_signatures"]``, Responses reasoning items in
``meta["reasoning_items"]``, and ``meta["provider_family"]`` so signatures are
only replayed to the provider that made them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from genx.chunk import FuncCall, Message, MessageChunk, Part, Role, Text, Thinking
from genx.model import Usage


@dataclass(slots=True)
class MessageAccumulator:
    """Feed every chunk of one stream with :meth:`add`; :meth:`message` builds the result."""

    family: str = ""
    parts: list[Part] = field(default_factory=list)
    tool_calls: list[FuncCall] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    usage: Usage | None = None
    finish_reason: str = ""
    _open_text: bool = False
    _open_thinking: bool = False

    def add(self, chunk: MessageChunk) -> None:
        m = chunk.meta
        if m and m.get("choice"):
            return  # only choice 0 belongs to the conversation
        p = chunk.part
        if isinstance(p, Text):
            self._add_text(p.text)
        elif isinstance(p, Thinking):
            self._add_thinking(p, bool(m and m.get("redacted")))
            if m and "reasoning_item" in m:
                self.meta.setdefault("reasoning_items", []).append(m["reasoning_item"])
        call = chunk.tool_call
        if call is not None:
            self.tool_calls.append(call)
            sig = m.get("thought_signature") if m else None
            if sig:
                self.meta.setdefault("thought_signatures", {})[call.id] = sig
        if m and "finish_reason" in m and p is None and call is None:
            self.usage = m.get("usage")
            self.finish_reason = str(m.get("finish_reason") or "")
            fam = m.get("family")
            if fam:
                self.family = str(fam)

    def _add_text(self, text: str) -> None:
        self._open_thinking = False
        if self._open_text and self.parts and isinstance(self.parts[-1], Text):
            last = self.parts[-1]
            self.parts[-1] = Text(last.text + text)
        else:
            self.parts.append(Text(text))
            self._open_text = True

    def _add_thinking(self, t: Thinking, redacted: bool) -> None:
        self._open_text = False
        last = self.parts[-1] if self.parts else None
        if redacted or (not t.text and t.signature and not (self._open_thinking and isinstance(last, Thinking))):
            self.parts.append(Thinking(t.text, t.signature))  # a block of its own
            self._open_thinking = False
            return
        if self._open_thinking and isinstance(last, Thinking):
            self.parts[-1] = Thinking(last.text + t.text, t.signature or last.signature)
        else:
            self.parts.append(Thinking(t.text, t.signature))
        # A signature ends its block: the next thinking text starts a new one.
        self._open_thinking = not t.signature

    def message(self) -> Message:
        meta = dict(self.meta)
        if self.family:
            meta["provider_family"] = self.family
        return Message(Role.ASSISTANT, list(self.parts), tool_calls=list(self.tool_calls), meta=meta)


def accumulate(chunks: list[MessageChunk]) -> Message:
    acc = MessageAccumulator()
    for c in chunks:
        acc.add(c)
    return acc.message()


__all__ = ["MessageAccumulator", "accumulate"]
