"""The one default system prompt of a spoken assistant.

Every part that needs a default instruction for spoken answers uses
:data:`DEFAULT_SYSTEM_PROMPT`: the voice loop's ``LoopConfig`` default, the
llama.cpp generator's fallback when a conversation brings no system prompt, and
the app's ``[loop] system_prompt`` default. Owns nothing else.
"""

from __future__ import annotations

DEFAULT_SYSTEM_PROMPT = (
    "You are Parley, a friendly voice assistant. Your answers are spoken aloud, so reply in one to three short sentences "
    "of plain conversational text: no lists, no markdown, no emoji. If you are not sure, say so briefly."
)

__all__ = ["DEFAULT_SYSTEM_PROMPT"]
