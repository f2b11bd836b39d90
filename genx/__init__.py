"""genx: the provider-neutral streaming engine under Parley.

Owns: messages and chunks (:mod:`genx.chunk`), MIME-channel normalisation
(:mod:`genx.mime`), the async Stream protocol and StreamBuilder
(:mod:`genx.stream`), combinators (:mod:`genx.combinators`, the merges in :mod:`genx.stream_merge`)
and the realtime stream, model context / params / usage, tools and the ready-made ones (:mod:`genx.toolbox`),
the Generator and Transformer protocols with their topic-pattern muxes, configuration-driven model loading, provider adapters,
local (offline) models, end-of-turn detectors (:mod:`genx.turn`), the device-free
voice loop (:mod:`genx.agentkit`) and blocking calls on threads of their own
(:mod:`genx.threads`).

Does not own: Qt, audio devices (sounddevice), the desktop window, packaging:
those live in ``app``. genx never imports ``app``, Qt or sounddevice.
"""

from genx.chunk import Blob, FuncCall, Message, MessageChunk, Part, Role, StreamCtrl, Text, Thinking, ToolResult
from genx.combinators import composite_seq, empty_stream, iter_chunks, map_stream, merge, merge_interleaved, passthrough, split, tee
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
    ToolFailure,
    Truncated,
    UnexpectedEndOfStreamError,
)
from genx.generators import Generator
from genx.generators.mux import GeneratorMux
from genx.ids import StreamIDAllocator, base62, new_stream_id
from genx.mime import TEXT_MIME, THINKING_MIME, normalize_mime, parse_mime
from genx.model import ModelContext, ModelContextBuilder, ModelParams, MultiModelContext, Prompt, Usage
from genx.mux import TopicMux
from genx.realtime import ManualClock, RealtimeStream
from genx.stream import BuiltStream, Stream, StreamBase, StreamBuilder, collect, stream_of
from genx.tools import FuncTool, SearchWebTool, Tool
from genx.transformers import Transformer
from genx.transformers.mux import TransformerMux

__all__ = [
    "TEXT_MIME",
    "THINKING_MIME",
    "AlreadyRegisteredError",
    "Blob",
    "Blocked",
    "BuiltStream",
    "Done",
    "FuncCall",
    "FuncTool",
    "GenerateError",
    "Generator",
    "GeneratorMux",
    "GenxError",
    "InvalidMimeError",
    "ManualClock",
    "Message",
    "MessageChunk",
    "ModelContext",
    "ModelContextBuilder",
    "ModelParams",
    "MultiModelContext",
    "NotFoundError",
    "Part",
    "PatternError",
    "Prompt",
    "RealtimeStream",
    "Role",
    "SearchWebTool",
    "State",
    "Stream",
    "StreamBase",
    "StreamBuilder",
    "StreamClosedError",
    "StreamCtrl",
    "StreamIDAllocator",
    "Text",
    "Thinking",
    "Tool",
    "ToolArgumentsError",
    "ToolFailure",
    "ToolResult",
    "TopicMux",
    "Transformer",
    "TransformerMux",
    "Truncated",
    "UnexpectedEndOfStreamError",
    "Usage",
    "base62",
    "collect",
    "composite_seq",
    "empty_stream",
    "iter_chunks",
    "map_stream",
    "merge",
    "merge_interleaved",
    "new_stream_id",
    "normalize_mime",
    "parse_mime",
    "passthrough",
    "split",
    "stream_of",
    "tee",
]
