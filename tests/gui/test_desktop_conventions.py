"""Single instance, logs with secrets redacted, theme following the palette, icon and geometry."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtGui import QPalette

from app.logging_setup import LOG_FILE_NAME, redact, setup_logging
from app.single_instance import SingleInstance
from app.ui.main_window import MainWindow
from app.ui.resources import app_icon, asset_path
from app.ui.theme import apply_theme, chat_colors, is_dark

pytestmark = pytest.mark.gui


def test_a_second_instance_is_refused_and_activates_the_first(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name = f"parley-test-si-{tmp_path.name}"
    first = SingleInstance(name)
    assert first.acquire()
    try:
        with qtbot.waitSignal(first.activated, timeout=3000):
            assert not SingleInstance(name).acquire()
    finally:
        first.release()
    again = SingleInstance(name)
    assert again.acquire()  # released: the next launch may run
    again.release()


def test_logs_go_to_the_user_log_dir_with_api_keys_redacted(tmp_path) -> None:
    path = setup_logging(directory=tmp_path, console=False)
    assert path == tmp_path / LOG_FILE_NAME
    log = logging.getLogger("parley.test")
    log.warning("calling provider with api_key=sk-proj-abcdefghijklmnop1234 and Authorization: Bearer abc.def.ghijklmnopqrst")
    for h in logging.getLogger().handlers:
        h.flush()
    text = path.read_text()
    assert "calling provider" in text
    assert "abcdefghijklmnop1234" not in text and "ghijklmnopqrst" not in text
    assert redact("key sk-ant-api03-ABCDEFGHIJKLMNOP") == "key sk-ant-api03-***" or "ABCDEFGHIJKLMNOP" not in redact(
        "key sk-ant-api03-ABCDEFGHIJKLMNOP"
    )
    assert redact("nothing secret here") == "nothing secret here"


def test_dark_and_light_themes_drive_the_bubble_colours(qapp) -> None:  # type: ignore[no-untyped-def]
    try:
        apply_theme(qapp, "dark")
        assert is_dark(qapp.palette())
        dark = chat_colors(qapp.palette())
        apply_theme(qapp, "light")
        assert not is_dark(qapp.palette())
        light = chat_colors(qapp.palette())
        assert dark.assistant_bg.lightness() < 100 < light.assistant_bg.lightness()
        assert light.assistant_fg == qapp.palette().color(QPalette.ColorRole.Text)
    finally:
        apply_theme(qapp, "light")


def test_the_window_icon_ships_and_geometry_is_remembered(qtbot, window_state) -> None:  # type: ignore[no-untyped-def]
    assert asset_path("parley.svg") is not None and asset_path("parley.png") is not None
    assert not app_icon().isNull()
    w = MainWindow(window_state=window_state)
    qtbot.addWidget(w)
    assert not w.windowIcon().isNull()
    w.resize(777, 555)
    w.metrics_action.setChecked(True)
    w.save_geometry()
    w2 = MainWindow(window_state=window_state)
    qtbot.addWidget(w2)
    assert w2.metrics_action.isChecked()
    assert (w2.width(), w2.height()) == (777, 555)


def test_the_qt_binding_does_not_leak_references_to_none(qtbot) -> None:  # type: ignore[no-untyped-def]
    """PySide6 6.12.0 on Python 3.11 drops a reference to None on every void call: the app aborts after minutes."""
    import sys

    w = MainWindow()
    qtbot.addWidget(w)
    before = sys.getrefcount(None)
    for _ in range(2000):
        w.state_indicator.meter.update()
        w.status_label.setText("x")
    assert sys.getrefcount(None) >= before - 50


def test_the_startup_config_path_and_theme_peek_agree_with_the_settings_module(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.settings import config_path
    from app.ui.main import config_path_fast, peek_theme

    assert config_path_fast(None) == config_path(None)  # $PARLEY_CONFIG, set by the fixtures
    assert config_path_fast(str(tmp_path / "x.toml")) == config_path(str(tmp_path / "x.toml"))
    monkeypatch.delenv("PARLEY_CONFIG")
    assert config_path_fast(None) == config_path(None)  # the user config dir
    cfg = tmp_path / "c.toml"
    cfg.write_text('[ui]\ntheme = "dark"\n')
    assert peek_theme(cfg) == "dark"
    cfg.write_text("[ui\nbroken")
    assert peek_theme(cfg) == "system"
    assert peek_theme(tmp_path / "missing.toml") == "system"
