"""The memory database's schema and its migrations (``PRAGMA user_version``).

``MIGRATIONS[i]`` takes a database from version ``i`` to ``i + 1``; a fresh
file runs them all. Each migration runs in one transaction with the version
bump, so a crash leaves the old version intact. A file whose version is newer
than :data:`VERSION` was written by a newer Parley: it is left untouched.
"""

from __future__ import annotations

import sqlite3

V1 = """
CREATE TABLE facts(
    id INTEGER PRIMARY KEY,
    subject TEXT NOT NULL,
    attribute TEXT NOT NULL,
    value TEXT NOT NULL,
    text TEXT NOT NULL,
    confidence REAL NOT NULL,
    source TEXT NOT NULL,
    turn_id TEXT NOT NULL DEFAULT '',
    conversation_id TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    retired_at REAL,
    replaced_by INTEGER
);
CREATE INDEX facts_key ON facts(subject, attribute) WHERE retired_at IS NULL;
CREATE VIRTUAL TABLE facts_fts USING fts5(text, content='facts', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""

# v2: labels and search terms per fact (indexed), vectors when an embedder is configured,
# tombstones of forgotten facts (hashes only) and the time of the last clear.
V2 = """
ALTER TABLE facts ADD COLUMN labels TEXT NOT NULL DEFAULT '';
ALTER TABLE facts ADD COLUMN terms TEXT NOT NULL DEFAULT '';
ALTER TABLE facts ADD COLUMN embedding BLOB;
DROP TRIGGER facts_ai;
DROP TRIGGER facts_ad;
DROP TABLE facts_fts;
CREATE VIRTUAL TABLE facts_fts USING fts5(text, terms, content='facts', content_rowid='id', tokenize='porter unicode61');
INSERT INTO facts_fts(facts_fts) VALUES ('rebuild');
CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, text, terms) VALUES (new.id, new.text, new.terms);
END;
CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, text, terms) VALUES ('delete', old.id, old.text, old.terms);
END;
CREATE TRIGGER facts_au AFTER UPDATE OF text, terms ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, text, terms) VALUES ('delete', old.id, old.text, old.terms);
    INSERT INTO facts_fts(rowid, text, terms) VALUES (new.id, new.text, new.terms);
END;
CREATE TABLE tombstones(key TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

MIGRATIONS: tuple[str, ...] = (V1, V2)
VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: int = VERSION) -> int:
    """Run the missing migrations up to ``target``; returns the version found before. Caller checks newer files."""
    found = user_version(conn)
    for version in range(found, target):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[version]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return found


def _statements(script: str) -> list[str]:
    """Split a script on ``;`` at line ends, keeping trigger bodies whole (they end with ``END;``)."""
    out: list[str] = []
    buf: list[str] = []
    in_trigger = False
    for line in script.strip().splitlines():
        buf.append(line)
        stripped = line.strip().upper()
        if stripped.startswith("CREATE TRIGGER"):
            in_trigger = True
        if stripped.endswith(";") and (not in_trigger or stripped == "END;"):
            out.append("\n".join(buf))
            buf = []
            in_trigger = False
    if buf and "".join(buf).strip():
        out.append("\n".join(buf))
    return out


__all__ = ["MIGRATIONS", "VERSION", "migrate", "user_version"]
