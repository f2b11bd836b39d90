"""Conversation store under write faults (ENOSPC / EIO simulated by patching os.write / os.fsync), permissions, strict parsing."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from genx.agentkit.store import ConversationStore, ConversationStoreError, TurnRecord, next_turn_seq

_real_write = os.write
_real_fsync = os.fsync
_real_ftruncate = os.ftruncate


def _rec(i: int, **kw: object) -> TurnRecord:
    return TurnRecord(f"t{i}", f"question {i}", f"answer {i}", **kw)  # type: ignore[arg-type]


def _ids(store: ConversationStore, cid: str = "c1") -> list[str]:
    return [r.turn_id for r in store.load(cid)]


def _failing_write(err: int, times: int = 1, partial: bool = False) -> Callable[[int, bytes], int]:
    """An os.write that fails ``times`` times (after writing half the bytes when ``partial``), then works."""
    left = [times]

    def write(fd: int, data: bytes) -> int:
        if left[0] <= 0:
            return _real_write(fd, data)
        left[0] -= 1
        if partial:
            _real_write(fd, data[: len(data) // 2])
        raise OSError(err, os.strerror(err))

    return write


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_torn_tail_is_terminated_before_every_append_not_only_the_first(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    with open(tmp_path / "c1.jsonl", "ab") as f:
        f.write(b'{"turn_id":"t2","user_te')  # a write torn after this process's first append
    store.append("c1", _rec(3))
    records, problems = store.load_with_errors("c1")
    assert [r.turn_id for r in records] == ["t1", "t3"]
    assert len(problems) == 1 and "c1.jsonl:2" in problems[0]


def test_a_record_refused_with_enospc_is_kept_and_written_before_the_next_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    with monkeypatch.context() as m:
        m.setattr(os, "write", _failing_write(errno.ENOSPC))
        with pytest.raises(ConversationStoreError, match=r"No space left on device; 1 turn kept, to be retried"):
            store.append("c1", _rec(2))
    assert store.pending("c1") == 1
    store.append("c1", _rec(3))
    assert store.pending() == 0
    assert _ids(store) == ["t1", "t2", "t3"]
    assert ConversationStore(tmp_path).load_with_errors("c1")[1] == []


def test_a_partial_write_leaves_no_torn_line_and_the_next_turn_is_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    with monkeypatch.context() as m:
        m.setattr(os, "write", _failing_write(errno.EIO, partial=True))
        with pytest.raises(ConversationStoreError, match="Input/output error"):
            store.append("c1", _rec(2))
    store.append("c1", _rec(3))
    records, problems = ConversationStore(tmp_path).load_with_errors("c1")
    assert [r.turn_id for r in records] == ["t1", "t2", "t3"]
    assert problems == []


def test_a_short_write_counts_as_a_failure_and_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    calls: list[int] = []

    def short(fd: int, data: bytes) -> int:
        calls.append(len(data))
        return _real_write(fd, data[:5] if len(calls) == 1 else data)

    monkeypatch.setattr(os, "write", short)
    with pytest.raises(ConversationStoreError, match="short write"):
        store.append("c1", _rec(1))
    store.append("c1", _rec(2))
    monkeypatch.undo()
    assert ConversationStore(tmp_path).load_with_errors("c1") == ([_rec(1), _rec(2)], [])


def test_when_even_the_undo_fails_the_torn_line_is_terminated_by_the_next_append(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))

    def no_truncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as m:
        m.setattr(os, "write", _failing_write(errno.EIO, partial=True))
        m.setattr(os, "ftruncate", no_truncate)
        with pytest.raises(ConversationStoreError):
            store.append("c1", _rec(2))
    store.append("c1", _rec(3))
    records, problems = ConversationStore(tmp_path).load_with_errors("c1")
    assert [r.turn_id for r in records] == ["t1", "t2", "t3"]  # the half line is skipped, nothing glued to it
    assert len(problems) == 1 and "c1.jsonl:2" in problems[0]


def test_a_failed_fsync_keeps_the_record_and_the_retry_does_not_duplicate_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    failed = [False]

    def fsync(fd: int) -> None:
        if not failed[0] and stat.S_ISREG(os.fstat(fd).st_mode):
            failed[0] = True
            raise OSError(errno.EIO, "Input/output error")
        _real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(ConversationStoreError):
        store.append("c1", _rec(2))
    store.append("c1", _rec(3))
    monkeypatch.undo()
    lines = (tmp_path / "c1.jsonl").read_text().splitlines()
    assert [json.loads(ln)["turn_id"] for ln in lines] == ["t1", "t2", "t3"]


def test_a_retried_record_that_reached_the_disk_after_all_is_loaded_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    failed = [False]

    def fsync(fd: int) -> None:
        if not failed[0] and stat.S_ISREG(os.fstat(fd).st_mode):
            failed[0] = True
            raise OSError(errno.EIO, "Input/output error")
        _real_fsync(fd)

    def no_truncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", fsync)
        m.setattr(os, "ftruncate", no_truncate)
        with pytest.raises(ConversationStoreError):
            store.append("c1", _rec(1))
    store.flush()
    assert len((tmp_path / "c1.jsonl").read_text().splitlines()) == 2  # the line landed twice on disk
    assert ConversationStore(tmp_path).load_with_errors("c1") == ([_rec(1)], [])


def test_flush_writes_what_is_pending_once_the_disk_recovers_and_load_sees_it_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(os, "write", _failing_write(errno.ENOSPC, times=10))
        for i in (1, 2):
            with pytest.raises(ConversationStoreError):
                store.append("c1", _rec(i))
        with pytest.raises(ConversationStoreError, match="2 turns kept"):
            store.flush()
        assert _ids(store) == ["t1", "t2"]  # what was appended loads even while the disk refuses it
        assert ConversationStore(tmp_path).load("c1") == []
    store.flush()
    assert store.pending() == 0
    assert _ids(ConversationStore(tmp_path)) == ["t1", "t2"]


def test_pending_records_of_another_conversation_are_retried_by_the_next_append(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ConversationStore(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(os, "write", _failing_write(errno.ENOSPC))
        with pytest.raises(ConversationStoreError):
            store.append("old", _rec(1))
    store.append("new", _rec(1))
    assert _ids(ConversationStore(tmp_path), "old") == ["t1"]
    assert store.pending() == 0


def test_new_files_are_private_0600_in_a_0700_directory(tmp_path: Path, umask_022: None) -> None:
    root = tmp_path / "data" / "conversations"
    ConversationStore(root).append("c1", _rec(1))
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE((root / "c1.jsonl").stat().st_mode) == 0o600


def test_creating_a_conversation_file_fsyncs_its_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[tuple[bool, int]] = []

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        synced.append((stat.S_ISDIR(st.st_mode), st.st_ino))
        _real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    store = ConversationStore(tmp_path)
    store.append("c1", _rec(1))
    assert (True, tmp_path.stat().st_ino) in synced
    synced.clear()
    store.append("c1", _rec(2))
    assert not any(is_dir for is_dir, _ in synced)  # an existing file: only the file is synced


def test_encoding_failure_is_a_typed_error_and_nothing_is_queued(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    with pytest.raises(ConversationStoreError, match="cannot encode turn 't1'"):
        store.append("c1", _rec(1, timings={"x": object()}))
    assert store.pending() == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("interrupted", "false"),
        ("interrupted", 0),
        ("typed", "yes"),
        ("typed", None),
        ("started_at", "now"),
        ("started_at", True),
        ("error", 3),
    ],
)
def test_a_field_of_the_wrong_type_makes_the_line_corrupt_instead_of_coercing_it(tmp_path: Path, field: str, value: object) -> None:
    d = json.loads(_rec(1).to_json())
    d[field] = value
    (tmp_path / "c1.jsonl").write_text(json.dumps(d) + "\n" + _rec(2).to_json() + "\n")
    records, problems = ConversationStore(tmp_path).load_with_errors("c1")
    assert [r.turn_id for r in records] == ["t2"]
    assert len(problems) == 1 and repr(field) in problems[0]


def test_an_out_of_range_start_time_is_a_corrupt_line_not_a_crash(tmp_path: Path) -> None:
    d = json.loads(_rec(1).to_json())
    (tmp_path / "c1.jsonl").write_text(json.dumps(d).replace('"started_at": 0.0', '"started_at": 1' + "0" * 400) + "\n")
    records, problems = ConversationStore(tmp_path).load_with_errors("c1")
    assert records == [] and "'started_at' is out of range" in problems[0]


def test_next_turn_seq_continues_after_the_highest_stored_turn_id() -> None:
    assert next_turn_seq([]) == 1
    records = [TurnRecord(t, "q", "a") for t in ("t1", "t7", "x3", "t3", "t", "t12b")]
    assert next_turn_seq(records) == 8
