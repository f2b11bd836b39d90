"""The memory store: facts in one SQLite file (WAL, FTS5) in the user data dir.

A fact says one thing about one subject (``user`` or a named person, place or
thing): ``(subject, attribute, value)`` plus the sentence recalled, its labels
and search terms, a confidence, where it came from (``source``: rules, model,
explicit), the turn and conversation it was told in, and when.

* Conflicts: a new fact for the same subject + attribute retires the current
  one (``retired_at`` set, ``replaced_by`` the new id) unless the attribute
  holds several values (``likes``); retired facts stay for audit and are never
  returned by :meth:`current`, :meth:`search` or :meth:`by_labels`.
* Privacy: :meth:`forget` deletes a fact and the history it replaced, and keeps
  a tombstone (a hash, not the text) so a late extraction of an older turn
  cannot bring it back; :meth:`clear` deletes everything and remembers when, so
  nothing told before it comes back either. ``secure_delete`` overwrites
  deleted content. Nothing here logs a fact's words: only counts and ids.
* Failures are typed: :class:`MemoryLockedError` (another process holds the
  file longer than ``busy_timeout_s``; nothing was written, retry later),
  :class:`MemoryFullError` (disk or size limit; the write was rolled back),
  :class:`MemoryVersionError` (written by a newer Parley; the file is untouched).
  A corrupt file is renamed aside (``memory.sqlite3.corrupt-<time>``) with a
  warning and a fresh one is created.

Thread safety: one connection guarded by a lock; call from worker threads
(``asyncio.to_thread``), never from the event loop.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from genx.errors import GenxError
from genx.memory.schema import VERSION, migrate, user_version
from genx.memory.vocabulary import attribute

log = logging.getLogger(__name__)

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


@dataclass(frozen=True, slots=True)
class NewFact:
    """A fact to store. ``at`` is when it was said (the turn's time); now when None."""

    subject: str
    attribute: str
    value: str
    text: str
    confidence: float = 1.0
    source: str = "rules"
    turn_id: str = ""
    conversation_id: str = ""
    labels: tuple[str, ...] = ()
    terms: str = ""
    at: float | None = None

    def key(self) -> str:
        return fact_key(self.subject, self.attribute, self.value)


@dataclass(frozen=True, slots=True)
class Fact:
    id: int
    subject: str
    attribute: str
    value: str
    text: str
    confidence: float
    source: str
    turn_id: str
    conversation_id: str
    created_at: float
    retired_at: float | None
    replaced_by: int | None
    labels: tuple[str, ...]


def fact_key(subject: str, attr: str, value: str) -> str:
    """The tombstone key: a hash, so a forgotten fact's words are not kept."""
    raw = "\x1f".join((subject.strip().lower(), attr.strip().lower(), " ".join(value.lower().split())))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


_COLUMNS = "id, subject, attribute, value, text, confidence, source, turn_id, conversation_id, created_at, retired_at, replaced_by, labels"


def _fact(row: sqlite3.Row | tuple[object, ...]) -> Fact:
    r = tuple(row)
    labels = tuple(str(r[12]).split()) if r[12] else ()
    return Fact(
        int(r[0]),  # type: ignore[call-overload]
        str(r[1]),
        str(r[2]),
        str(r[3]),
        str(r[4]),
        float(r[5]),  # type: ignore[arg-type]
        str(r[6]),
        str(r[7]),
        str(r[8]),
        float(r[9]),  # type: ignore[arg-type]
        None if r[10] is None else float(r[10]),  # type: ignore[arg-type]
        None if r[11] is None else int(r[11]),  # type: ignore[call-overload]
        labels,
    )


class MemoryStore:
    """See the module docstring."""

    def __init__(self, path: Path | str | None = None, *, busy_timeout_s: float = 2.0, clock: object = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._busy_ms = int(busy_timeout_s * 1000)
        self._lock = threading.RLock()
        self._clock = clock if callable(clock) else time.time
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

    def __enter__(self) -> MemoryStore:
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

    # -- writing ----------------------------------------------------------------------------------
    def add(self, fact: NewFact) -> Fact | None:
        """Store ``fact`` (retiring the one it contradicts); None when it was forgotten or cleared since it was said."""
        return self.add_many([fact])[0]

    def add_many(self, facts: Iterable[NewFact]) -> list[Fact | None]:
        """:meth:`add` for several facts in one transaction (all or nothing)."""
        out: list[Fact | None] = []
        with self._write() as conn:
            cleared = _meta_float(conn, "cleared_at")
            for f in facts:
                out.append(self._add_one(conn, f, cleared))
        return out

    def _add_one(self, conn: sqlite3.Connection, f: NewFact, cleared: float) -> Fact | None:
        now = self._clock()  # type: ignore[operator]
        said = f.at if f.at is not None else now
        if said < cleared:
            return None
        stone = conn.execute("SELECT at FROM tombstones WHERE key = ?", (f.key(),)).fetchone()
        if stone is not None and said <= float(stone[0]):
            return None
        multi = attribute(f.attribute).multi
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM facts WHERE subject = ? AND attribute = ? AND retired_at IS NULL", (f.subject, f.attribute)
        ).fetchall()
        current = [_fact(r) for r in rows]
        same = next((c for c in current if " ".join(c.value.lower().split()) == " ".join(f.value.lower().split())), None)
        if same is not None:
            if f.confidence > same.confidence:
                conn.execute("UPDATE facts SET confidence = ? WHERE id = ?", (f.confidence, same.id))
            return same
        cur = conn.execute(
            "INSERT INTO facts(subject, attribute, value, text, confidence, source, turn_id, conversation_id, created_at, labels, terms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                f.subject,
                f.attribute,
                f.value,
                f.text,
                f.confidence,
                f.source,
                f.turn_id,
                f.conversation_id,
                said,
                " ".join(f.labels),
                f.terms,
            ),
        )
        new_id = int(cur.lastrowid or 0)
        if not multi:
            for c in current:
                conn.execute("UPDATE facts SET retired_at = ?, replaced_by = ? WHERE id = ?", (now, new_id, c.id))
        row = conn.execute(f"SELECT {_COLUMNS} FROM facts WHERE id = ?", (new_id,)).fetchone()
        return _fact(row)

    def retire(self, subject: str, attr: str, value: str | None = None) -> int:
        """Retire the current facts of ``subject`` + ``attr`` (only ``value`` when given); returns how many."""
        now = self._clock()  # type: ignore[operator]
        with self._write() as conn:
            rows = conn.execute("SELECT id, value FROM facts WHERE subject = ? AND attribute = ? AND retired_at IS NULL", (subject, attr))
            ids = [int(r[0]) for r in rows.fetchall() if value is None or str(r[1]).lower() == value.lower()]
            conn.executemany("UPDATE facts SET retired_at = ? WHERE id = ?", [(now, i) for i in ids])
        return len(ids)

    def forget(self, fact_id: int) -> bool:
        """Delete one fact, the retired history it replaced, and keep a tombstone. False when there is no such fact."""
        now = self._clock()  # type: ignore[operator]
        with self._write() as conn:
            row = conn.execute("SELECT subject, attribute, value FROM facts WHERE id = ?", (fact_id,)).fetchone()
            if row is None:
                return False
            subject, attr, value = str(row[0]), str(row[1]), str(row[2])
            doomed = {fact_id}
            frontier = [fact_id]
            while frontier:  # the facts this one replaced, and those they replaced …
                q = f"SELECT id FROM facts WHERE replaced_by IN ({','.join('?' * len(frontier))})"
                frontier = [int(r[0]) for r in conn.execute(q, frontier).fetchall() if int(r[0]) not in doomed]
                doomed.update(frontier)
            history = conn.execute(
                f"SELECT subject, attribute, value FROM facts WHERE id IN ({','.join('?' * len(doomed))})", tuple(doomed)
            ).fetchall()
            conn.execute(f"DELETE FROM facts WHERE id IN ({','.join('?' * len(doomed))})", tuple(doomed))
            conn.execute("UPDATE facts SET replaced_by = NULL WHERE replaced_by IN ({})".format(",".join("?" * len(doomed))), tuple(doomed))
            keys = {fact_key(subject, attr, value), *(fact_key(str(h[0]), str(h[1]), str(h[2])) for h in history)}
            conn.executemany("INSERT OR REPLACE INTO tombstones(key, at) VALUES (?, ?)", [(k, now) for k in keys])
        self._scrub()
        return True

    def _scrub(self) -> None:
        """After a deletion: merge the search index and empty the WAL, so the deleted words leave the files too."""
        with self._lock:
            try:
                self._conn.execute("INSERT INTO facts_fts(facts_fts) VALUES ('optimize')")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.OperationalError as e:  # a reader elsewhere keeps the WAL; it is truncated on a later checkpoint
                log.info("memory: could not compact after a deletion: %s", type(e).__name__)

    def clear(self) -> int:
        """Delete every fact; nothing said before now is stored later. Returns how many were deleted."""
        now = self._clock()  # type: ignore[operator]
        with self._write() as conn:
            n = int(conn.execute("SELECT count(*) FROM facts").fetchone()[0])
            conn.execute("DELETE FROM facts")
            conn.execute("DELETE FROM tombstones")
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('cleared_at', ?)", (repr(now),))
        self._scrub()
        return n

    def set_embedding(self, fact_id: int, vector: bytes) -> None:
        with self._write() as conn:
            conn.execute("UPDATE facts SET embedding = ? WHERE id = ?", (vector, fact_id))

    # -- reading ------------------------------------------------------------------------------------
    def get(self, fact_id: int) -> Fact | None:
        rows = self._read(f"SELECT {_COLUMNS} FROM facts WHERE id = ?", (fact_id,))
        return _fact(rows[0]) if rows else None

    def current(self, subject: str | None = None) -> list[Fact]:
        if subject is None:
            return self.list()
        rows = self._read(f"SELECT {_COLUMNS} FROM facts WHERE retired_at IS NULL AND subject = ? ORDER BY id", (subject,))
        return [_fact(r) for r in rows]

    def labels(self) -> list[str]:
        """Every label of a current fact, sorted."""
        out: set[str] = set()
        for (labels,) in self._read("SELECT DISTINCT labels FROM facts WHERE retired_at IS NULL"):
            out.update(str(labels).split())
        return sorted(out)

    def by_labels(self, labels: Sequence[str]) -> list[Fact]:
        if not labels:
            return []
        wanted = set(labels)
        return [f for f in self.list() if wanted.intersection(f.labels)]

    def search(self, query: str, *, limit: int = 10, all_terms: bool = True) -> list[tuple[Fact, float]]:
        """Current facts matching the words of ``query`` (FTS5, porter stemming), best first, with a relevance > 0."""
        words = _fts_words(query)
        if not words:
            return []
        match = (" AND " if all_terms else " OR ").join(f'"{w}"' for w in words)
        cols = ", ".join(f"f.{c.strip()}" for c in _COLUMNS.split(","))
        rows = self._read(
            f"SELECT {cols}, -bm25(facts_fts) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
            "WHERE facts_fts MATCH ? AND f.retired_at IS NULL ORDER BY bm25(facts_fts) LIMIT ?",
            (match, limit),
        )
        return [(_fact(r[:13]), float(r[13])) for r in rows]  # type: ignore[arg-type]

    def embeddings(self) -> list[tuple[int, bytes]]:
        rows = self._read("SELECT id, embedding FROM facts WHERE retired_at IS NULL AND embedding IS NOT NULL")
        return [(int(r[0]), bytes(r[1])) for r in rows]  # type: ignore[call-overload, arg-type]

    def version(self) -> int:
        with self._lock:
            return user_version(self._conn)

    # last: a method named ``list`` would shadow the builtin in the annotations after it
    def list(self, *, include_retired: bool = False) -> list[Fact]:
        """Current facts (with ``include_retired`` the retired ones too), oldest first."""
        where = "" if include_retired else "WHERE retired_at IS NULL"
        return [_fact(r) for r in self._read(f"SELECT {_COLUMNS} FROM facts {where} ORDER BY id")]


def _fts_words(query: str) -> list[str]:
    import re

    return [w for w in re.findall(r"[^\W_]+", query.lower()) if w]


def _meta_float(conn: sqlite3.Connection, key: str) -> float:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return float(row[0]) if row else float("-inf")


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
    "Fact",
    "MemoryFullError",
    "MemoryLockedError",
    "MemoryStore",
    "MemoryStoreError",
    "MemoryVersionError",
    "NewFact",
    "default_path",
    "fact_key",
]
