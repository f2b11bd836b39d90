"""Command line of ``parley``: choose GUI, headless loop, self-test or device listing; ``parley memory …`` (app.memory_cli)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util

from app import __version__


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="parley",
        description="Parley: a desktop voice assistant that runs offline by default.",
        epilog='parley ask [--conversation ID] [--json] "TEXT": one typed question, answered on stdout',
    )
    p.add_argument("--version", action="version", version=f"parley {__version__}")
    p.add_argument("--headless", action="store_true", help="run the voice loop in the terminal, no window")
    p.add_argument("--self-test", action="store_true", help="load every offline model, run a round trip and print a pass/fail table")
    p.add_argument("--list-devices", action="store_true", help="list audio input and output devices and exit")
    p.add_argument("--json", action="store_true", help="with --list-devices: print one JSON document instead of a table")
    p.add_argument("--config", metavar="PATH", help="settings file (default: the user config dir, or $PARLEY_CONFIG)")
    p.add_argument("--input-device", metavar="NAME|INDEX", help="microphone (default: the system default)")
    p.add_argument("--output-device", metavar="NAME|INDEX", help="speaker (default: the system default)")
    p.add_argument("--mode", choices=["hands-free", "push-to-talk"], help="turn taking mode")
    p.add_argument("--generator", metavar="NAME", help="generator to answer with (a configured name, e.g. offline/smollm2)")
    p.add_argument("--quit-after", type=float, metavar="SECONDS", help="quit after this many seconds (smoke tests)")
    return p


def run(argv: list[str]) -> int:
    if argv[:1] == ["memory"]:
        from app.memory_cli import main as memory_main

        return memory_main(argv[1:])

    if argv[:1] == ["ask"]:  # `parley ask [--conversation ID] [--json] TEXT`: its own arguments (app.ask)
        from app.ask import main as ask_main

        return ask_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.json and not args.list_devices:
        parser.error("--json goes with --list-devices")
    if args.list_devices:
        return _call("app.audio.cli", "list_devices_main", args)
    if args.self_test:
        return _call("app.selftest", "main", args)
    if args.headless:
        return _call("app.headless", "main", args)
    return _call("app.ui.main", "main", args)


def _call(module: str, func: str, args: argparse.Namespace) -> int:
    if importlib.util.find_spec(module) is None:
        from app.ui.placeholder import show_missing

        return show_missing(f"{module}.{func} is not built yet", headless=args.headless or args.self_test or args.list_devices)
    mod = importlib.import_module(module)
    return int(getattr(mod, func)(args))
