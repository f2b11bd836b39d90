"""``parley ask`` remembers: a fact told in one call is in the context of a later call in a new conversation.

Real processes on the offline default (SmolLM2-135M on llama.cpp) with their own data dir. The small model's
wording is not the test: the recalled facts (``recalled`` in the ``--json`` object, what went into the answer's
context) and the memory database are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_parley_ask import ROOT, last_json, parley_ask

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]


def stored_facts(home: Path) -> list[str]:
    """What ``parley memory list --json`` shows (the user's view of the same database)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config")}
    proc = subprocess.run([sys.executable, "-m", "app", "memory", "list", "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.strip() == "Parley remembers nothing yet.":
        return []
    return [f["text"] for f in json.loads(proc.stdout)]


def test_a_fact_told_in_one_ask_is_recalled_by_a_later_ask_in_a_new_conversation(tmp_path: Path) -> None:
    told = last_json(parley_ask(tmp_path, "--json", "I live in Berlin."))
    assert stored_facts(tmp_path) == ["The user lives in Berlin."]
    asked = last_json(parley_ask(tmp_path, "--json", "Which city do I live in?"))
    assert asked["conversation_id"] != told["conversation_id"]
    assert asked["recalled"] == ["The user lives in Berlin."]


def test_forget_that_deletes_the_fact_and_a_later_ask_recalls_nothing(tmp_path: Path) -> None:
    last_json(parley_ask(tmp_path, "--json", "My sister's name is Anna."))
    assert stored_facts(tmp_path) == ["The user's sister is Anna."]
    last_json(parley_ask(tmp_path, "--json", "Forget that my sister is called Anna."))
    assert stored_facts(tmp_path) == []
    asked = last_json(parley_ask(tmp_path, "--json", "What is my sister's name?"))
    assert asked["recalled"] == []


def test_memory_switched_off_keeps_nothing(tmp_path: Path) -> None:
    config = tmp_path / "config" / "parley" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[memory]\nenabled = false\n")
    last_json(parley_ask(tmp_path, "--json", "I live in Berlin."))
    asked = last_json(parley_ask(tmp_path, "--json", "Which city do I live in?"))
    assert asked["recalled"] == []
    assert not (tmp_path / "data" / "parley" / "memory.sqlite3").exists()
