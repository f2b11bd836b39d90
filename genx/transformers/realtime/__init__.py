"""Realtime speech-to-speech transformers: one websocket session per ``transform()`` call.

Owns: the provider-neutral realtime protocol (:mod:`.events`: what a provider
session says, as typed events; :mod:`.settings`: session settings and the
:class:`~.events.Dialect` protocol), the pure wire converters of OpenAI
Realtime (:mod:`.openai_realtime`) and Gemini Live (:mod:`.gemini_live`), the
thin ``websockets`` transport with connect / read timeouts and typed errors
(:mod:`.transport`), and :class:`RealtimeTransformer` with its per-call session
(:mod:`.session`, one call's state in :mod:`.session_call`, :mod:`.responses`, :mod:`.stream`,
:mod:`.input_audio`, :mod:`.watchdog`): audio and text in, per response audio +
transcript + text on a fresh StreamID out, tool calls as ``FuncCall`` chunks
answered by tool-result chunks, usage, ``interrupt(played_ms)`` for barge-in.

Does not own: the voice loop in realtime mode (``genx.agentkit``), running the
tools (the caller does), provider defaults (the kinds table,
:mod:`genx.generators.provider_kinds`), audio devices.
"""

from genx.transformers.realtime.events import Dialect
from genx.transformers.realtime.session import RealtimeSessionStream, RealtimeTransformer, tool_result_chunk
from genx.transformers.realtime.settings import RealtimeSettings

__all__ = ["Dialect", "RealtimeSessionStream", "RealtimeSettings", "RealtimeTransformer", "tool_result_chunk"]
