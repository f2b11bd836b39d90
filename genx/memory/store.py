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
* Failures are typed (:class:`MemoryLockedError`, :class:`MemoryFullError`,
  :class:`MemoryVersionError`); opening the file, a corrupt file and the
  transactions are :mod:`genx.memory.db`'s, the records :mod:`genx.memory.facts`'s.

Thread safety: one connection guarded by a lock; call from worker threads
(``asyncio.to_thread``), never from the event loop.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from genx.memory.db import (
    FILE_NAME,
    MemoryDatabase,
    MemoryFullError,
    MemoryLockedError,
    MemoryStoreError,
    MemoryVersionError,
    default_path,
)
from genx.memory.facts import COLUMNS, Fact, NewFact, fact_from_row, fact_key
from genx.memory.vocabulary import attribute

log = logging.getLogger(__name__)


class MemoryStore(MemoryDatabase):
    """See the module docstring."""

    def __init__(self, path: Path | str | None = None, *, busy_timeout_s: float = 2.0, clock: object = None) -> None:
        self._clock = clock if callable(clock) else time.time
        super().__init__(path, busy_timeout_s=busy_timeout_s)

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
            f"SELECT {COLUMNS} FROM facts WHERE subject = ? AND attribute = ? AND retired_at IS NULL", (f.subject, f.attribute)
        ).fetchall()
        current = [fact_from_row(r) for r in rows]
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
        row = conn.execute(f"SELECT {COLUMNS} FROM facts WHERE id = ?", (new_id,)).fetchone()
        return fact_from_row(row)

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
        rows = self._read(f"SELECT {COLUMNS} FROM facts WHERE id = ?", (fact_id,))
        return fact_from_row(rows[0]) if rows else None

    def current(self, subject: str | None = None) -> list[Fact]:
        if subject is None:
            return self.list()
        rows = self._read(f"SELECT {COLUMNS} FROM facts WHERE retired_at IS NULL AND subject = ? ORDER BY id", (subject,))
        return [fact_from_row(r) for r in rows]

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
        cols = ", ".join(f"f.{c.strip()}" for c in COLUMNS.split(","))
        rows = self._read(
            f"SELECT {cols}, -bm25(facts_fts) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
            "WHERE facts_fts MATCH ? AND f.retired_at IS NULL ORDER BY bm25(facts_fts) LIMIT ?",
            (match, limit),
        )
        return [(fact_from_row(r[:13]), float(r[13])) for r in rows]  # type: ignore[arg-type]

    def embeddings(self) -> list[tuple[int, bytes]]:
        rows = self._read("SELECT id, embedding FROM facts WHERE retired_at IS NULL AND embedding IS NOT NULL")
        return [(int(r[0]), bytes(r[1])) for r in rows]  # type: ignore[call-overload, arg-type]

    # last: a method named ``list`` would shadow the builtin in the annotations after it
    def list(self, *, include_retired: bool = False) -> list[Fact]:
        """Current facts (with ``include_retired`` the retired ones too), oldest first."""
        where = "" if include_retired else "WHERE retired_at IS NULL"
        return [fact_from_row(r) for r in self._read(f"SELECT {COLUMNS} FROM facts {where} ORDER BY id")]


def _fts_words(query: str) -> list[str]:
    import re

    return [w for w in re.findall(r"[^\W_]+", query.lower()) if w]


def _meta_float(conn: sqlite3.Connection, key: str) -> float:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return float(row[0]) if row else float("-inf")


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
