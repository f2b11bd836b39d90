"""Settings applied live (part of :class:`app.ui.app_controller.AppController`): the ``[ui]`` table (theme, talk
key, tray, global hotkey), the settings dialog, and a saved change applied through loop commands or a rebuild."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication

from app.settings import Settings
from app.ui.global_hotkey import GlobalHotkey
from app.ui.hotkey import FALLBACK as FALLBACK_HOTKEY
from app.ui.hotkey import hotkey_key, hotkey_problem
from app.ui.loop_port import call_command
from app.ui.main_window import MainWindow
from app.ui.serial_load import SerialLoader
from app.ui.theme import apply_theme
from app.ui.tray import Tray
from genx.agentkit.events import LoopControl, Mode

if TYPE_CHECKING:
    from app.ui.settings_dialog import AudioTools, SettingsDialog
    from app.ui.settings_form import Keyring

log = logging.getLogger("app.ui.app_controller")


class _LiveSettings(QObject):
    # set by AppController.__init__
    settings: Settings
    config_path: Path
    config_error: str
    hotkey_problem: str
    window: MainWindow
    tray: Tray
    global_hotkey: GlobalHotkey
    _hotkey_task: asyncio.Future[None] | None
    loader: SerialLoader[Settings]
    loop: LoopControl | None
    keyring: Keyring | None
    audio_tools: AudioTools | None
    _dialog: Callable[[Any], Any]

    # -- settings ----------------------------------------------------------------------------------------------
    def apply_ui(self, s: Settings) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication) and app.property("parleyScheme") != s.ui.theme:
            apply_theme(app, s.ui.theme)
        key = hotkey_key(s.ui.hotkey)
        self.hotkey_problem = hotkey_problem(s.ui.hotkey)
        if key is None:
            log.warning("%s", self.hotkey_problem)
            self.window.set_hotkey(Qt.Key.Key_Space, FALLBACK_HOTKEY)
        else:
            self.window.set_hotkey(key, s.ui.hotkey)
        self.tray.set_enabled(s.ui.tray)
        if s.ui.global_hotkey or self.global_hotkey.running:
            self._hotkey_task = asyncio.ensure_future(self._apply_global_hotkey(s.ui.global_hotkey))

    async def _apply_global_hotkey(self, on: bool) -> None:
        if not on:
            await self.global_hotkey.aclose()
            return
        why_not = await self.global_hotkey.start_desktop(self.window.hotkey_name)
        if why_not:
            log.warning("ui.global_hotkey: %s", why_not)
            self.window.statusBar().showMessage(f"The talk key works in Parley's window only: {why_not}", 15_000)

    def _os_scheme_changed(self, *_: object) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication) and self.settings.ui.theme == "system":
            apply_theme(app, "system")

    def open_settings(self) -> SettingsDialog:
        from app.ui.settings_dialog import SettingsDialog

        dlg = SettingsDialog(self.settings, config_path=self.config_path, audio=self.audio_tools, keyring=self.keyring, parent=self.window)
        dlg.saved.connect(self.apply_settings)
        dlg.saved.connect(self._settings_saved)
        dlg.notice.connect(self._settings_notice)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._dialog(dlg).open()
        return dlg

    def _settings_saved(self, _new: Settings) -> None:
        self.config_error = ""  # the file is good now

    def _settings_notice(self, text: str) -> None:
        from app.ui.dialogs import error_box

        self._dialog(error_box(self.window, "Settings saved", text))

    def apply_settings(self, new: Settings) -> None:
        """Apply saved settings now: cheap changes through loop commands, the rest by rebuilding the loop.

        While a load or rebuild runs, the newest settings replace the ones it is loading (see
        :class:`~app.ui.serial_load.SerialLoader`): the app always ends with one loop, built from the newest."""
        old, self.settings = self.settings, new
        self.apply_ui(new)
        loop = self.loop
        if self.loader.busy:
            if old.model_dump(exclude={"ui"}) != new.model_dump(exclude={"ui"}):
                self.loader.request(new)  # the load under way is for older settings
            return
        if loop is None:
            self.loader.request(new)  # no loop (yet, or the last load failed): load these
            return
        if old.loop.mode != new.loop.mode:
            call_command(loop, "set_mode", Mode.parse(new.loop.mode))
        memory = getattr(loop, "memory", None)
        if memory is not None and old.memory.enabled != new.memory.enabled:
            memory.set_enabled(new.memory.enabled)  # pausing takes effect now; nothing is rebuilt
        heavy = (
            old.audio != new.audio
            or old.providers != new.providers
            or old.generators != new.generators
            or old.voices != new.voices
            or old.asr != new.asr
            or old.vad != new.vad
            or old.memory.model_copy(update={"enabled": new.memory.enabled}) != new.memory
            or old.loop.model_copy(update={"mode": new.loop.mode, "generator": new.loop.generator}) != new.loop
        )
        if not heavy:
            if old.loop.generator != new.loop.generator:
                call_command(loop, "set_generator", new.loop.generator)
            return
        reconfigure = getattr(loop, "reconfigure", None)
        if reconfigure is not None:
            try:
                if reconfigure(new):
                    return
            except Exception:
                log.exception("reconfigure failed; rebuilding the voice loop")
        self.loader.request(new)
