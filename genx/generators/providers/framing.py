"""Incremental byte-stream framing: Server-Sent Events and NDJSON.

Why not ``httpx_sse``: it implements the WHATWG rule that an event not followed
by a blank line is dropped at EOF, but real provider bodies end that way
(Anthropic's final ``message_stop``), and it insists on a ``text/event-stream``
content type. These decoders work on bytes, so a UTF-8 sequence split across
network reads is only decoded once its line is complete.

Both decoders are pure: ``feed(bytes) -> events``, ``close() -> events``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_LF = b"\n"
_CR = b"\r"


@dataclass(slots=True)
class SSEEvent:
    event: str
    data: str
    id: str = ""


class SSEDecoder:
    """Splits an SSE body into events.

    Handles LF, CRLF and lone CR line ends (also a CRLF split across reads),
    multi-line ``data:`` (joined with ``\\n``), comments, ``event:`` / ``id:``
    fields, and dispatches a final event that lacks the trailing blank line.
    """

    __slots__ = ("_buf", "_data", "_event", "_id", "_pending_cr")

    def __init__(self) -> None:
        self._buf = b""
        self._event = ""
        self._data: list[str] = []
        self._id = ""
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if not chunk:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if chunk[:1] == _LF:
                chunk = chunk[1:]
        if _CR in chunk:
            if chunk.endswith(_CR):
                self._pending_cr = True
                chunk = chunk[:-1] + _LF
            chunk = chunk.replace(b"\r\n", _LF).replace(_CR, _LF)
        buf = self._buf + chunk if self._buf else chunk
        if _LF not in buf:
            self._buf = buf
            return []
        lines = buf.split(_LF)
        self._buf = lines.pop()
        out: list[SSEEvent] = []
        for raw in lines:
            ev = self._line(raw)
            if ev is not None:
                out.append(ev)
        return out

    def close(self) -> list[SSEEvent]:
        """End of body: the unterminated last line and a pending event are dispatched."""
        out: list[SSEEvent] = []
        if self._buf:
            raw, self._buf = self._buf, b""
            ev = self._line(raw)
            if ev is not None:
                out.append(ev)
        ev = self._line(b"")
        if ev is not None:
            out.append(ev)
        return out

    def _line(self, raw: bytes) -> SSEEvent | None:
        if not raw:
            if not self._data and not self._event:
                return None
            ev = SSEEvent(self._event, "\n".join(self._data), self._id)
            self._event = ""
            self._data = []
            return ev
        if raw[:5] == b"data:":
            v = raw[6:] if raw[5:6] == b" " else raw[5:]
            self._data.append(v.decode("utf-8", "replace"))
            return None
        if raw[:1] == b":":
            return None
        name, sep, value = raw.partition(b":")
        if sep and value[:1] == b" ":
            value = value[1:]
        if name == b"event":
            self._event = value.decode("utf-8", "replace").strip()
        elif name == b"data":  # "data" without a colon: an empty data line
            self._data.append("")
        elif name == b"id" and b"\0" not in value:
            self._id = value.decode("utf-8", "replace")
        return None


class NDJSONDecoder:
    """Splits a newline-delimited JSON body into parsed objects.

    Raises :class:`ValueError` (with the offending line) for a line that is not JSON;
    the caller turns it into a provider ProtocolError.
    """

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, chunk: bytes) -> list[Any]:
        buf = self._buf + chunk if self._buf else chunk
        if _LF not in buf:
            self._buf = buf
            return []
        lines = buf.split(_LF)
        self._buf = lines.pop()
        return [_parse_line(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        rest, self._buf = self._buf, b""
        return [_parse_line(rest)] if rest.strip() else []


def _parse_line(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError as e:
        raise ValueError(f"not a JSON line: {line[:200]!r}") from e


__all__ = ["NDJSONDecoder", "SSEDecoder", "SSEEvent"]
