"""The window on the real offline stack: PulseAudio virtual devices, Whisper, SmolLM2 (llama.cpp), Piper.

The question is spoken by espeak-ng into the virtual microphone while the talk button is held; the answer
plays on the virtual speaker. Then a typed question is cut with the Space hotkey (barge-in) and another is cut
by quitting. Hang guards only; latencies are the bench's business.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).parents[1]))
from pulse import PA_MIC, PA_SPEAKER, PulseServer

from app.settings import Settings
from app.ui.app_controller import AppController
from app.ui.voice_factory import VoiceLoopFactory
from app.ui.widgets.chat_view import AssistantBubble, UserBubble
from genx.agentkit.events import AssistantDone, BargeIn, Event, LoopState, StateChanged, UserFinal
from genx.agentkit.store import ConversationStore

from .conftest import run

pytestmark = [pytest.mark.gui, pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(400)]


def espeak_wav(text: str, path: Path) -> Path:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(path), text], check=True, capture_output=True)
    return path


async def wait_for(pred: Any, limit_s: float, what: str, events: list[Event]) -> None:
    deadline = asyncio.get_running_loop().time() + limit_s
    while not pred():
        if asyncio.get_running_loop().time() > deadline:
            recent = [type(e).__name__ for e in events if type(e).__name__ != "InputLevel"][-25:]
            raise AssertionError(f"timed out after {limit_s:.0f} s waiting for {what}; recent events: {recent}")
        await asyncio.sleep(0.05)


def test_talking_typing_barge_in_and_quitting_on_the_real_offline_stack(
    pulse_env: PulseServer, aloop: asyncio.AbstractEventLoop, tmp_path: Path, window_state: Any, qtbot: Any
) -> None:
    pulse_env.activate()
    question = espeak_wav("What is the capital of France?", tmp_path / "q.wav")
    store = ConversationStore(tmp_path / "conversations")
    settings = Settings.model_validate(
        {"audio": {"input_device": PA_MIC, "output_device": PA_SPEAKER}, "loop": {"mode": "push-to-talk", "end_of_turn_silence_ms": 500}}
    )
    c = AppController(
        settings,
        config_path=tmp_path / "config.toml",
        factory=VoiceLoopFactory(store=store),
        store=store,
        window_state=window_state,
    )
    qtbot.addWidget(c.window)
    events: list[Event] = []
    w = c.window

    def done_count() -> int:
        return sum(isinstance(e, AssistantDone) for e in events)

    def speaking() -> bool:
        return any(isinstance(e, StateChanged) and e.state is LoopState.SPEAKING for e in events[mark:])

    async def scenario() -> int:
        nonlocal mark
        runner = asyncio.ensure_future(c.run())
        await wait_for(lambda: c.loop is not None or runner.done(), 240, "the models to load", events)
        assert c.loop is not None, "the voice loop did not start"
        assert w.talk_button.isEnabled(), "voice should be ready on the virtual devices"
        c.loop.bus.subscribe(events.append)
        conversation = c.loop.conversation_id

        # 1. Hold the talk button while the question is spoken into the microphone.
        qtbot.mousePress(w.talk_button, Qt.MouseButton.LeftButton)
        play = pulse_env.play_into_mic(question)
        await asyncio.to_thread(play.wait, 30)
        await asyncio.sleep(0.4)
        qtbot.mouseRelease(w.talk_button, Qt.MouseButton.LeftButton)
        await wait_for(lambda: done_count() >= 1, 180, "the spoken answer", events)

        # 2. Type a question that makes a long answer and cut it with the Space hotkey.
        mark = len(events)
        w.composer.setText("Tell me a long story about a brave little dragon who lived in the mountains.")
        w.send_button.click()
        await wait_for(speaking, 180, "the story to be spoken", events)
        await asyncio.sleep(1.0)
        cut_by_space = done_count() == 1
        if cut_by_space:
            w.activateWindow()
            w.talk_button.setFocus()
            target = QApplication.focusWidget() or w
            QApplication.sendEvent(target, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " "))
            await wait_for(lambda: any(isinstance(e, BargeIn) for e in events), 30, "the barge-in", events)
            QApplication.sendEvent(target, QKeyEvent(QEvent.Type.KeyRelease, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " "))
        await wait_for(lambda: done_count() >= 2, 60, "the cut story", events)

        # 3. Ask again and quit while the answer is being spoken.
        mark = len(events)
        await asyncio.sleep(1.0)
        w.composer.setText("Tell me another long story, about a lighthouse keeper and the sea.")
        w.send_button.click()
        await wait_for(speaking, 180, "the second story", events)
        await asyncio.sleep(0.8)
        c.request_quit()
        rc = await asyncio.wait_for(runner, 60)
        return rc, conversation, cut_by_space  # type: ignore[return-value]

    mark = 0
    rc, conversation, cut_by_space = run(aloop, scenario(), timeout=380)  # type: ignore[misc]
    assert rc == 0
    assert not w.isVisible()

    # The spoken turn: the transcript replaced the partial in one user bubble, the answer is in the next.
    finals = [e for e in events if isinstance(e, UserFinal)]
    assert finals and not finals[0].typed
    assert any(word in finals[0].text.lower() for word in ("capital", "france")), finals[0].text
    bubbles = w.chat.bubbles()
    assert isinstance(bubbles[0], UserBubble) and bubbles[0].text() == finals[0].text and not bubbles[0].is_partial
    first = next(e for e in events if isinstance(e, AssistantDone))
    assert isinstance(bubbles[1], AssistantBubble) and bubbles[1].text() == first.spoken_text and first.spoken_text

    # Everything is in the conversation file, including the answers cut by Space and by quitting.
    records = store.load(conversation)
    assert [r.typed for r in records] == [False, True, True]
    story, last = records[1], records[2]
    if cut_by_space:
        assert story.interrupted
        story_bubble = [b for b in bubbles if isinstance(b, AssistantBubble)][1]
        assert story_bubble.interrupted and story_bubble.text() == story.assistant_text
    assert last.user_text.startswith("Tell me another long story")
    assert last.interrupted, "quitting mid-answer keeps what was heard, marked interrupted"
    assert last.generated_text.startswith(last.assistant_text.split(" ")[0]) if last.assistant_text else True


def test_settings_test_tone_reaches_the_speaker_and_mic_check_hears_the_microphone(
    pulse_env: PulseServer, aloop: asyncio.AbstractEventLoop, tmp_path: Path, qtbot: Any
) -> None:
    import numpy as np
    from pulse import tone

    from app.ui.audio_tools import RealAudioTools
    from app.ui.settings_dialog import SettingsDialog

    pulse_env.activate()
    d = SettingsDialog(Settings(), config_path=tmp_path / "config.toml", audio=RealAudioTools())
    qtbot.addWidget(d)
    aloop.run_until_complete(d.load_devices())  # what showing the dialog starts
    assert d.input_combo.findData(PA_MIC) >= 0 and d.output_combo.findData(PA_SPEAKER) >= 0
    d.output_combo.setCurrentIndex(d.output_combo.findData(PA_SPEAKER))
    d.input_combo.setCurrentIndex(d.input_combo.findData(PA_MIC))
    levels: list[float] = []
    real_set_level = d.mic_meter.set_level
    d.mic_meter.set_level = lambda v: (levels.append(v), real_set_level(v))  # type: ignore[method-assign]

    async def scenario() -> np.ndarray:
        rec = pulse_env.record()
        d.start_test_tone()
        await asyncio.gather(*d._tasks)
        await asyncio.sleep(0.3)
        heard = rec.stop()
        pulse_env.play_into_mic(tone(440, 4.0))
        await asyncio.sleep(0.3)
        d.start_mic_check()
        await asyncio.gather(*d._tasks)
        return heard

    heard = run(aloop, scenario(), timeout=60)
    assert np.abs(heard).max() > 3000, "the test tone was not heard on the speaker"
    assert max(levels) > 0.3
    assert d.mic_status.text() == "The microphone works."
    assert "Did you hear a tone?" in d.tone_status.text()
