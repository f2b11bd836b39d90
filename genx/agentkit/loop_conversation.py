"""Which conversation a running voice loop is in: a new one, or a stored one continued.

Owns the switch itself (the answer stopped, a collecting turn dropped, push-to-talk released, the history
replaced, the prompt prefilled again, ``ConversationStarted``). Not the store's format (:mod:`.store`) nor the
history's (:mod:`.history`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from genx.agentkit.events import ConversationStarted, ErrorKind
from genx.agentkit.store import ConversationStoreError, new_conversation_id, next_turn_seq
from genx.errors import GenxError

if TYPE_CHECKING:
    from genx.agentkit.loop import VoiceLoop


def start_new(loop: VoiceLoop) -> None:
    """End whatever is going on and start an empty conversation with a fresh id."""
    core = loop.core
    (loop.live or loop.turns).stop_answer(None, "new conversation")
    if loop.live is not None:
        loop.spawn(loop.live.restart(), "voice-loop-realtime-restart")  # the provider's context is the old one
    dropped = loop.turns.abandon_collecting("new conversation")
    if dropped is not None:
        loop.router.forget_turn(dropped)
    if loop.push_to_talk_open:
        loop.push_to_talk_up()
    loop.recorder.history.clear()
    loop.recorder.schedule_prefill()
    core.conversation_id = new_conversation_id()
    core.emit(ConversationStarted(conversation_id=core.conversation_id))
    core.settle("new conversation")


async def continue_stored(loop: VoiceLoop, conversation_id: str) -> None:
    """Continue a stored conversation (its turns become the history); the file is read on a worker thread.

    A file that cannot be read is a ``STORE`` error and the current conversation goes on untouched.
    """
    core = loop.core
    store = loop.recorder.store
    if store is None:
        core.error(ErrorKind.STORE, "no conversation store configured")
        return
    try:
        records = await asyncio.to_thread(store.load, conversation_id)
    except (ConversationStoreError, GenxError, OSError) as e:
        core.error(ErrorKind.STORE, str(e))
        return
    if not core.running:
        return
    start_new(loop)
    core.conversation_id = conversation_id
    loop.turns.continue_numbering(next_turn_seq(records))
    loop.recorder.history.add_records(records)
    loop.recorder.schedule_prefill()
    core.emit(ConversationStarted(conversation_id=conversation_id))


__all__ = ["continue_stored", "start_new"]
