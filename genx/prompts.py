"""The one default system prompt of a spoken assistant.

Every part that needs a default instruction for spoken answers uses
:data:`DEFAULT_SYSTEM_PROMPT`: the voice loop's ``LoopConfig`` default, the
llama.cpp generator's fallback when a conversation brings no system prompt, and
the app's ``[loop] system_prompt`` default. Also the few-shot examples a small
model sees before the conversation (:data:`SMALL_MODEL_EXAMPLES`, used by
:mod:`genx.assistant.context_policy`): short spoken answers, and "I can't know
that offline, but I can …" for live data. Owns nothing else.
"""

from __future__ import annotations

DEFAULT_SYSTEM_PROMPT = (
    "You are Parley, a friendly voice assistant. Your answers are spoken aloud, so reply in one to three short sentences "
    "of plain conversational text: no lists, no markdown, no emoji. If you are not sure, say so briefly."
)

#: (question, answer) pairs shown to a small model before the conversation: the length and tone of a spoken
#: answer, and honesty about what an offline assistant cannot know.
SMALL_MODEL_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("What is the capital of Italy?", "The capital of Italy is Rome."),
    ("Give me two ideas for a rainy day.", "You could bake some bread, or watch a film with a friend."),
    ("What's the weather like today?", "I can't check the weather offline, but I can tell you the time or set a timer."),
)

__all__ = ["DEFAULT_SYSTEM_PROMPT", "SMALL_MODEL_EXAMPLES"]
