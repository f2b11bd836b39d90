"""Wires the main window to the voice loop: window intents become loop commands, loop events become view updates.

Invariants:
* the loop is optional: until one is attached (models still loading), typed messages wait in a queue and are
  shown as pending; they are sent, in order, as soon as a loop is attached;
* one user bubble and one assistant bubble per ``turn_id``: partials, finals, deltas and spoken text of a turn
  always land in the same bubble, whatever order they arrive in;
* an assistant bubble ends showing only the heard text when the answer was interrupted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.ui.loop_port import call_command
from app.ui.main_window import MainWindow
from app.ui.widgets.chat_view import AssistantBubble, UserBubble
from app.ui.widgets.conversation_list import ConversationEntry
from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    ConversationStarted,
    Event,
    GeneratorChanged,
    InputLevel,
    LoopControl,
    LoopError,
    LoopState,
    Mode,
    ModeChanged,
    MuteChanged,
    SpeechEnded,
    SpeechStarted,
    StateChanged,
    TurnMetrics,
    TurnReopened,
    UserFinal,
    UserPartial,
    WakeChanged,
)
from genx.agentkit.store import ConversationStore, ConversationStoreError, TurnRecord

log = logging.getLogger(__name__)

LEVEL_FLOOR_DBFS = -60.0


def level_from_dbfs(dbfs: float) -> float:
    """dBFS (−120…0) → meter fraction 0…1 over the useful −60…0 dB range."""
    return min(1.0, max(0.0, (dbfs - LEVEL_FLOOR_DBFS) / -LEVEL_FLOOR_DBFS))


@dataclass(slots=True)
class _Turn:
    user: UserBubble | None = None
    assistant: AssistantBubble | None = None


class Presenter(QObject):
    """Connects one :class:`MainWindow` to at most one loop at a time (see :meth:`attach`)."""

    state_changed = Signal(str)  # the loop state as shown (for tests / tray)
    turn_finished = Signal(str)  # turn_id after AssistantDone
    error_shown = Signal(str)

    def __init__(self, window: MainWindow, *, store: ConversationStore | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent or window)
        self.window = window
        self.store = store
        self.loop: LoopControl | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._turns: dict[str, _Turn] = {}
        self._wake_hint = ""  # with a wake word, while asleep: what to say
        self._pending_typed: list[tuple[str, UserBubble]] = []
        self._conversation_id = ""
        self._voice_reason = "Loading voice…"
        self._tasks: set[asyncio.Task[Any]] = set()
        w = window
        w.talk_pressed.connect(self.on_talk_pressed)
        w.talk_released.connect(self.on_talk_released)
        w.text_submitted.connect(self.on_text)
        w.hands_free_toggled.connect(lambda on: self._command("set_mode", Mode.HANDS_FREE if on else Mode.PUSH_TO_TALK))
        w.mute_toggled.connect(lambda muted: self._command("mute", muted))
        w.stop_requested.connect(lambda: self._command("stop_speaking"))
        w.new_conversation_requested.connect(self.on_new_conversation)
        w.conversation_opened.connect(self.open_conversation)
        w.set_voice_available(False, self._voice_reason)
        w.state_indicator.set_state("loading")

    # -- loop attachment ---------------------------------------------------------------------------------------
    def attach(self, loop: LoopControl, *, voice: bool = True, reason: str = "") -> None:
        """Drive ``loop`` from now on (replacing any earlier one); ``voice`` False keeps the talk controls off."""
        self.detach()
        self.loop = loop
        self._unsubscribe = loop.bus.subscribe(self.handle)
        w = self.window
        w.set_mode_checked(loop.mode == Mode.HANDS_FREE)
        w.set_muted_checked(loop.muted)
        w.generator_label.setText(_generator_words(loop.generator_name))
        self._conversation_id = loop.conversation_id
        self._show_state(LoopState(loop.state))
        self.set_voice_available(voice, reason)
        for text, _bubble in self._pending_typed:
            call_command(loop, "send_text", text)
        self.refresh_conversations()

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.loop = None

    def set_voice_available(self, available: bool, reason: str = "") -> None:
        self._voice_reason = reason
        self.window.set_voice_available(available and self.loop is not None, reason)

    # -- intents -----------------------------------------------------------------------------------------------
    def _command(self, name: str, *args: Any) -> bool:
        if self.loop is None:
            return False
        return call_command(self.loop, name, *args)

    def on_talk_pressed(self) -> None:
        self._command("push_to_talk_down")

    def on_talk_released(self) -> None:
        self._command("push_to_talk_up")

    def on_text(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        # Shown greyed until the loop's UserFinal(typed=True) adopts it.
        bubble = self.window.chat.add_user(text, partial=True)
        self._pending_typed.append((text, bubble))
        if self.loop is None:
            self.window.statusBar().showMessage("Your message will be answered as soon as the model has loaded.", 8000)
            return
        call_command(self.loop, "send_text", text)

    def on_new_conversation(self) -> None:
        if self.loop is None:
            self.window.chat.clear()
            self._turns.clear()
            return
        self._command("new_conversation")

    # -- events ------------------------------------------------------------------------------------------------
    def handle(self, ev: Event) -> None:
        w = self.window
        if isinstance(ev, InputLevel):
            level = level_from_dbfs(ev.dbfs)
            w.state_indicator.meter.set_level(level)
            w.talk_button.set_level(level)
        elif isinstance(ev, StateChanged):
            self._show_state(ev.state, ev.reason)
        elif isinstance(ev, SpeechStarted):
            self._user_bubble(ev.turn_id)
        elif isinstance(ev, UserPartial):
            self._user_bubble(ev.turn_id).set_partial(ev.text)
        elif isinstance(ev, UserFinal):
            self._on_user_final(ev)
        elif isinstance(ev, SpeechEnded):
            pass
        elif isinstance(ev, TurnReopened):
            self._on_reopened(ev)
        elif isinstance(ev, AssistantDelta):
            self._assistant_bubble(ev.turn_id).append(ev.text)
        elif isinstance(ev, AssistantSpoken):
            self._assistant_bubble(ev.turn_id).set_spoken(ev.spoken_text)
        elif isinstance(ev, AssistantDone):
            self._on_done(ev)
        elif isinstance(ev, BargeIn):
            w.state_indicator.set_state("interrupted", f"cut in {ev.latency_ms:.0f} ms")
        elif isinstance(ev, TurnMetrics):
            w.metrics_panel.add_turn(ev)
        elif isinstance(ev, LoopError):
            self._on_error(ev)
        elif isinstance(ev, ModeChanged):
            w.set_mode_checked(ev.mode == Mode.HANDS_FREE)
        elif isinstance(ev, MuteChanged):
            w.set_muted_checked(ev.muted)
            if self.loop is not None:
                self._show_state(LoopState(self.loop.state))
        elif isinstance(ev, GeneratorChanged):
            w.generator_label.setText(_generator_words(ev.name))
        elif isinstance(ev, WakeChanged):
            self._wake_hint = "" if ev.awake else f"say “{ev.phrase}”"
            if self.loop is not None:
                self._show_state(LoopState(self.loop.state))
        elif isinstance(ev, ConversationStarted):
            self._conversation_id = ev.conversation_id
            w.chat.clear()
            self._turns.clear()
            self._pending_typed.clear()
            self.refresh_conversations()

    def _show_state(self, state: LoopState, reason: str = "") -> None:
        w = self.window
        shown = str(state)
        if self.loop is not None and self.loop.muted and state in (LoopState.IDLE, LoopState.LISTENING):
            shown = "muted"
        detail = reason if state == LoopState.ERROR else self._wake_hint if shown == "idle" else ""
        w.state_indicator.set_state(shown, detail)
        w.talk_button.set_state(shown)
        w.set_speaking(state in (LoopState.THINKING, LoopState.SPEAKING))
        if state not in (LoopState.LISTENING, LoopState.HEARING):
            w.talk_button.set_level(0.0)
        self.state_changed.emit(shown)

    def _user_bubble(self, turn_id: str) -> UserBubble:
        t = self._turns.setdefault(turn_id, _Turn())
        if t.user is None:
            t.user = self.window.chat.add_user("", partial=True)
        return t.user

    def _assistant_bubble(self, turn_id: str) -> AssistantBubble:
        t = self._turns.setdefault(turn_id, _Turn())
        if t.assistant is None:
            t.assistant = self.window.chat.add_assistant()
        return t.assistant

    def _on_user_final(self, ev: UserFinal) -> None:
        t = self._turns.setdefault(ev.turn_id, _Turn())
        if ev.typed and t.user is None:
            for i, (text, bubble) in enumerate(self._pending_typed):
                if text == ev.text.strip() or text == ev.text:
                    t.user = bubble
                    del self._pending_typed[i]
                    break
        self._user_bubble(ev.turn_id).set_final(ev.text)

    def _on_reopened(self, ev: TurnReopened) -> None:
        """The user went on before hearing the answer: its bubble goes, the user's words stay open."""
        t = self._turns.get(ev.turn_id)
        if t is None:
            return
        if t.assistant is not None:
            self.window.chat.remove(t.assistant)
            t.assistant = None
        if t.user is not None:
            t.user.set_partial(t.user.text() + " …")

    def _on_done(self, ev: AssistantDone) -> None:
        t = self._turns.get(ev.turn_id)
        if t is None or t.assistant is None:
            if not ev.text and not ev.spoken_text and not ev.error:
                return  # an answer that never started: nothing to show
        bubble = self._assistant_bubble(ev.turn_id)
        if not bubble.generated_text() and ev.text:
            bubble.append(ev.text)
        note = f"Stopped: {ev.error}" if ev.error else ""
        bubble.finish(interrupted=ev.interrupted, spoken_text=ev.spoken_text, note=note)
        self.turn_finished.emit(ev.turn_id)
        self.refresh_conversations()

    def audio_event(self, ev: Any) -> None:
        """A device event (``app.audio.AudioEvent``): losses, the default standing in and returns are shown."""
        kind = getattr(ev, "kind", "")
        if kind not in ("device_lost", "fallback", "returned", "reopened"):
            return
        what = "Microphone" if ev.direction == "input" else "Speaker"
        words = f"{what}: {ev.message}" if kind != "device_lost" else f"{what} {ev.device} was lost ({ev.message})"
        self.window.chat.add_notice(words, error=kind in ("device_lost", "fallback"))
        self.window.statusBar().showMessage(words, 10_000)
        if kind in ("device_lost", "fallback"):
            self.error_shown.emit(words)

    def _on_error(self, ev: LoopError) -> None:
        words = _error_words(ev)
        self.window.chat.add_notice(words, error=True)
        if not ev.recoverable:
            self.window.state_indicator.set_state("error", ev.message)
        self.window.statusBar().showMessage(words, 10_000)
        self.error_shown.emit(words)

    # -- conversations -----------------------------------------------------------------------------------------
    def refresh_conversations(self) -> None:
        """Reload the sidebar from the store (file I/O in a worker thread)."""
        if self.store is None:
            return
        self._spawn(self._refresh())

    async def _refresh(self) -> None:
        assert self.store is not None
        infos = await asyncio.to_thread(self.store.list_conversations)
        entries = [ConversationEntry(i.conversation_id, i.title or "(no words yet)", datetime.fromtimestamp(i.mtime)) for i in infos]
        self.window.sidebar.set_entries(entries, self._conversation_id)

    def open_conversation(self, conversation_id: str) -> None:
        """Show a stored conversation and let the loop continue it (its turns become the history)."""
        if self.store is None:
            return
        self._spawn(self._open(conversation_id))

    async def _open(self, conversation_id: str) -> None:
        assert self.store is not None
        try:
            records, problems = await asyncio.to_thread(self.store.load_with_errors, conversation_id)
        except ConversationStoreError as e:
            self.window.chat.add_notice(str(e), error=True)
            return
        resumable = self.loop is not None and hasattr(self.loop, "load_conversation")
        if resumable:
            call_command(self.loop, "load_conversation", conversation_id)
        self._conversation_id = conversation_id
        self.show_records(records)
        if problems:
            n = len(problems)
            self.window.chat.add_notice(
                f"{n} damaged line{'s' if n != 1 else ''} of this conversation could not be read and {'were' if n != 1 else 'was'} skipped "
                f"(details in the log).",
                error=True,
            )
        if not resumable:
            self.window.chat.add_notice("This past conversation is shown read-only until the voice loop is ready.")
        self.window.sidebar.mark_current(conversation_id)

    def show_records(self, records: list[TurnRecord]) -> None:
        chat = self.window.chat
        chat.clear()
        self._turns.clear()
        for r in records:
            if r.user_text:
                chat.add_user(r.user_text)
            if r.assistant_text or r.generated_text:
                b = chat.add_assistant()
                b.append(r.generated_text or r.assistant_text)
                b.finish(interrupted=r.interrupted, spoken_text=r.assistant_text, note=f"Stopped: {r.error}" if r.error else "")

    def _spawn(self, coro: Any) -> None:
        try:
            task = asyncio.ensure_future(coro)
        except RuntimeError:  # no running asyncio loop (plain Qt tests): run nothing rather than crash
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("conversation list task failed", exc_info=task.exception())

    async def drain(self) -> None:
        """Wait for the store tasks started so far (used at shutdown and by tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _generator_words(name: str) -> str:
    return f"Model: {name}" if name else ""


_KIND_WORDS = {
    "device": "Audio device problem",
    "asr": "Speech recognition failed",
    "generator": "The model could not answer",
    "tts": "Speech synthesis failed",
    "player": "Playback failed",
    "store": "Could not save the conversation",
    "config": "Settings problem",
    "input": "Didn't catch that",
    "internal": "Something went wrong",
}


def _error_words(ev: LoopError) -> str:
    head = _KIND_WORDS.get(str(ev.kind), "Error")
    return f"{head}: {ev.message}" if ev.message else head
