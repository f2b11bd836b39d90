"""A scripted stand-in for the voice loop: records the commands it gets and publishes the events a test asks for."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from app.ui.app_controller import AppController

from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    ConversationStarted,
    Event,
    EventBus,
    LoopState,
    Mode,
    ModeChanged,
    MuteChanged,
    SpeechEnded,
    SpeechStarted,
    StateChanged,
    TurnMetrics,
    UserFinal,
)


@dataclass
class FakeLoop:
    """Implements :class:`genx.agentkit.events.LoopControl`; ``answer`` is what typed messages get back."""

    answer: str = "Hello there. How can I help?"
    bus: EventBus = field(default_factory=EventBus)
    state: LoopState = LoopState.LISTENING
    mode: Mode = Mode.PUSH_TO_TALK
    muted: bool = False
    generator_name: str = "offline/smollm2"
    conversation_id: str = "20250101-120000-aaaaaa"
    commands: list[tuple[str, tuple[object, ...]]] = field(default_factory=list)
    closed: bool = False
    close_gate: asyncio.Event | None = None  # set: aclose waits for it (a slow close: devices, the store)
    close_completed: bool = False  # aclose ran to its end (not cancelled half way)
    close_started: asyncio.Event = field(default_factory=asyncio.Event)
    ptt_open: bool = False
    _turn: int = 0

    # -- LoopControl -------------------------------------------------------------------------------------------
    def push_to_talk_down(self) -> None:
        self.commands.append(("push_to_talk_down", ()))
        self.ptt_open = True
        self._turn += 1
        self.emit(SpeechStarted(turn_id=self.turn_id))
        self.set_state(LoopState.HEARING)

    def push_to_talk_up(self) -> None:
        self.commands.append(("push_to_talk_up", ()))
        self.ptt_open = False
        self.emit(SpeechEnded(turn_id=self.turn_id))
        self.set_state(LoopState.THINKING)

    def set_mode(self, mode: Mode | str) -> None:
        self.commands.append(("set_mode", (mode,)))
        self.mode = Mode.parse(mode)
        self.emit(ModeChanged(mode=self.mode))

    def stop_speaking(self) -> None:
        self.commands.append(("stop_speaking", ()))

    def send_text(self, text: str) -> None:
        self.commands.append(("send_text", (text,)))
        self._turn += 1
        self.emit(UserFinal(turn_id=self.turn_id, text=text, typed=True))
        self.speak_answer(self.answer)

    def new_conversation(self) -> None:
        self.commands.append(("new_conversation", ()))
        self.conversation_id = f"20250101-120000-{self._turn:06d}"
        self.emit(ConversationStarted(conversation_id=self.conversation_id))

    def load_conversation(self, conversation_id: str) -> None:
        self.commands.append(("load_conversation", (conversation_id,)))
        self.conversation_id = conversation_id
        self.emit(ConversationStarted(conversation_id=conversation_id))

    def mute(self, muted: bool) -> None:
        self.commands.append(("mute", (muted,)))
        self.muted = muted
        self.emit(MuteChanged(muted=muted))

    def set_generator(self, name: str) -> None:
        self.commands.append(("set_generator", (name,)))
        self.generator_name = name

    async def aclose(self) -> None:
        self.commands.append(("aclose", ()))
        self.closed = True
        self.close_started.set()
        if self.close_gate is not None:
            await self.close_gate.wait()
        self.bus.close()
        self.close_completed = True

    # -- scripting ---------------------------------------------------------------------------------------------
    @property
    def turn_id(self) -> str:
        return f"t{self._turn}"

    def names(self) -> list[str]:
        return [c[0] for c in self.commands]

    def emit(self, ev: Event) -> None:
        self.bus.publish(ev)

    def set_state(self, state: LoopState) -> None:
        prev, self.state = self.state, state
        self.emit(StateChanged(state=state, previous=prev))

    def speak_answer(self, text: str, *, cut_after_words: int | None = None) -> None:
        """Stream ``text`` (deltas), speak it word by word and finish; cut it (barge-in) after ``cut_after_words``."""
        tid = self.turn_id
        self.set_state(LoopState.THINKING)
        for word in text.split(" "):
            self.emit(AssistantDelta(turn_id=tid, text=word + " " if word != text.split(" ")[-1] else word))
        self.set_state(LoopState.SPEAKING)
        words = text.split(" ")
        n = len(words) if cut_after_words is None else cut_after_words
        for i in range(1, n + 1):
            self.emit(AssistantSpoken(turn_id=tid, spoken_text=" ".join(words[:i])))
        spoken = " ".join(words[:n])
        if cut_after_words is not None:
            self.emit(BargeIn(turn_id=tid, latency_ms=42.0))
            self.set_state(LoopState.INTERRUPTED)
            self.emit(AssistantDone(turn_id=tid, text=text, interrupted=True, spoken_text=spoken))
        else:
            self.emit(AssistantDone(turn_id=tid, text=text, interrupted=False, spoken_text=spoken))
        self.emit(TurnMetrics(turn_id=tid, asr_ms=120.0, llm_first_token_ms=210.0, tts_first_audio_ms=90.0, playout_ms=30.0, v2v_ms=450.0))
        self.set_state(LoopState.LISTENING)


class FakeFactory:
    """A LoopFactory handing out FakeLoops; ``fail_voice`` makes voice builds raise it (text-only builds succeed).

    ``gate``: every build waits for it (a slow model load the test releases); ``started`` is set when a build
    is waiting there; a build cancelled while waiting is counted in ``cancelled``."""

    def __init__(
        self,
        *,
        fail_voice: Exception | None = None,
        fail_always: Exception | None = None,
        delay: float = 0.0,
        gate: asyncio.Event | None = None,
    ) -> None:
        self.fail_voice = fail_voice
        self.fail_always = fail_always
        self.delay = delay
        self.gate = gate
        self.started = asyncio.Event()
        self.cancelled = 0
        self.builds: list[tuple[object, bool]] = []
        self.loops: list[FakeLoop] = []

    async def build(self, settings: object, *, progress: object, voice: bool) -> FakeLoop:
        self.builds.append((settings, voice))
        progress("Loading the offline models…", 0.5)  # type: ignore[operator]
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.gate is not None:
            self.started.set()
            try:
                await self.gate.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
        if self.fail_always is not None:
            raise self.fail_always
        if voice and self.fail_voice is not None:
            raise self.fail_voice
        mode = getattr(getattr(settings, "loop", None), "mode", "push-to-talk")
        loop = FakeLoop(mode=Mode.parse(mode))
        self.loops.append(loop)
        return loop


class FakeAudioTools:
    """Devices for the settings dialog without PortAudio."""

    def __init__(self, inputs: list[str] | None = None, outputs: list[str] | None = None, error: Exception | None = None) -> None:
        self.inputs = inputs if inputs is not None else ["Built-in Microphone", "USB Headset"]
        self.outputs = outputs if outputs is not None else ["Built-in Speakers", "USB Headset"]
        self.error = error
        self.tones: list[str | None] = []
        self.checks: list[str | None] = []

    def list_devices(self, direction: str) -> list[str]:
        if self.error is not None:
            raise self.error
        return list(self.inputs if direction == "input" else self.outputs)

    async def test_tone(self, device: str | None) -> None:
        self.tones.append(device)

    async def mic_check(self, device: str | None, on_level: object, seconds: float) -> float:
        self.checks.append(device)
        for level in (0.1, 0.6, 0.3):
            on_level(level)  # type: ignore[operator]
        return 0.6


def make_controller(tmp_path: Path, window_state: QSettings, factory: FakeFactory | None = None, **kw: object) -> AppController:
    """An AppController on fakes: no preflight, the factory given (default a FakeFactory), files under tmp_path."""
    from app.settings import Settings
    from app.ui.app_controller import AppController
    from genx.agentkit.store import ConversationStore

    kw.setdefault("preflight_check", lambda s: [])
    return AppController(
        kw.pop("settings", Settings()),  # type: ignore[arg-type]
        config_path=tmp_path / "config.toml",
        factory=factory if factory is not None else FakeFactory(),
        store=kw.pop("store", ConversationStore(tmp_path / "conversations")),  # type: ignore[arg-type]
        window_state=window_state,
        audio_tools=FakeAudioTools(),
        **kw,  # type: ignore[arg-type]
    )
