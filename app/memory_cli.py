"""``parley memory list|forget ID|clear``: see and delete what Parley remembers, from a terminal.

The facts are printed to stdout for the user who asked (they are never logged).
``list`` and ``forget`` on a memory that does not exist yet create nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from genx.memory import MemoryStore, MemoryStoreError, default_path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="parley memory", description="See and delete what Parley remembers about you.")
    p.add_argument("--path", metavar="FILE", help=f"memory database (default: {default_path()})")
    sub = p.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="list the remembered facts")
    ls.add_argument("--all", action="store_true", help="also list replaced (retired) facts")
    ls.add_argument("--json", action="store_true", help="print one JSON document")
    fg = sub.add_parser("forget", help="delete one fact for good (its id from 'list')")
    fg.add_argument("id", type=int)
    cl = sub.add_parser("clear", help="delete everything Parley remembers")
    cl.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    path = Path(args.path).expanduser() if args.path else default_path()
    if args.command in ("list", "forget") and not path.exists():
        print("Parley remembers nothing yet." if args.command == "list" else f"no fact {args.id}: Parley remembers nothing yet.")
        return 0 if args.command == "list" else 1
    try:
        with MemoryStore(path) as store:
            return _run(args, store)
    except MemoryStoreError as e:
        print(f"parley memory: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, store: MemoryStore) -> int:
    if args.command == "list":
        facts = store.list(include_retired=args.all)
        if args.json:
            print(json.dumps([_row(f) for f in facts], ensure_ascii=False, indent=2))
        elif not facts:
            print("Parley remembers nothing yet.")
        for f in facts if not args.json else []:
            when = time.strftime("%Y-%m-%d", time.localtime(f.created_at))
            retired = "  (replaced)" if f.retired_at is not None else ""
            print(f"{f.id:>5}  {when}  {f.text}{retired}")
        return 0
    if args.command == "forget":
        if store.forget(args.id):
            print(f"forgot fact {args.id}")
            return 0
        print(f"no fact {args.id}; see 'parley memory list'", file=sys.stderr)
        return 1
    if not args.yes and not _confirm(len(store.list())):
        print("nothing deleted")
        return 1
    print(f"deleted {store.clear()} fact(s)")
    return 0


def _confirm(n: int) -> bool:
    if not sys.stdin.isatty():
        print("parley memory clear: add --yes to delete without a question", file=sys.stderr)
        return False
    return input(f"Delete all {n} remembered fact(s)? [y/N] ").strip().lower() in ("y", "yes")


def _row(f: object) -> dict[str, object]:
    keys = ("id", "subject", "attribute", "value", "text", "confidence", "source", "turn_id", "conversation_id", "created_at", "retired_at")
    return {k: getattr(f, k) for k in keys}


__all__ = ["build_parser", "main"]
