"""The settings dialog never blocks the GUI thread: device listing, keyring calls and the fsync'd write run on workers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

import app.settings as settings_module
from app.settings import Settings, load_settings
from app.ui.settings_dialog import SettingsDialog

from .conftest import MemoryKeyring, run
from .fakes import FakeAudioTools

pytestmark = pytest.mark.gui


class RecordingAudio(FakeAudioTools):
    def __init__(self) -> None:
        super().__init__()
        self.threads: list[threading.Thread] = []

    def list_devices(self, direction: str) -> list[str]:
        self.threads.append(threading.current_thread())
        return super().list_devices(direction)


class SlowKeyring(MemoryKeyring):
    """A keyring whose store blocks until released (a locked keyring asking for a password)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[threading.Thread] = []

    def set_password(self, service: str, username: str, password: str) -> None:
        self.threads.append(threading.current_thread())
        self.entered.set()
        assert self.release.wait(10), "the test never released the keyring"
        super().set_password(service, username, password)


def _add_provider_key(d: SettingsDialog, name: str, key: str) -> None:
    d.tabs.setCurrentIndex(3)
    d.add_provider_button.click()
    d.p_name.setText(name)
    d.p_name.textEdited.emit(name)
    d.p_kind.setCurrentText("openai-chat")
    d.p_key.setText(key)
    d.p_key.textEdited.emit(key)


def test_the_device_lists_are_read_on_a_worker_thread_when_the_dialog_is_shown(aloop, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    audio = RecordingAudio()
    d = SettingsDialog(Settings.model_validate({"audio": {"input_device": "USB Headset"}}), config_path=tmp_path / "c.toml", audio=audio)
    qtbot.addWidget(d)
    assert audio.threads == []  # building the dialog lists nothing
    assert d.input_combo.currentData() == "USB Headset"  # the saved choice is shown meanwhile

    async def scenario() -> None:
        d.show()
        await asyncio.gather(*d._tasks)

    run(aloop, scenario())
    assert len(audio.threads) == 2 and all(t is not threading.main_thread() for t in audio.threads)
    assert d.output_combo.findData("Built-in Speakers") >= 0
    assert d.input_combo.currentData() == "USB Headset" and "not connected" not in d.input_combo.currentText()
    assert d.mic_button.isEnabled() and d.tone_button.isEnabled()


def test_keys_and_the_settings_file_are_written_on_a_worker_thread_while_the_gui_keeps_running(
    aloop, qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import keyring

    kr = SlowKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(kr)
    write_threads: list[threading.Thread] = []
    real_save = settings_module.save

    def recording_save(*args: Any, **kwargs: Any) -> Path:
        write_threads.append(threading.current_thread())
        return real_save(*args, **kwargs)

    monkeypatch.setattr(settings_module, "save", recording_save)
    cfg = tmp_path / "config.toml"
    d = SettingsDialog(Settings(), config_path=cfg, audio=FakeAudioTools())
    qtbot.addWidget(d)
    _add_provider_key(d, "openai", "sk-test-SLOW-123456789")
    saved: list[Settings] = []
    d.saved.connect(saved.append)

    async def scenario() -> None:
        task = d.save()
        assert task is not None
        assert await asyncio.to_thread(kr.entered.wait, 5)  # the keyring call is in progress…
        for _ in range(3):
            await asyncio.sleep(0)  # …and the loop still runs other work
        assert not task.done() and not d.buttons.isEnabled()
        d.reject()  # closing while writing is refused: the outcome would be lost
        assert d.result() == 0
        kr.release.set()
        await task

    try:
        run(aloop, scenario())
    finally:
        kr.release.set()
        keyring.set_keyring(previous)
    assert kr.threads and all(t is not threading.main_thread() for t in kr.threads)
    assert write_threads and all(t is not threading.main_thread() for t in write_threads)
    assert kr.entries[("parley", "openai")] == "sk-test-SLOW-123456789"
    assert load_settings(cfg) == saved[0] and d.result() == d.DialogCode.Accepted
