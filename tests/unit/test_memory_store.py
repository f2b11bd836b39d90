"""The memory store: conflicts, forgetting, migrations, concurrency, corrupt / locked / full databases."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

import pytest

from genx.memory.schema import MIGRATIONS, VERSION, migrate
from genx.memory.store import MemoryFullError, MemoryLockedError, MemoryStore, MemoryVersionError, NewFact


def fact(attr: str, value: str, subject: str = "user", at: float | None = None) -> NewFact:
    return NewFact(subject, attr, value, f"The user {attr} {value}.", labels=(attr,), at=at)


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "memory.sqlite3", busy_timeout_s=0.2)


def test_a_conflicting_fact_retires_the_old_one_which_is_kept_for_audit_but_never_recalled(store: MemoryStore) -> None:
    old = store.add(fact("lives_in", "Lisbon"))
    new = store.add(fact("lives_in", "Berlin"))
    assert old is not None and new is not None
    assert [f.value for f in store.list()] == ["Berlin"]
    retired = store.get(old.id)
    assert retired is not None and retired.retired_at is not None and retired.replaced_by == new.id
    assert [f.value for f, _ in store.search("Lisbon")] == []
    assert [f.value for f in store.by_labels(["lives_in"])] == ["Berlin"]


def test_multi_valued_attributes_keep_every_value_and_a_repeat_is_not_a_new_fact(store: MemoryStore) -> None:
    store.add_many([fact("likes", "jazz"), fact("likes", "hiking"), fact("likes", "Jazz")])
    assert sorted(f.value for f in store.list()) == ["hiking", "jazz"]


def test_a_forgotten_fact_and_its_history_are_deleted_and_an_older_extraction_cannot_bring_it_back(store: MemoryStore) -> None:
    store.add(fact("lives_in", "Lisbon", at=10.0))
    berlin = store.add(fact("lives_in", "Berlin", at=20.0))
    assert berlin is not None and store.forget(berlin.id)
    assert store.list(include_retired=True) == []
    assert store.add(fact("lives_in", "Berlin", at=15.0)) is None  # said before it was forgotten
    assert store.add(fact("lives_in", "Lisbon", at=15.0)) is None
    assert store.forget(12345) is False


def test_clear_deletes_everything_and_nothing_said_before_it_is_stored_later(store: MemoryStore) -> None:
    store.add(fact("job", "nurse", at=1.0))
    assert store.clear() == 1
    assert store.add(fact("job", "nurse", at=2.0)) is None
    assert store.add(fact("job", "pilot")) is not None  # said now
    assert [f.value for f in store.list(include_retired=True)] == ["pilot"]


def test_search_matches_stemmed_words_and_the_indexed_terms(store: MemoryStore) -> None:
    store.add(NewFact("user", "lives_in", "Berlin", "The user lives in Berlin.", labels=("lives_in",), terms="live home city"))
    assert [f.value for f, _ in store.search("city live")] == ["Berlin"]
    assert store.search("brother live") == []
    assert store.search("???") == []


def test_a_version_1_database_is_migrated_keeping_its_facts(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=1)
    conn.execute(
        "INSERT INTO facts(subject, attribute, value, text, confidence, source, created_at) "
        "VALUES ('user', 'job', 'nurse', 'The user works as a nurse.', 0.9, 'rules', 1.0)"
    )
    conn.close()
    with MemoryStore(path) as s:
        assert s.version() == VERSION == len(MIGRATIONS)
        assert [f.value for f in s.list()] == ["nurse"]
        assert [f.value for f, _ in s.search("nurse")] == ["nurse"]  # the FTS index was rebuilt


def test_a_database_from_a_newer_parley_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(MemoryVersionError, match="newer Parley"):
        MemoryStore(path)
    assert path.read_bytes() == before


def test_a_corrupt_file_is_renamed_aside_with_a_warning_and_a_fresh_one_is_created(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "memory.sqlite3"
    garbage = b"this is not a database, just some bytes" * 200
    path.write_bytes(garbage)
    (tmp_path / "conversations.jsonl").write_text("keep me")
    with caplog.at_level(logging.WARNING), MemoryStore(path) as s:
        assert s.list() == [] and s.add(fact("job", "nurse")) is not None
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("memory.sqlite3.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == garbage
    assert (tmp_path / "conversations.jsonl").read_text() == "keep me"
    assert any("corrupt" in r.getMessage() for r in caplog.records)


def test_a_database_locked_by_another_process_is_a_typed_error_and_nothing_is_lost(store: MemoryStore) -> None:
    store.add(fact("job", "nurse"))
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(MemoryLockedError, match="in use by another program"):
            store.add(fact("lives_in", "Berlin"))
        assert [f.value for f in store.list()] == ["nurse"]  # WAL: reading still works
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.add(fact("lives_in", "Berlin")) is not None
    assert sorted(f.value for f in store.list()) == ["Berlin", "nurse"]


def test_a_full_disk_rolls_the_write_back_with_a_typed_error(store: MemoryStore) -> None:
    store.add(fact("job", "nurse"))
    store._conn.execute("PRAGMA max_page_count = " + str(store._conn.execute("PRAGMA page_count").fetchone()[0]))
    big = [NewFact("user", "note", "x" * 3000 + str(i), "y" * 3000 + str(i), labels=("note",)) for i in range(20)]
    with pytest.raises(MemoryFullError, match="full"):
        store.add_many(big)
    assert [f.value for f in store.list()] == ["nurse"]


def test_concurrent_writer_and_reader_threads_see_consistent_facts(store: MemoryStore) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(n: int) -> None:
        try:
            for i in range(40):
                store.add(fact("likes", f"thing {n}-{i}"))
                store.add(fact(f"fav_{n}", f"v{i}"))
        except BaseException as e:
            errors.append(e)

    def reader() -> None:
        try:
            while not stop.is_set():
                for n in range(2):
                    assert len([f for f in store.list() if f.attribute == f"fav_{n}"]) <= 1  # never two current values
                store.search("thing")
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(2)] + [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads[:2]:
        t.join()
    stop.set()
    for t in threads[2:]:
        t.join()
    assert errors == []
    assert len([f for f in store.list() if f.attribute == "likes"]) == 80
    assert [f.value for f in store.list() if f.attribute == "fav_0"] == ["v39"]
