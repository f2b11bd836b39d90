"""``parley memory list|forget ID|clear`` on a real memory file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import run
from genx.memory import MemoryStore, NewFact


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "memory.sqlite3"
    with MemoryStore(p) as s:
        s.add(NewFact("user", "lives_in", "Lisbon", "The user lives in Lisbon.", labels=("lives_in",)))
        s.add(NewFact("user", "lives_in", "Berlin", "The user lives in Berlin.", labels=("lives_in",)))
        s.add(NewFact("user", "job", "nurse", "The user works as a nurse.", labels=("job",)))
    return p


def test_list_shows_current_facts_with_their_ids(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["memory", "--path", str(path), "list"]) == 0
    out = capsys.readouterr().out
    assert "The user lives in Berlin." in out and "Lisbon" not in out and "    3  " in out
    assert run(["memory", "--path", str(path), "list", "--all", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["value"] for r in rows] == ["Lisbon", "Berlin", "nurse"] and rows[0]["retired_at"] is not None


def test_forget_deletes_one_fact_and_an_unknown_id_fails(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["memory", "--path", str(path), "forget", "3"]) == 0
    assert run(["memory", "--path", str(path), "forget", "3"]) == 1
    with MemoryStore(path) as s:
        assert [f.value for f in s.list()] == ["Berlin"]


def test_clear_needs_yes_when_not_interactive(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["memory", "--path", str(path), "clear"]) == 1
    assert run(["memory", "--path", str(path), "clear", "--yes"]) == 0
    assert "deleted 3 fact(s)" in capsys.readouterr().out
    with MemoryStore(path) as s:
        assert s.list(include_retired=True) == []


def test_listing_a_memory_that_does_not_exist_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["memory", "--path", str(tmp_path / "none.sqlite3"), "list"]) == 0
    assert "remembers nothing" in capsys.readouterr().out and list(tmp_path.iterdir()) == []
