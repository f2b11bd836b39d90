"""``parley`` (GUI): the Qt application with qasync's asyncio loop, one instance per user.

Startup order keeps the window fast: Qt, then the window itself (themed from a quick read of the ``[ui]``
table), shown before the settings are validated (pydantic) and long before any model runtime (faster_whisper,
llama_cpp, piper, onnxruntime) is imported; the loop factory imports and loads those in worker threads.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import time
from pathlib import Path

_T0 = time.perf_counter()

log = logging.getLogger("app.ui")


def config_path_fast(arg: str | None) -> Path:
    """Same answer as :func:`app.settings.config_path`, without importing pydantic (startup path)."""
    if arg is not None:
        return Path(arg).expanduser()
    override = os.environ.get("PARLEY_CONFIG")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_config_path("parley") / "config.toml"


def peek_theme(path: Path) -> str:
    """``[ui] theme`` of the settings file, or "system"; any problem is left for the real load to report."""
    try:
        import tomllib

        with open(path, "rb") as f:
            theme = tomllib.load(f).get("ui", {}).get("theme", "system")
    except (OSError, ValueError, AttributeError):
        return "system"
    return theme if theme in ("system", "light", "dark") else "system"


def _apply_cli(settings: object, args: argparse.Namespace) -> object:
    """Command-line overrides for this run (not saved)."""
    from app.settings import Settings, with_overrides

    assert isinstance(settings, Settings)
    audio: dict[str, object] = {}
    loop: dict[str, object] = {}
    if getattr(args, "input_device", None):
        audio["input_device"] = args.input_device
    if getattr(args, "output_device", None):
        audio["output_device"] = args.output_device
    if getattr(args, "mode", None):
        loop["mode"] = args.mode
    if getattr(args, "generator", None):
        loop["generator"] = args.generator
    if not audio and not loop:
        return settings
    return with_overrides(settings, audio=audio, loop=loop)


def main(args: argparse.Namespace) -> int:
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from app import __version__
    from app.logging_setup import setup_logging
    from app.single_instance import SingleInstance

    log_file = setup_logging()
    log.info("Parley %s starting (log: %s)", __version__, log_file)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Parley")
    app.setOrganizationName("Parley")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("parley")
    app.setQuitOnLastWindowClosed(False)

    instance = SingleInstance(os.environ.get("PARLEY_INSTANCE_NAME") or None)
    if not instance.acquire():
        print("Parley is already running; brought its window to the front.", file=sys.stderr)
        return 0

    from app.ui.diagnostics import Timings, probe_from_env
    from app.ui.main_window import MainWindow
    from app.ui.resources import app_icon
    from app.ui.theme import apply_theme

    timings = Timings()
    probe = probe_from_env()
    if probe is not None:
        probe.start()
    app.setWindowIcon(app_icon())
    config_path = config_path_fast(getattr(args, "config", None))
    apply_theme(app, peek_theme(config_path))  # type: ignore[arg-type]
    window_state = QSettings(str(config_path.parent / "window-state.ini"), QSettings.Format.IniFormat)
    window = MainWindow(window_state=window_state)
    window.show()
    app.processEvents()  # the first paint: "shown" means visible
    shown_s = time.perf_counter() - _T0
    timings.mark("window_shown", since_main_s=shown_s)

    import qasync

    from app import settings as settings_file
    from app.ui.app_controller import AppController
    from genx.agentkit.store import ConversationStore

    settings, cfg_err = settings_file.load_or_defaults(config_path)
    if cfg_err is not None:
        log.warning("settings file not used, running on the defaults: %s", cfg_err)
    try:
        settings = _apply_cli(settings, args)  # type: ignore[assignment]
    except Exception as e:  # a bad --mode / --generator value: say so, run with the file's settings
        cfg_err = cfg_err or e  # type: ignore[assignment]
        log.error("command-line settings rejected: %s", e)

    store = ConversationStore()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    controller = AppController(
        settings,  # type: ignore[arg-type]
        config_path=config_path,
        factory=_default_factory(store),  # type: ignore[arg-type]
        store=store,
        window=window,
        window_shown_s=shown_s,
        audio_tools=_audio_tools(),  # type: ignore[arg-type]
        config_error=str(cfg_err) if cfg_err else "",
        started_at=_T0,
    )
    instance.activated.connect(_bring_to_front(controller))
    modules_at_ready: set[str] = set()

    def on_ready() -> None:
        if timings.path is not None:
            modules_at_ready.update(sys.modules)
        timings.mark("ready", since_main_s=controller.ready_s)

    controller.voice_ready.connect(on_ready)
    quit_after = getattr(args, "quit_after", None)
    if quit_after:
        QTimer.singleShot(int(quit_after * 1000), controller.request_quit)
    _install_signal_handlers(controller)
    rc = 1
    try:
        with loop:
            rc = loop.run_until_complete(controller.run())
    finally:
        instance.release()
        if probe is not None:
            probe.stop()
            timings.mark(
                "lag",
                samples=[[round(t, 4), round(ms, 3)] for t, ms in probe.samples],
                stalls=probe.stalls,
                gc_pauses=probe.gc_pauses,
            )
        late = sorted(set(sys.modules) - modules_at_ready) if modules_at_ready else []
        timings.mark("exit", imported_after_ready=late)
    log.info("exit %s", rc)
    return int(rc)


def _default_factory(store: object) -> object | None:
    """The offline voice loop factory (its module imports no model runtime at import time)."""
    try:
        from app.ui.voice_factory import VoiceLoopFactory
    except ImportError as e:
        log.error("voice loop factory unavailable: %s", e)
        return None
    return VoiceLoopFactory(store=store)  # type: ignore[arg-type]


def _audio_tools() -> object:
    from app.ui.audio_tools import RealAudioTools

    return RealAudioTools()


def _bring_to_front(controller: object) -> object:
    def bring() -> None:
        w = controller.window  # type: ignore[attr-defined]
        w.showNormal()
        w.raise_()
        w.activateWindow()

    return bring


def _install_signal_handlers(controller: object) -> None:
    from PySide6.QtCore import QTimer

    def on_signal(*_: object) -> None:
        controller.request_quit()  # type: ignore[attr-defined]

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, on_signal)
        except (ValueError, OSError):
            pass
    # Python runs signal handlers only between bytecodes: a slow no-op timer lets Ctrl+C through Qt's loop.
    tick = QTimer(controller)  # type: ignore[arg-type]
    tick.timeout.connect(lambda: None)
    tick.start(250)
