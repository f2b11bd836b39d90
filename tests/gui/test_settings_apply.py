"""Saved settings reach the running app: loads and rebuilds never overlap and always end on the newest settings;
the file keeps what the user wrote (a broken file is kept aside, one-off overrides are never written)."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from app.settings import Settings, load_or_defaults, load_settings
from app.ui.app_controller import AppController
from app.ui.main import _apply_cli

from .conftest import run
from .fakes import FakeFactory, FakeLoop
from .fakes import make_controller as make

pytestmark = pytest.mark.gui


def silence(s: Settings, ms: int) -> Settings:
    """A heavy change (it needs a new loop)."""
    return s.model_copy(update={"loop": s.loop.model_copy(update={"end_of_turn_silence_ms": ms})})


async def settled(c: AppController, limit_s: float = 10.0) -> FakeLoop:
    """Wait until no load is running or pending; return the loop the app then has."""
    async with asyncio.timeout(limit_s):
        await c.loader.settled()
    assert isinstance(c.loop, FakeLoop), "the app has no voice loop"
    return c.loop


def assert_one_running_loop(factory: FakeFactory, c: AppController) -> None:
    running = [lp for lp in factory.loops if not lp.closed]
    assert running == [c.loop], f"exactly one loop must be running: {len(running)} are"
    assert all(lp.close_completed for lp in factory.loops if lp.closed), "every replaced loop must be closed completely"


def test_two_saves_during_a_slow_model_load_end_with_one_loop_built_from_the_newest(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    gate = asyncio.Event()
    factory = FakeFactory(gate=gate)
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await factory.started.wait()  # the first load is under way
        first, second = silence(c.settings, 700), silence(c.settings, 900)
        c.apply_settings(first)
        c.apply_settings(second)
        gate.set()  # the models finish loading
        loop = await settled(c)
        assert factory.builds[-1][0] is second and loop is factory.loops[-1]
        assert factory.cancelled == 1  # the load of the old settings was stopped, not left to finish
        assert_one_running_loop(factory, c)
        assert c.presenter.loop is loop
        await c.shutdown()
        assert loop.closed

    run(aloop, scenario())


def test_a_second_save_while_the_old_loop_closes_neither_cuts_the_close_nor_leaves_no_loop(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory()
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        old = await settled(c)
        old.close_gate = asyncio.Event()  # closing takes a while (the turn is stored, devices closed)
        c.apply_settings(silence(c.settings, 700))  # rebuild: closes the old loop first
        await old.close_started.wait()
        newest = silence(c.settings, 1300)
        c.apply_settings(newest)  # a second save during the rebuild
        old.close_gate.set()
        loop = await settled(c)
        assert old.close_completed, "the old loop's close was cut half way (its devices would stay open)"
        assert factory.builds[-1][0] is newest and loop is factory.loops[-1]
        assert_one_running_loop(factory, c)
        await c.shutdown()

    run(aloop, scenario())


def test_a_look_only_change_during_a_load_does_not_restart_it(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    gate = asyncio.Event()
    factory = FakeFactory(gate=gate)
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await factory.started.wait()
        c.apply_settings(c.settings.model_copy(update={"ui": c.settings.ui.model_copy(update={"tray": False})}))
        gate.set()
        await settled(c)
        assert factory.cancelled == 0 and len(factory.builds) == 1
        await c.shutdown()

    run(aloop, scenario())


def test_quitting_during_a_load_stops_it_and_leaves_no_loop_running(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    factory = FakeFactory(gate=asyncio.Event())
    c = make(tmp_path, window_state, factory)
    qtbot.addWidget(c.window)

    async def scenario() -> None:
        c.show()
        c.start_loading()
        await factory.started.wait()
        c.apply_settings(silence(c.settings, 800))
        await c.shutdown()
        assert factory.cancelled == 1 and factory.loops == [] and c.loop is None
        assert not c.loader.busy

    run(aloop, scenario())


def test_saving_from_the_dialog_after_a_bad_file_keeps_it_aside_and_says_where(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    bad = "# my settings\n[loop]\nend_of_turn_silence_ms = -5   # oops\n"
    cfg.write_text(bad)
    settings, err = load_or_defaults(cfg)
    assert err is not None
    c = make(tmp_path, window_state, FakeFactory(), settings=settings, config_error=str(err))
    qtbot.addWidget(c.window)
    c.show()
    for box in list(c.dialogs):  # the "settings file has problems" box
        box.close()
    dlg = c.open_settings()
    dlg.theme_combo.setCurrentIndex(dlg.theme_combo.findData("dark"))
    task = dlg.save()
    assert task is not None  # valid: written on a worker thread
    run(aloop, task)
    kept = sorted(tmp_path.glob("config.toml.bad-*"))
    assert len(kept) == 1 and kept[0].read_text() == bad  # the user's file, byte for byte
    assert load_settings(cfg).ui.theme == "dark"
    (notice,) = [d for d in c.dialogs if hasattr(d, "text") and str(kept[0]) in d.text()]
    assert "did not overwrite" in notice.text()
    notice.close()
    run(aloop, c.shutdown())


def test_command_line_overrides_are_not_written_when_the_dialog_saves(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    cfg.write_text('[ui]\ntheme = "light"\n')
    args = argparse.Namespace(mode="push-to-talk", generator=None, input_device="USB Headset", output_device=None)
    effective = _apply_cli(load_settings(cfg), args)
    assert isinstance(effective, Settings) and effective.loop.mode == "push-to-talk"
    c = make(tmp_path, window_state, FakeFactory(), settings=effective)
    qtbot.addWidget(c.window)
    dlg = c.open_settings()
    dlg.tray_check.setChecked(False)
    task = dlg.save()
    assert task is not None
    run(aloop, task)
    assert cfg.read_text() == '[ui]\ntheme = "light"\ntray = false\n'
    assert c.settings.loop.mode == "push-to-talk"  # still this run's mode
    run(aloop, c.shutdown())


@pytest.mark.parametrize("hotkey", ["Ctrl+Space", "NoSuchKey"])
def test_a_hotkey_parley_cannot_use_is_reported_and_space_is_used(aloop, tmp_path, window_state, qtbot, hotkey) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    s = Settings()
    s = s.model_copy(update={"ui": s.ui.model_copy(update={"hotkey": hotkey})})
    c = make(tmp_path, window_state, FakeFactory(), settings=s)
    qtbot.addWidget(c.window)
    c.show()
    (box,) = c.dialogs
    assert "ui.hotkey" in box.text() and hotkey in box.text() and "Space" in box.text()
    assert c.window.ptt_filter.key == Qt.Key.Key_Space
    box.close()
    run(aloop, c.shutdown())


def test_notes_about_removed_keys_are_shown_also_with_command_line_overrides(aloop, tmp_path, window_state, qtbot) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    cfg.write_text("[loop]\nvad_aggressiveness = 1\n")
    args = argparse.Namespace(mode="push-to-talk", generator=None, input_device=None, output_device=None)
    effective = _apply_cli(load_settings(cfg), args)
    assert isinstance(effective, Settings) and effective.vad[0].aggressiveness == 1
    c = make(tmp_path, window_state, FakeFactory(), settings=effective)
    qtbot.addWidget(c.window)
    c.show()
    (box,) = c.dialogs
    assert "[loop] vad_aggressiveness" in box.text() and "[vad]" in box.text()
    box.close()
    run(aloop, c.shutdown())
