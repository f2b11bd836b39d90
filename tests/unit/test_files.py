"""genx.files.write_atomic: whole-file replacement."""

from __future__ import annotations

from pathlib import Path

import pytest

from genx.files import write_atomic


def test_write_atomic_creates_parents_and_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "data.json"
    write_atomic(target, "first, and longer\n")
    write_atomic(target, "second\n")
    assert target.read_text() == "second\n"
    assert [p.name for p in target.parent.iterdir()] == ["data.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "data.json"
    write_atomic(target, "old\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\udcff broken surrogate")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["data.json"]
