"""Parley's long-term memory: facts the user told, kept on this machine, recalled when relevant.

Owns: the fact store (:mod:`.store`: SQLite with WAL and FTS5 in the user
data dir; the file, its errors and transactions in :mod:`.db`, the records in
:mod:`.facts`, schema migrations in :mod:`.schema`), the attribute vocabulary
(:mod:`.vocabulary`), deterministic extraction (:mod:`.rules`) and explicit
requests (:mod:`.intents`), model extraction through a segmentor and a
profiler (:mod:`.extract`), recall within a token budget (:mod:`.recall`), where recalled facts go in
an answer's context (:mod:`.context`) and
the service the voice loop calls (:mod:`.service`; what it returns and counts in :mod:`.results`).

The API the loop uses (see :class:`Memory`)::

    memory = Memory(path=None, enabled=True, extractor=ModelExtractor(segmentor, profiler))
    ans = await memory.start_answer(user_text, turn_id=…, conversation_id=…)   # answer start
    ctx = ans.in_context(history_ctx)             # the facts as a system message before the user's words
    …
    memory.after_turn(TurnInfo(user_text, turn_id, conversation_id, at))         # after the turn is stored
    await memory.aclose()

Does not own: the generators, segmentors, profilers or labelers it is given
(``genx.generators``, ``genx.segmentors`` …), the conversation history
(``genx.agentkit``), the UI. Nothing here writes a fact's words to a log.
"""

from genx.memory.context import memory_note, with_memory
from genx.memory.extract import ModelExtractor
from genx.memory.intents import Intent, match_intent
from genx.memory.recall import Recalled, Recaller
from genx.memory.service import Memory, MemoryAnswer, TurnInfo
from genx.memory.store import (
    Fact,
    MemoryFullError,
    MemoryLockedError,
    MemoryStore,
    MemoryStoreError,
    MemoryVersionError,
    NewFact,
    default_path,
)

__all__ = [
    "Fact",
    "Intent",
    "Memory",
    "MemoryAnswer",
    "MemoryFullError",
    "MemoryLockedError",
    "MemoryStore",
    "MemoryStoreError",
    "MemoryVersionError",
    "ModelExtractor",
    "NewFact",
    "Recalled",
    "Recaller",
    "TurnInfo",
    "default_path",
    "match_intent",
    "memory_note",
    "with_memory",
]
