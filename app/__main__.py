"""``python -m app`` and the ``parley`` console script."""

from __future__ import annotations

import multiprocessing
import sys


def main(argv: list[str] | None = None) -> int:
    multiprocessing.freeze_support()  # PyInstaller: child processes must not rerun the app
    from app.memory_policy import apply_at_start

    apply_at_start()  # before any model or thread: a few malloc arenas, no oneMKL buffer cache (app.memory_policy)
    from app.cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
