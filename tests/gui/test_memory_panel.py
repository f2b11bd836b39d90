"""The Memory window: the user sees, searches and deletes what Parley remembers, and can pause memory."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from app.settings import Settings, load_settings
from app.ui.memory_panel import MemoryPanel
from genx.memory import Memory, TurnInfo

from .conftest import run
from .fakes import FakeFactory
from .fakes import make_controller as make

pytestmark = pytest.mark.gui

TOLD = ("I live in Berlin.", "My sister's name is Anna.", "I work as a nurse.")


async def told(path: Path) -> Memory:
    m = Memory(path)
    for i, text in enumerate(TOLD):
        m.after_turn(TurnInfo(text, f"t{i}", "conv-1", 1_700_000_000.0 + i))
    await m.drain()
    return m


def texts(panel: MemoryPanel) -> list[str]:
    return [f.text for f in panel.facts]


def answer(panel: MemoryPanel, button: QMessageBox.StandardButton) -> None:
    box = panel.confirm_box
    assert box is not None and box.isVisible(), "a confirmation must be asked first"
    box.button(button).click()


def test_the_panel_lists_searches_and_deletes_a_fact_only_after_a_yes(aloop, tmp_path, qtbot) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        m = await told(tmp_path / "memory.sqlite3")
        panel = MemoryPanel(m, enabled=True)
        qtbot.addWidget(panel)
        await panel.task
        assert sorted(texts(panel)) == sorted(["The user lives in Berlin.", "The user's sister is Anna.", "The user works as a nurse."])
        panel.search.setText("Berlin")
        await panel.task
        assert texts(panel) == ["The user lives in Berlin."]

        panel.list.item(0).setSelected(True)
        panel.ask_delete_selected()
        answer(panel, QMessageBox.StandardButton.No)
        assert [f.text for f in await m.facts()].count("The user lives in Berlin.") == 1  # "No" keeps it

        panel.ask_delete_selected()
        answer(panel, QMessageBox.StandardButton.Yes)
        await panel.task
        assert texts(panel) == []
        assert "The user lives in Berlin." not in [f.text for f in await m.facts()]
        # a deleted fact never comes back from the turn that told it (a late extraction of that turn)
        m.after_turn(TurnInfo("I live in Berlin.", "t0", "conv-1", 1_700_000_000.0))
        await m.drain()
        assert "The user lives in Berlin." not in [f.text for f in await m.facts()]
        await m.aclose()

    run(aloop, scenario())


def test_editing_a_fact_keeps_the_correction_and_the_old_value_never_returns(aloop, tmp_path, qtbot) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        m = await told(tmp_path / "memory.sqlite3")
        panel = MemoryPanel(m, enabled=True)
        qtbot.addWidget(panel)
        panel.search.setText("Berlin")
        await panel.task
        panel.list.item(0).setSelected(True)
        box = panel.ask_edit_selected()
        assert box is not None and box.textValue() == "Berlin"
        box.setTextValue("Hamburg")
        box.accept()
        await panel.task
        panel.search.setText("")
        await panel.task
        assert "The user lives in Hamburg." in texts(panel) and "The user lives in Berlin." not in texts(panel)
        recalled = await m.recall("Which city do I live in?")
        assert [f.value for f in recalled.facts] == ["Hamburg"]
        m.after_turn(TurnInfo("I live in Berlin.", "t0", "conv-1", 1_700_000_000.0))  # a late extraction of the old turn
        await m.drain()
        assert [f.value for f in (await m.recall("Which city do I live in?")).facts] == ["Hamburg"]
        await m.aclose()

    run(aloop, scenario())


def test_forget_everything_asks_first_and_then_leaves_nothing(aloop, tmp_path, qtbot) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        m = await told(tmp_path / "memory.sqlite3")
        panel = MemoryPanel(m, enabled=True)
        qtbot.addWidget(panel)
        await panel.task
        panel.ask_clear()
        answer(panel, QMessageBox.StandardButton.Yes)
        await panel.task
        assert texts(panel) == [] and await m.facts() == []
        assert panel.empty.text() == "Parley remembers nothing yet."
        await m.aclose()

    run(aloop, scenario())


def test_a_panel_on_a_memory_never_used_creates_no_file(aloop, tmp_path, qtbot) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        path = tmp_path / "memory.sqlite3"
        panel = MemoryPanel(Memory(path), enabled=False)
        qtbot.addWidget(panel)
        await panel.task
        assert texts(panel) == [] and not path.exists()

    run(aloop, scenario())


def test_a_remote_generator_gets_a_plain_notice_and_the_offline_one_none(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    cloud = Settings.model_validate(
        {
            "providers": {"openai": {"kind": "openai-chat"}},
            "generators": [{"name": "openai/gpt", "provider": "openai", "model": "gpt-4o-mini"}],
            "loop": {"generator": "openai/gpt"},
        }
    )

    async def scenario(settings: Settings, shown: bool) -> None:
        c = make(tmp_path, window_state, FakeFactory(), settings=settings)
        qtbot.addWidget(c.window)
        panel = c.open_memory()
        await panel.task
        assert panel.remote_notice.isVisibleTo(panel) is shown
        if shown:
            assert "openai" in panel.remote_notice.text() and "sent to it" in panel.remote_notice.text()
        await c.shutdown()  # closes the panel, which closes the memory it opened

    for settings, shown in ((Settings(), False), (cloud, True)):
        run(aloop, scenario(settings, shown))


def test_pausing_memory_in_the_panel_pauses_the_running_loop_and_saves_the_setting(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory()
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        async with asyncio.timeout(10):
            await c.loader.settled()
        assert c.loop is not None
        memory = Memory(tmp_path / "memory.sqlite3")
        c.loop.memory = memory  # type: ignore[attr-defined]
        panel = c.open_memory()
        await panel.task
        assert panel.memory is memory
        builds = len(factory.builds)
        panel.enabled_box.setChecked(False)
        assert memory.enabled is False
        assert c.memory_saving is not None
        await c.memory_saving
        assert load_settings(tmp_path / "config.toml").memory.enabled is False
        assert len(factory.builds) == builds  # pausing needs no new loop
        memory.after_turn(TurnInfo("I live in Berlin."))
        await memory.drain()
        assert not (tmp_path / "memory.sqlite3").exists()  # paused: nothing written
        await memory.aclose()
        await c.shutdown()

    run(aloop, scenario())


def test_the_settings_dialog_says_when_the_chosen_model_sees_recalled_facts(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.ui.settings_dialog import PROVIDER_CHOICE, SettingsDialog

    from .fakes import FakeAudioTools

    cloud = Settings.model_validate(
        {
            "providers": {"openai": {"kind": "openai-chat"}},
            "generators": [*[g.model_dump() for g in Settings().generators], {"name": "openai/gpt", "provider": "openai", "model": "m"}],
        }
    )
    d = SettingsDialog(cloud, config_path=tmp_path / "config.toml", audio=FakeAudioTools())
    qtbot.addWidget(d)
    run(aloop, d.load_devices())
    assert d.generator_combo.currentData() == "offline/smollm2"
    assert d.remote_notice.isHidden()  # (isHidden: the model page may not be the tab shown)
    d.generator_combo.setCurrentIndex(d.generator_combo.findData("openai/gpt"))
    assert not d.remote_notice.isHidden() and "remembers about you" in d.remote_notice.text()
    d.generator_combo.setCurrentIndex(d.generator_combo.findData(PROVIDER_CHOICE))
    assert not d.remote_notice.isHidden()
