"""``parley --headless``: the voice loop in a terminal, on real audio devices.

Builds the configured stack from the settings (``app.settings``) through the
model loader and the muxes (offline default: WebRTC VAD, faster-whisper, SmolLM2
on llama.cpp, Piper), opens the microphone and speaker (the system defaults, or
``--input-device`` / ``--output-device``), runs :class:`genx.agentkit.loop.VoiceLoop`
and prints the conversation: partial transcripts on one updating line, final
transcripts, the assistant's words as they are heard, barge-ins, per-turn
latencies and errors (the printing and the keys: :mod:`app.terminal`).
Ctrl-C (or ``--quit-after``) quits cleanly.

Exit codes: 0 normal end, 1 the loop stopped on an error, 2 no usable audio
device (or PortAudio missing), 3 a configuration / model problem.

The stack built from the settings is :mod:`app.voice_stack`, the session on the devices
:mod:`app.voice_session`; their names are re-exported here.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from typing import Any, TextIO

from app.terminal import AudioNotices, KeyCommands, TerminalView, device_greeting
from app.voice_session import Session, open_devices
from app.voice_stack import Stack, build_stack, build_wake_detector, loop_config, make_echo
from genx.agentkit.events import LoopState

EXIT_OK, EXIT_ERROR, EXIT_NO_DEVICE, EXIT_CONFIG = 0, 1, 2, 3


async def run_headless(args: argparse.Namespace, *, out: TextIO = sys.stdout, err: TextIO | None = None, backend: Any = None) -> int:
    """The headless session; ``backend`` replaces PortAudio (tests)."""
    from app.audio.errors import AudioDeviceError
    from app.settings import load_or_defaults
    from genx.errors import GenxError

    err = err if err is not None else sys.stderr
    settings, cfg_err = load_or_defaults(getattr(args, "config", None))
    if cfg_err is not None:
        print(f"parley: settings file has errors, using the defaults: {cfg_err}", file=err)
    session = Session(
        settings,
        input_device=getattr(args, "input_device", None),
        output_device=getattr(args, "output_device", None),
        mode=getattr(args, "mode", None),
        generator=getattr(args, "generator", None),
        backend=backend,
    )
    try:
        session.build()
    except (GenxError, TypeError, ValueError) as e:
        print(f"parley: cannot build the model stack: {e}", file=err)
        return EXIT_CONFIG
    try:
        await session.open_devices()
    except AudioDeviceError as e:
        print(f"parley: {e}", file=err)
        return EXIT_NO_DEVICE

    view = TerminalView(out)  # prints announcements too (the loop speaks them)
    print(device_greeting(session.capture, session.player), file=out)
    print("parley: loading models…", file=out, flush=True)
    on_audio = AudioNotices(view)
    for dev in (session.capture, session.player):
        dev.add_listener(on_audio)
    try:
        voice_loop = await session.start(view)
    except (GenxError, OSError, RuntimeError) as e:
        await session.close()
        print(f"parley: cannot load a model: {e}", file=err)
        return EXIT_CONFIG

    aio = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            aio.add_signal_handler(sig, stop.set)
    quit_after = getattr(args, "quit_after", None)
    if quit_after:
        aio.call_later(float(quit_after), stop.set)
    keys = KeyCommands(voice_loop, view, stop.set)
    stdin_attached = False
    if sys.stdin is not None and sys.stdin.isatty():
        with contextlib.suppress(NotImplementedError, OSError, ValueError):
            aio.add_reader(sys.stdin.fileno(), lambda: keys.line(sys.stdin.readline()))
            stdin_attached = True
            view.line(KeyCommands.HELP)

    runner = asyncio.ensure_future(voice_loop.run())
    waiter = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        failed = voice_loop.state is LoopState.ERROR
        await session.close()
        waiter.cancel()
        with contextlib.suppress(BaseException):
            await runner
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                aio.remove_signal_handler(sig)
        if stdin_attached:
            with contextlib.suppress(Exception):
                aio.remove_reader(sys.stdin.fileno())
    print(f"parley: bye ({voice_loop.turns_done} turns)", file=out, flush=True)
    return EXIT_ERROR if failed else EXIT_OK


def main(args: argparse.Namespace) -> int:
    """Entry point of ``parley --headless`` (see :mod:`app.cli`)."""
    from app.logging_setup import setup_logging

    with contextlib.suppress(OSError):
        setup_logging(logging.INFO, console=True)
    try:
        return asyncio.run(run_headless(args))
    except KeyboardInterrupt:
        return EXIT_OK


__all__ = [
    "KeyCommands",
    "Session",
    "Stack",
    "TerminalView",
    "build_stack",
    "build_wake_detector",
    "loop_config",
    "main",
    "make_echo",
    "open_devices",
    "run_headless",
]
