"""The voice loop's command surface: :class:`LoopControl`, what a window or a terminal front end calls.

Commands are plain methods, safe to call from the event-loop thread at any time;
they never block and report failures as :class:`~genx.agentkit.events.LoopError`
events instead of raising. Does not own the events (:mod:`.events`) or the bus
(:mod:`.event_bus`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from genx.agentkit.event_bus import EventBus
    from genx.agentkit.events import LoopState, Mode


@runtime_checkable
class LoopControl(Protocol):
    """Commands a front end may send to the running voice loop (event-loop thread)."""

    @property
    def bus(self) -> EventBus: ...

    @property
    def state(self) -> LoopState: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def muted(self) -> bool: ...

    @property
    def generator_name(self) -> str: ...

    @property
    def conversation_id(self) -> str: ...

    def push_to_talk_down(self) -> None:
        """Open an utterance (and barge in if the assistant is speaking); any mode."""
        ...

    def push_to_talk_up(self) -> None:
        """Close the utterance opened by :meth:`push_to_talk_down`; the turn ends."""
        ...

    def set_mode(self, mode: Mode | str) -> None: ...

    def stop_speaking(self) -> None:
        """Cut the current answer like a barge-in (history keeps what was heard)."""
        ...

    def send_text(self, text: str) -> None:
        """A typed user message: starts a turn without speech (cuts a running answer)."""
        ...

    def new_conversation(self) -> None:
        """Cut any answer, forget the history and start a new conversation file."""
        ...

    def mute(self, muted: bool) -> None:
        """Muted: the microphone is ignored (no VAD, no barge-in); typed messages still work."""
        ...

    def set_generator(self, name: str) -> None:
        """Answer the next turns with the generator ``name`` (a LoopError when unknown)."""
        ...


__all__ = ["LoopControl"]
