"""The application's life cycle around the window: load the voice stack in the background, apply settings,
open dialogs, and shut down cleanly.

Order of events: window shown (no model imported yet) → preflight (what is installed) → the loop factory
loads models in worker threads, reporting progress → the presenter attaches the loop (typing works as soon as
a loop exists; talking once voice is ready). Quit: the window stays until the loop is closed (audio streams
closed, the turn in progress stored), bounded so nothing hangs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QSettings, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QApplication

from app.logging_setup import log_dir
from app.settings import Settings
from app.ui import preflight
from app.ui.global_hotkey import GlobalHotkey
from app.ui.live_settings import _LiveSettings
from app.ui.loop_port import close_loop
from app.ui.main_window import MainWindow
from app.ui.presenter import Presenter
from app.ui.serial_load import SerialLoader
from app.ui.tray import Tray
from genx.agentkit.events import LoopControl
from genx.agentkit.store import ConversationStore
from genx.deadline import Deadline

if TYPE_CHECKING:  # dialogs are imported when first opened: they are not on the startup path
    from app.ui.dialogs import AboutDialog
    from app.ui.settings_dialog import AudioTools
    from app.ui.settings_form import Keyring

log = logging.getLogger(__name__)

Progress = Callable[[str, float | None], None]


class LoopFactory(Protocol):
    """Builds a running voice loop from settings. Heavy work (imports, model loads, device opening) must run in
    worker threads; ``progress(message, fraction)`` may be called from the event-loop thread only."""

    async def build(self, settings: Settings, *, progress: Progress, voice: bool) -> LoopControl: ...


class AppController(_LiveSettings):
    window_shown = Signal()  # the window is on screen (first paint done)
    voice_ready = Signal()  # the loop is attached with voice on
    loop_attached = Signal()  # a loop is attached (typing works)
    closed = Signal()

    def __init__(
        self,
        settings: Settings,
        *,
        config_path: Path,
        factory: LoopFactory | None,
        store: ConversationStore | None = None,
        window_state: QSettings | None = None,
        window: MainWindow | None = None,
        window_shown_s: float | None = None,
        keyring: Keyring | None = None,
        audio_tools: AudioTools | None = None,
        preflight_check: Callable[[Settings], list[preflight.Missing]] | None = preflight.check,
        config_error: str = "",
        started_at: float | None = None,
        close_grace_s: float = 8.0,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.config_path = config_path
        self.factory = factory
        self.store = store
        self.keyring = keyring
        self.audio_tools = audio_tools
        self.preflight_check = preflight_check
        self.config_error = config_error
        self.started_at = time.perf_counter() if started_at is None else started_at
        self.close_grace_s = close_grace_s
        self.window_shown_s: float | None = window_shown_s
        self.ready_s: float | None = None
        self.missing: list[preflight.Missing] = []
        self.window = window if window is not None else MainWindow(window_state=window_state)
        self.window.allow_close = False
        self.presenter = Presenter(self.window, store=store)
        self.tray = Tray(self.window)
        self._hotkey_task: asyncio.Future[None] | None = None
        self.global_hotkey = GlobalHotkey(self.window.hotkey_down, self.window.hotkey_up, window_active=self.window.isActiveWindow)
        self.loop: LoopControl | None = None
        self.dialogs: list[Any] = []  # open dialogs (tests look here)
        self.loader: SerialLoader[Settings] = SerialLoader(self._load_and_resume, self._unload)
        self._resume: str | None = None  # the conversation to carry on after a rebuild
        self.memory_saving: asyncio.Task[None] | None = None  # the last [memory] enabled save (the Memory window's toggle)
        self.hotkey_problem = ""  # set by apply_ui when [ui] hotkey cannot be used
        self._quit = asyncio.Event()
        self._shutting_down = False
        self._shutdown_task: asyncio.Task[None] | None = None
        w = self.window
        w.quit_requested.connect(self.request_quit)
        w.settings_requested.connect(self.open_settings)
        w.memory_requested.connect(self.open_memory)
        w.about_requested.connect(self.open_about)
        w.open_logs_requested.connect(self.open_logs)
        self.presenter.state_changed.connect(self.tray.set_state)
        self.presenter.error_shown.connect(self.tray.notify_error)
        w.hide_on_close = lambda: self.settings.ui.close_to_tray and self.tray.icon is not None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setQuitOnLastWindowClosed(False)  # quitting is ours: the loop closes before the window goes
        self.apply_ui(settings)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._os_scheme_changed)

    # -- start -------------------------------------------------------------------------------------------------
    def show(self) -> None:
        if self.window_shown_s is None or not self.window.isVisible():
            self.window.show()
            self.window.raise_()
            QApplication.processEvents()  # the first paint, so "shown" means visible
            self.window_shown_s = time.perf_counter() - self.started_at
        log.info("window shown %.3f s after launch", self.window_shown_s)
        self.window_shown.emit()
        if self.config_error:
            from app.ui.dialogs import error_box

            self._dialog(
                error_box(
                    self.window,
                    "Settings file has problems",
                    f"Parley is using its default settings because {self.config_path} could not be used. "
                    "Fix the file and restart Parley, or open Settings and save: Parley then keeps the file as "
                    f"{self.config_path.name}.bad-<time> and writes a new one with your settings.",
                    self.config_error,
                )
            )
        notes = [*self.settings.notes, *([self.hotkey_problem] if self.hotkey_problem else [])]
        if notes:
            from app.ui.dialogs import error_box

            self._dialog(error_box(self.window, "Settings need attention", "\n\n".join(notes)))
        self.presenter.refresh_conversations()

    def start_loading(self) -> None:
        """Load the voice loop from the current settings (in the background), unless a load is under way."""
        if not self.loader.busy and self.loop is None:
            self.loader.request(self.settings)

    async def run(self) -> int:
        """Show the window, load in the background, and return when the app has shut down."""
        self.show()
        self.start_loading()
        await self._quit.wait()
        return 0

    def _progress(self, message: str, fraction: float | None) -> None:
        self.window.set_progress(message, fraction)

    async def _unload(self) -> None:
        """Close the loop that is up (the turn in progress is stored first), remembering its conversation."""
        loop, self.loop = self.loop, None
        if loop is None:
            return
        self._resume = loop.conversation_id
        self.presenter.detach()
        self.presenter.set_voice_available(False, "Applying settings…")
        await close_loop(loop, self.close_grace_s)

    async def _load_and_resume(self, settings: Settings) -> None:
        await self._load(settings)
        conversation, self._resume = self._resume, None
        if conversation and self.loop is not None and self.store is not None:
            if await asyncio.to_thread(self.store.load, conversation):  # carry on with it on the new loop
                self.presenter.open_conversation(conversation)

    async def _load(self, settings: Settings) -> None:
        w = self.window
        self._progress("Checking the offline models…", -1)
        voice = True
        if self.preflight_check is not None:
            try:
                self.missing = await asyncio.to_thread(self.preflight_check, settings)
            except Exception:
                log.exception("preflight check failed; trying to load anyway")
                self.missing = []
            if self.missing:
                from app.ui.dialogs import MissingDialog

                self._dialog(MissingDialog(self.missing, self.window)).open()
                if not all(m.voice_only for m in self.missing):
                    self._progress("", None)
                    self.presenter.set_voice_available(False, "Parley cannot answer until the missing parts are installed")
                    w.state_indicator.set_state("error", "missing components — see the dialog")
                    return
                voice = False
        if self.factory is None:
            self._progress("", None)
            return
        loop: LoopControl | None
        try:
            loop = await self.factory.build(settings, progress=self._progress, voice=voice)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            loop = await self._load_failed(settings, e, voice)
            if loop is None:
                return
            voice = False
        if self._shutting_down:
            await close_loop(loop, self.close_grace_s)
            return
        self.loop = loop
        reason = "" if voice else "Voice is off (see the message); typing works"
        self.presenter.attach(loop, voice=voice, reason=reason)
        session = getattr(loop, "session", None)
        for dev in (getattr(session, "capture", None), getattr(session, "player", None)):
            if dev is not None:  # a device lost, replaced by the default, back: said in the window
                dev.add_listener(self.presenter.audio_event)
        self.ready_s = time.perf_counter() - self.started_at
        self._progress("Ready — hold Space to talk, or type." if voice else "Ready for typing.", None)
        log.info("voice loop ready %.3f s after launch (voice %s)", self.ready_s, "on" if voice else "off")
        self.loop_attached.emit()
        if voice:
            self.voice_ready.emit()

    async def _load_failed(self, settings: Settings, e: Exception, voice: bool) -> LoopControl | None:
        """Show what went wrong; when only voice failed, retry without voice so typing still works."""
        from app.ui.dialogs import MissingDialog, error_box
        from genx.local.models import MissingPackageError, ModelNotFoundError

        log.error("loading the voice loop failed: %s", e, exc_info=e)
        audio_problem = type(e).__module__.startswith("app.audio")
        if isinstance(e, ModelNotFoundError | MissingPackageError):
            pip = getattr(e, "pip", "")
            missing = [preflight.Missing(str(e), f"pip install {pip}" if pip else str(e), pip)]
            self._dialog(MissingDialog(missing, self.window)).open()
        elif audio_problem:
            title = "No microphone or speaker" if type(e).__name__ == "NoAudioDeviceError" else "Audio device problem"
            if type(e).__name__ == "PortAudioMissingError":
                missing = [preflight.Missing("the PortAudio sound library", preflight.portaudio_install_hint())]
                self._dialog(MissingDialog(missing, self.window)).open()
            else:
                self._dialog(error_box(self.window, title, f"{e}\n\nYou can still type to Parley. Pick devices in Settings → Audio."))
        else:
            self._dialog(error_box(self.window, "Parley could not start its voice", str(e)))
        self._progress("", None)
        if voice and self.factory is not None:
            try:
                return await self.factory.build(settings, progress=self._progress, voice=False)
            except Exception as e2:
                log.error("text-only loop failed too: %s", e2, exc_info=e2)
        self.presenter.set_voice_available(False, "Parley could not start — see the message")
        self.window.state_indicator.set_state("error", str(e))
        return None

    # -- memory (app.ui.memory_panel) -------------------------------------------------------------------------
    def open_memory(self) -> Any:
        from app.ui.memory_panel import open_panel

        panel = self._dialog(open_panel(self))
        panel.open()
        return panel

    def set_memory_enabled(self, on: bool) -> asyncio.Task[None]:
        from app.ui.memory_panel import save_enabled

        notice = self._settings_notice
        self.memory_saving = save_enabled(self.settings, on, config_path=self.config_path, apply=self.apply_settings, notice=notice)
        return self.memory_saving

    # -- other menu items --------------------------------------------------------------------------------------
    def open_about(self) -> AboutDialog:
        from app.ui.dialogs import AboutDialog

        dlg = AboutDialog(self.settings, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._dialog(dlg).open()
        return dlg

    def open_logs(self) -> bool:
        d = log_dir()
        d.mkdir(parents=True, exist_ok=True)
        ok = QDesktopServices.openUrl(QUrl.fromLocalFile(str(d)))
        if not ok:
            self.window.statusBar().showMessage(f"Logs are in {d}", 15_000)
        return bool(ok)

    def _dialog(self, dlg: Any) -> Any:
        self.dialogs.append(dlg)
        dlg.finished.connect(lambda *_: self.dialogs.remove(dlg) if dlg in self.dialogs else None)
        return dlg

    # -- quit --------------------------------------------------------------------------------------------------
    def request_quit(self) -> None:
        if not self._shutting_down:
            self._shutting_down = True
            self._shutdown_task = asyncio.ensure_future(self.shutdown())

    async def shutdown(self) -> None:
        """Close the loop (bounded), save the window state, close the window; then :meth:`run` returns."""
        self._shutting_down = True
        w = self.window
        w.set_progress("Closing…", -1)
        w.save_geometry()
        deadline = Deadline.after(self.close_grace_s)  # one budget for the whole quit
        await self.loader.stop(deadline.keeping(self.close_grace_s, at_most=0.5).remaining())
        loop, self.loop = self.loop, None
        self.presenter.detach()
        if loop is not None:
            await close_loop(loop, deadline)
        ok, _ = await deadline.wait(self.presenter.drain(), floor_s=0.2)
        if not ok:
            log.warning("conversation list refresh still running at quit")
        for dlg in list(self.dialogs):
            dlg.close()
        self.tray.set_enabled(False)
        await self.global_hotkey.aclose()
        w.allow_close = True
        w.close()
        log.info("Parley closed cleanly")
        self.closed.emit()
        self._quit.set()
