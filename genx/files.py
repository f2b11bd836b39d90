"""Writing a whole file so that a crash leaves either the old or the new content, never a torn one.

Owns :func:`write_atomic` (a temporary file beside the target, fsync, rename).
Does not own locking between processes or appending (the conversation store
appends and repairs its own JSONL tails).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace ``path`` with ``text`` (UTF-8, ``\\n`` newlines) atomically; creates missing parent directories."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return p


__all__ = ["write_atomic"]
