"""toolrounds: automatic tool-call rounds over any Generator.

Owns: the round runner (:mod:`.runner`: :class:`ToolRounds`, itself a
:class:`~genx.generators.Generator`, and the :class:`ToolRoundsReport` with the
message-level history a request produced), running one round of calls
(:mod:`.execute`: validation, concurrency, timeouts, cancellation, the
side-effect ledger) and the tool events as labelled stream chunks
(:mod:`.events`, the one place their labels are defined).

Does not own: the tools themselves (:mod:`genx.tools` defines ``FuncTool``;
concrete tools live elsewhere), the wire formats (provider adapters pair call
ids and replay signatures), storing history (the caller stores the report's
messages), speaking fillers while a tool runs (the voice loop).

Why here, a package of its own beside :mod:`genx.tools`: it is neither a
generator (``genx.generators`` says running tools is the caller's job) nor part
of the voice loop (``genx.agentkit``): the voice loop, ``parley ask`` and any
other caller use it the same way, over any generator (cloud adapters, the
llama.cpp generator, a scripted fake).
"""

from genx.toolrounds.events import (
    LABEL_CALL_ARGS,
    LABEL_CALL_END,
    LABEL_CALL_START,
    LABEL_RESULT,
    TOOL_EVENT_LABELS,
    ToolEvent,
    ToolEventKind,
    is_tool_event,
    tool_event,
)
from genx.toolrounds.execute import CallBatch, CallRecord, CallStatus, SideEffectLedger
from genx.toolrounds.runner import DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_TOOL_TIMEOUT_S, ToolRounds, ToolRoundsReport, ToolRoundsStream

__all__ = [
    "DEFAULT_MAX_TOOL_ROUNDS",
    "DEFAULT_TOOL_TIMEOUT_S",
    "LABEL_CALL_ARGS",
    "LABEL_CALL_END",
    "LABEL_CALL_START",
    "LABEL_RESULT",
    "TOOL_EVENT_LABELS",
    "CallBatch",
    "CallRecord",
    "CallStatus",
    "SideEffectLedger",
    "ToolEvent",
    "ToolEventKind",
    "ToolRounds",
    "ToolRoundsReport",
    "ToolRoundsStream",
    "is_tool_event",
    "tool_event",
]
