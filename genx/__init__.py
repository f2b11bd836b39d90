"""genx: the provider-neutral streaming engine under Parley.

Owns: messages and chunks (:mod:`genx.chunk`), MIME-channel normalisation
(:mod:`genx.mime`), the async Stream protocol and StreamBuilder
(:mod:`genx.stream`), combinators and the realtime stream, model context /
params / usage, tools, the Generator and Transformer protocols with their
topic-pattern muxes, configuration-driven model loading, provider adapters,
local (offline) models and the device-free voice loop (:mod:`genx.agentkit`).

Does not own: Qt, audio devices (sounddevice), the desktop window, packaging:
those live in ``app``. genx never imports ``app``, Qt or sounddevice.
"""

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Part, Role, StreamCtrl, Text, Thinking, ToolResult
from genx.errors import (
    AlreadyRegisteredError,
    Blocked,
    Done,
    GenerateError,
    GenxError,
    InvalidMimeError,
    NotFoundError,
    PatternError,
    State,
    StreamClosedError,
    ToolArgumentsError,
    Truncated,
    UnexpectedEndOfStreamError,
)
from genx.ids import StreamIDAllocator, base62, new_stream_id
from genx.mime import TEXT_MIME, THINKING_MIME, normalize_mime, parse_mime
from genx.stream import BuiltStream, Stream, StreamBase, StreamBuilder, collect, stream_of

__all__ = [
    "TEXT_MIME",
    "THINKING_MIME",
    "AlreadyRegisteredError",
    "Blob",
    "Blocked",
    "BuiltStream",
    "Done",
    "FuncCall",
    "GenerateError",
    "GenxError",
    "InvalidMimeError",
    "Message",
    "MessageChunk",
    "NotFoundError",
    "Part",
    "PatternError",
    "Role",
    "State",
    "Stream",
    "StreamBase",
    "StreamBuilder",
    "StreamClosedError",
    "StreamCtrl",
    "StreamIDAllocator",
    "Text",
    "Thinking",
    "ToolArgumentsError",
    "ToolResult",
    "Truncated",
    "UnexpectedEndOfStreamError",
    "base62",
    "collect",
    "new_stream_id",
    "normalize_mime",
    "parse_mime",
    "stream_of",
]
