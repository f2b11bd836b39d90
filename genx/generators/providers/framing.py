"""Incremental byte-stream framing: Server-Sent Events and NDJSON.

Why not ``httpx_sse``: it implements the WHATWG rule that an event not followed
by a blank line is dropped at EOF, but real provider bodies end that way
(Anthropic's final ``message_stop``), and it insists on a ``text/event-stream``
content type. These decoders work on bytes, so a UTF-8 sequence split across
network reads is only decoded once its line is complete.

Both decoders are pure: ``feed(bytes) -> events``, ``close() -> events``. Memory
is bounded: a line (or an SSE event) longer than ``max_line_bytes`` (16 MiB by
default) raises :class:`FrameTooLargeError` instead of growing the buffer, and
JSON nested too deeply for the parser is a :class:`ValueError` like any other
malformed line (:func:`loads_json`). Every error here is a ``ValueError``; the
generator turns it into a provider ``ProtocolError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_LF = b"\n"
_CR = b"\r"
MAX_LINE_BYTES = 16 * 1024 * 1024


class FrameTooLargeError(ValueError):
    """A line or event of the body exceeds the decoder's limit (the server is not streaming SSE / NDJSON, or the limit is too low)."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"{what} of {size} bytes exceeds the limit of {limit} bytes; the response is not a well-formed event stream")


def loads_json(raw: str | bytes) -> Any:
    """``json.loads`` whose only error is ``ValueError`` (also for JSON nested too deeply to parse)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _check_line(buf: bytes, limit: int) -> None:
    if len(buf) > limit:
        raise FrameTooLargeError("a line without a line break", len(buf), limit)


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

    __slots__ = ("_buf", "_data", "_data_bytes", "_event", "_id", "_pending_cr", "max_line_bytes")

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._buf = b""
        self._event = ""
        self._data: list[str] = []
        self._data_bytes = 0
        self._id = ""
        self._pending_cr = False

    @property
    def buffered(self) -> int:
        """Bytes held for an incomplete line or event (at most ``max_line_bytes`` each)."""
        return len(self._buf) + self._data_bytes

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if not chunk:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if chunk[:1] == _LF:
                chunk = chunk[1:]
        if _CR in chunk:
            ends_cr = chunk.endswith(_CR)  # its LF may come in the next read
            if ends_cr:
                self._pending_cr = True
                chunk = chunk[:-1]
            # Replace before appending the LF: a CR just before the last one must not pair with it.
            chunk = chunk.replace(b"\r\n", _LF).replace(_CR, _LF) + (_LF if ends_cr else b"")
        buf = self._buf + chunk if self._buf else chunk
        if _LF not in buf:
            _check_line(buf, self.max_line_bytes)
            self._buf = buf
            return []
        lines = buf.split(_LF)
        rest = lines.pop()
        out: list[SSEEvent] = []
        for raw in lines:
            _check_line(raw, self.max_line_bytes)
            ev = self._line(raw)
            if ev is not None:
                out.append(ev)
        _check_line(rest, self.max_line_bytes)
        self._buf = rest
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
            self._data_bytes = 0
            return ev
        if raw[:5] == b"data:":
            v = raw[6:] if raw[5:6] == b" " else raw[5:]
            self._data_bytes += len(v) + 1
            if self._data_bytes > self.max_line_bytes:
                raise FrameTooLargeError("an event's data", self._data_bytes, self.max_line_bytes)
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
            self._data_bytes += 1
            if self._data_bytes > self.max_line_bytes:
                raise FrameTooLargeError("an event's data", self._data_bytes, self.max_line_bytes)
            self._data.append("")
        elif name == b"id" and b"\0" not in value:
            self._id = value.decode("utf-8", "replace")
        return None


class NDJSONDecoder:
    """Splits a newline-delimited JSON body into parsed objects.

    Raises :class:`ValueError` (with the offending line) for a line that is not JSON,
    :class:`FrameTooLargeError` for one longer than ``max_line_bytes``; the caller
    turns both into a provider ProtocolError.
    """

    __slots__ = ("_buf", "max_line_bytes")

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._buf = b""

    @property
    def buffered(self) -> int:
        """Bytes held for an incomplete line (at most ``max_line_bytes``)."""
        return len(self._buf)

    def feed(self, chunk: bytes) -> list[Any]:
        buf = self._buf + chunk if self._buf else chunk
        if _LF not in buf:
            _check_line(buf, self.max_line_bytes)
            self._buf = buf
            return []
        lines = buf.split(_LF)
        rest = lines.pop()
        out: list[Any] = []
        for line in lines:
            _check_line(line, self.max_line_bytes)
            if line.strip():
                out.append(_parse_line(line))
        _check_line(rest, self.max_line_bytes)
        self._buf = rest
        return out

    def close(self) -> list[Any]:
        rest, self._buf = self._buf, b""
        return [_parse_line(rest)] if rest.strip() else []


def _parse_line(line: bytes) -> Any:
    try:
        return loads_json(line)
    except ValueError as e:
        raise ValueError(f"not a JSON line: {line[:200]!r}") from e


__all__ = ["MAX_LINE_BYTES", "FrameTooLargeError", "NDJSONDecoder", "SSEDecoder", "SSEEvent", "loads_json"]
