"""The memory database file: opening it (WAL, checks, migrations), its typed errors, its transactions.

* :class:`MemoryLockedError`: another process holds the file longer than
  ``busy_timeout_s``; nothing was written, retry later.
* :class:`MemoryFullError`: disk or size limit; the write was rolled back.
* :class:`MemoryVersionError`: written by a newer Parley; the file is untouched.
* A corrupt file is renamed aside (``memory.sqlite3.corrupt-<time>``) with a
  warning and a fresh one is created.

:class:`MemoryDatabase` holds one connection guarded by a lock; the fact store
(:class:`genx.memory.store.MemoryStore`) builds on it. Nothing here knows what
a fact is.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from genx.errors import GenxError
from genx.memory.schema import VERSION, migrate, user_version

log = logging.getLogger("genx.memory.store")

FILE_NAME = "memory.sqlite3"


class MemoryStoreError(GenxError):
    """Base of the memory store's errors."""


class MemoryLockedError(MemoryStoreError):
    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"the memory database {path} is in use by another program (another Parley?); nothing was changed, try again")


class MemoryFullError(MemoryStoreError):
    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"the disk holding {path} is full; nothing was changed: free some space and try again")


class MemoryVersionError(MemoryStoreError):
    def __init__(self, path: Path, version: int) -> None:
        super().__init__(
            f"the memory database {path} was written by a newer Parley (schema {version}, this one knows {VERSION}); "
            "update Parley, or move the file away to start a new memory"
        )


def default_path() -> Path:
    import platformdirs

    return platformdirs.user_data_path("parley") / FILE_NAME


class MemoryDatabase:
    """One SQLite connection to the memory file, guarded by a lock; call from worker threads."""

    def __init__(self, path: Path | str | None = None, *, busy_timeout_s: float = 2.0) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._busy_ms = int(busy_timeout_s * 1000)
        self._lock = threading.RLock()
        self._conn = self._open()

    # -- opening ------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self._busy_ms / 1000, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        return conn

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            conn = self._connect()
            try:
                self._prepare(conn, check=existed)
            except BaseException:
                conn.close()
                raise
            return conn
        except sqlite3.DatabaseError as e:
            if not _is_corrupt(e):
                raise self._typed(e) from e
        aside = self._move_aside()
        log.warning("the memory database was corrupt; it was moved to %s and a new, empty memory was started", aside)
        conn = self._connect()
        self._prepare(conn, check=False)
        return conn

    def _prepare(self, conn: sqlite3.Connection, *, check: bool) -> None:
        if check:
            ok = conn.execute("PRAGMA quick_check").fetchone()
            if not ok or ok[0] != "ok":
                raise sqlite3.DatabaseError("database disk image is malformed (quick_check)")
        version = user_version(conn)
        if version > VERSION:
            raise MemoryVersionError(self.path, version)
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        if not mode or str(mode[0]).lower() != "wal":
            log.info("memory database: WAL journal not available, using %s", mode[0] if mode else "?")
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)

    def _move_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        self.path.rename(aside)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.rename(aside.with_name(aside.name + suffix))
        return aside

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ---------------------------------------------------------------------------
    def _typed(self, e: sqlite3.Error) -> Exception:
        msg = str(e).lower()
        if "locked" in msg or "busy" in msg:
            return MemoryLockedError(self.path)
        if "full" in msg or "no space" in msg:
            return MemoryFullError(self.path)
        return MemoryStoreError(f"the memory database {self.path} failed: {e}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:
                raise self._typed(e) from e
            try:
                yield conn
                conn.execute("COMMIT")
            except sqlite3.Error as e:
                _rollback(conn)
                raise self._typed(e) from e
            except BaseException:
                _rollback(conn)
                raise

    def _read(self, sql: str, args: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            try:
                return list(self._conn.execute(sql, tuple(args)).fetchall())
            except sqlite3.OperationalError as e:
                raise self._typed(e) from e

    def version(self) -> int:
        with self._lock:
            return user_version(self._conn)


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _is_corrupt(e: sqlite3.DatabaseError) -> bool:
    msg = str(e).lower()
    return "not a database" in msg or "malformed" in msg or "corrupt" in msg


__all__ = [
    "FILE_NAME",
    "MemoryDatabase",
    "MemoryFullError",
    "MemoryLockedError",
    "MemoryStoreError",
    "MemoryVersionError",
    "default_path",
]
