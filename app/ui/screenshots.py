"""Render the README screenshots (main window light and dark, settings dialog) offscreen.

``python -m app.ui.screenshots [OUT_DIR]`` (default ``docs/screenshots``). Uses a scripted conversation, a
temporary conversation store and fake device names; nothing touches the user's files or audio devices.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from app.settings import Settings
from app.ui.main_window import MainWindow
from app.ui.presenter import Presenter
from app.ui.theme import apply_theme
from app.ui.widgets.conversation_list import ConversationEntry
from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    EventBus,
    InputLevel,
    LoopState,
    Mode,
    SpeechStarted,
    StateChanged,
    TurnMetrics,
    UserFinal,
    UserPartial,
)


class DemoLoop:
    """Just enough of LoopControl for a picture."""

    def __init__(self) -> None:
        self.bus = EventBus()
        self.state = LoopState.LISTENING
        self.mode = Mode.PUSH_TO_TALK
        self.muted = False
        self.generator_name = "offline/smollm2"
        self.conversation_id = "c3"

    def emit(self, ev: object) -> None:
        self.bus.publish(ev)  # type: ignore[arg-type]

    def state_to(self, s: LoopState) -> None:
        prev, self.state = self.state, s
        self.emit(StateChanged(state=s, previous=prev))


def script(loop: DemoLoop) -> None:
    def answer(tid: str, text: str, cut_at: int | None = None) -> None:
        words = text.split(" ")
        for i, w in enumerate(words):
            loop.emit(AssistantDelta(turn_id=tid, text=w if i == 0 else " " + w))
        n = len(words) if cut_at is None else cut_at
        loop.emit(AssistantSpoken(turn_id=tid, spoken_text=" ".join(words[:n])))
        if cut_at is not None:
            loop.emit(BargeIn(turn_id=tid, latency_ms=38.0))
        loop.emit(AssistantDone(turn_id=tid, text=text, interrupted=cut_at is not None, spoken_text=" ".join(words[:n])))

    loop.emit(SpeechStarted(turn_id="t1"))
    loop.emit(UserFinal(turn_id="t1", text="What's a good name for a sleepy orange cat?"))
    answer("t1", "How about Marmalade? It sounds warm and a little drowsy, just like an orange cat in the sun.")
    loop.emit(UserFinal(turn_id="t2", text="Tell me a short story about her.", typed=True))
    answer(
        "t2",
        "Marmalade spent every afternoon on the windowsill, chasing sunbeams across the floor, "
        "until the neighbour's dog barked and she leapt straight into the laundry basket.",
        cut_at=11,
    )
    loop.emit(TurnMetrics(turn_id="t2", asr_ms=412.0, llm_first_token_ms=268.0, tts_first_audio_ms=305.0, playout_ms=24.0, v2v_ms=1032.0))
    loop.emit(SpeechStarted(turn_id="t3"))
    loop.emit(UserPartial(turn_id="t3", text="actually, what do cats dream"))
    loop.state_to(LoopState.HEARING)
    loop.emit(InputLevel(dbfs=-17.0))


def render(out: Path) -> list[Path]:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    now = time.time()
    from datetime import datetime

    entries = [
        ConversationEntry("c3", "What's a good name for a sleepy orange cat?", datetime.fromtimestamp(now - 60)),
        ConversationEntry("c2", "How long should I boil an egg for a runny yolk?", datetime.fromtimestamp(now - 3 * 3600)),
        ConversationEntry("c1", "Remind me what the capital of Australia is", datetime.fromtimestamp(now - 5 * 86400)),
        ConversationEntry("c0", "Explain how a rainbow forms, simply", datetime.fromtimestamp(now - 40 * 86400)),
    ]
    for scheme in ("light", "dark"):
        apply_theme(app, scheme)  # type: ignore[arg-type]
        w = MainWindow()
        p = Presenter(w)
        loop = DemoLoop()
        p.attach(loop)  # type: ignore[arg-type]
        script(loop)
        w.sidebar.set_entries(entries, "c3")
        w.metrics_action.setChecked(True)
        w.set_progress("Ready — hold Space to talk, or type.", None)
        w.resize(1200, 740)
        w.show()
        for _ in range(30):
            app.processEvents()
        path = out / f"main-window-{scheme}.png"
        w.grab().save(str(path))
        written.append(path)
        w.allow_close = True
        w.close()
        p.detach()
        w.deleteLater()
        app.processEvents()

    apply_theme(app, "light")
    from app.ui.settings_dialog import SettingsDialog

    class Devices:
        def list_devices(self, direction: str) -> list[str]:
            return ["Built-in Microphone", "USB Headset"] if direction == "input" else ["Built-in Speakers", "USB Headset"]

        async def test_tone(self, device: str | None) -> None:
            return None

        async def mic_check(self, device: str | None, on_level: object, seconds: float) -> float:
            return 0.0

    settings = Settings.model_validate(
        {
            "audio": {"input_device": "USB Headset"},
            "providers": {"openai": {"kind": "openai-chat", "api_key": {"keyring": "parley/openai"}}},
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        d = SettingsDialog(settings, config_path=Path("~/.config/parley/config.toml"), audio=Devices())  # type: ignore[arg-type]
        d.mic_meter.set_level(0.55)
        d.mic_status.setText("The microphone works.")
        d.show()
        for _ in range(10):
            app.processEvents()
        for index, name in ((0, "settings-audio"), (1, "settings-conversation")):
            d.tabs.setCurrentIndex(index)
            for _ in range(10):
                app.processEvents()
            path = out / f"{name}.png"
            d.grab().save(str(path))
            written.append(path)
        d.close()
        d.deleteLater()
        app.processEvents()
        del tmp
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")
    for p in render(target):
        print(p)
