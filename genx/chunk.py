"""Messages and chunks: the data that flows through every genx stream.

A :class:`MessageChunk` carries at most one part (:class:`Text`,
:class:`Thinking` or :class:`Blob`), an optional tool call and an optional
:class:`StreamCtrl` (route id, label, error, BOS/EOS, timestamp).

Route semantics (see ``docs/ARCHITECTURE.md``): a route is a StreamID; each
part MIME on it is a channel. EOS *with* a part closes that channel only; a
control-only EOS (no part) closes the whole route. Neither ends the Stream.

Hot-path types are slotted dataclasses; MIME strings are normalised once at
construction (``Blob.__post_init__``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from genx.mime import TEXT_MIME, THINKING_MIME, normalize_mime


class Role(enum.StrEnum):
    NONE = ""
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


@dataclass(slots=True)
class Text:
    text: str

    @property
    def mime(self) -> str:
        return TEXT_MIME

    def size(self) -> int:
        return len(self.text.encode("utf-8"))


@dataclass(slots=True)
class Thinking:
    """Model reasoning text. ``signature`` is opaque provider state kept for round trips."""

    text: str
    signature: str = ""

    @property
    def mime(self) -> str:
        return THINKING_MIME

    def size(self) -> int:
        return len(self.text.encode("utf-8")) + len(self.signature)


@dataclass(slots=True)
class Blob:
    """Binary content. ``mime`` is normalised on construction ("" when invalid)."""

    mime: str
    data: bytes = b""

    def __post_init__(self) -> None:
        self.mime = normalize_mime(self.mime)

    def size(self) -> int:
        return len(self.data)


Part: TypeAlias = Text | Thinking | Blob


@dataclass(slots=True)
class FuncCall:
    """A proposed call of a function tool. ``arguments`` is a JSON string."""

    name: str
    arguments: str = ""
    id: str = ""


@dataclass(slots=True)
class ToolResult:
    """The outcome of running a tool, fed back to the model as a ``tool`` message."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(slots=True)
class StreamCtrl:
    stream_id: str = ""
    label: str = ""
    error: str = ""
    begin_of_stream: bool = False
    end_of_stream: bool = False
    timestamp: int = 0  # milliseconds


@dataclass(slots=True)
class MessageChunk:
    role: Role = Role.NONE
    name: str = ""
    part: Part | None = None
    tool_call: FuncCall | None = None
    ctrl: StreamCtrl | None = None
    meta: dict[str, Any] | None = None

    # -- constructors -------------------------------------------------
    @classmethod
    def text(cls, text: str, *, role: Role = Role.NONE, name: str = "", stream_id: str = "", label: str = "") -> MessageChunk:
        ctrl = StreamCtrl(stream_id=stream_id, label=label) if (stream_id or label) else None
        return cls(role=role, name=name, part=Text(text), ctrl=ctrl)

    @classmethod
    def blob(
        cls, mime: str, data: bytes, *, role: Role = Role.NONE, name: str = "", stream_id: str = "", label: str = "", timestamp: int = 0
    ) -> MessageChunk:
        ctrl = StreamCtrl(stream_id=stream_id, label=label, timestamp=timestamp) if (stream_id or label or timestamp) else None
        return cls(role=role, name=name, part=Blob(mime, data), ctrl=ctrl)

    @classmethod
    def bos(
        cls, stream_id: str, part: Part | None = None, *, role: Role = Role.NONE, name: str = "", label: str = "", timestamp: int = 0
    ) -> MessageChunk:
        """Begin of stream: with a part it declares that MIME channel, without it begins the route."""
        return cls(
            role=role, name=name, part=part, ctrl=StreamCtrl(stream_id=stream_id, label=label, begin_of_stream=True, timestamp=timestamp)
        )

    @classmethod
    def eos(
        cls,
        stream_id: str,
        part: Part | None = None,
        *,
        role: Role = Role.NONE,
        name: str = "",
        label: str = "",
        error: str = "",
        timestamp: int = 0,
    ) -> MessageChunk:
        """End of stream: with a part it closes that MIME channel, without it the whole route."""
        return cls(
            role=role,
            name=name,
            part=part,
            ctrl=StreamCtrl(stream_id=stream_id, label=label, error=error, end_of_stream=True, timestamp=timestamp),
        )

    # -- queries -----------------------------------------------------
    def is_begin_of_stream(self) -> bool:
        return self.ctrl is not None and self.ctrl.begin_of_stream

    def is_end_of_stream(self) -> bool:
        return self.ctrl is not None and self.ctrl.end_of_stream

    def is_control_only(self) -> bool:
        return self.part is None and self.tool_call is None

    @property
    def stream_id(self) -> str:
        return self.ctrl.stream_id if self.ctrl is not None else ""

    @property
    def label(self) -> str:
        return self.ctrl.label if self.ctrl is not None else ""

    @property
    def error(self) -> str:
        return self.ctrl.error if self.ctrl is not None else ""

    @property
    def timestamp(self) -> int:
        return self.ctrl.timestamp if self.ctrl is not None else 0

    def mime(self) -> str:
        """Normalised MIME of the part: ``text/plain`` for Text, ``""`` without a (valid) part."""
        p = self.part
        if p is None:
            return ""
        return p.mime

    def content_size(self) -> int:
        """Bytes of content (text as UTF-8, blob data); control chunks count 0."""
        p = self.part
        return 0 if p is None else p.size()

    def ensure_ctrl(self) -> StreamCtrl:
        if self.ctrl is None:
            self.ctrl = StreamCtrl()
        return self.ctrl

    def copy(self) -> MessageChunk:
        """Shallow copy with its own StreamCtrl (parts are treated as immutable)."""
        ctrl = self.ctrl
        return MessageChunk(
            role=self.role,
            name=self.name,
            part=self.part,
            tool_call=self.tool_call,
            ctrl=None
            if ctrl is None
            else StreamCtrl(ctrl.stream_id, ctrl.label, ctrl.error, ctrl.begin_of_stream, ctrl.end_of_stream, ctrl.timestamp),
            meta=None if self.meta is None else dict(self.meta),
        )


@dataclass(slots=True)
class Message:
    """A whole message in a conversation (what ModelContext holds).

    ``tool_calls`` are the calls an assistant message proposed; ``tool_result``
    makes this a ``tool`` message answering one call. ``meta`` keeps provider
    round-trip state (thinking signatures, response ids) and flags such as
    ``interrupted``.
    """

    role: Role
    parts: list[Part] = field(default_factory=list)
    name: str = ""
    tool_calls: list[FuncCall] = field(default_factory=list)
    tool_result: ToolResult | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def user(cls, text: str, *, name: str = "") -> Message:
        return cls(Role.USER, [Text(text)], name=name)

    @classmethod
    def assistant(cls, text: str, *, name: str = "", tool_calls: list[FuncCall] | None = None) -> Message:
        return cls(Role.ASSISTANT, [Text(text)] if text else [], name=name, tool_calls=list(tool_calls or []))

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(Role.SYSTEM, [Text(text)])

    @classmethod
    def tool(cls, result: ToolResult) -> Message:
        return cls(Role.TOOL, [Text(result.content)], name=result.name, tool_result=result)

    def text(self) -> str:
        """Concatenated visible text (Text parts only, no thinking)."""
        return "".join(p.text for p in self.parts if isinstance(p, Text))

    def thinking(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, Thinking))
