"""``parley ask`` as a user runs it: a real process on the offline default (SmolLM2-135M on llama.cpp), its own data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]


def parley_ask(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config")}
    env.pop("PARLEY_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "app", "ask", *args], env=env, capture_output=True, text=True, timeout=240, cwd=home)


def last_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    assert isinstance(doc, dict)
    return doc


def test_arithmetic_is_answered_by_the_calculator(tmp_path: Path) -> None:
    doc = last_json(parley_ask(tmp_path, "--json", "what is 17 times 23"))
    assert "391" in doc["answer"]
    assert [c["name"] for c in doc["tool_calls"]] == ["calculate"]
    assert "391" in doc["tool_calls"][0]["result"]
    assert doc["conversation_id"]


def test_the_time_in_tokyo_is_the_hour_it_is_there(tmp_path: Path) -> None:
    tokyo = ZoneInfo("Asia/Tokyo")
    before = datetime.now(tokyo)
    doc = last_json(parley_ask(tmp_path, "--json", "What time is it in Tokyo?"))
    after = datetime.now(tokyo)
    spoken = {f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}" for t in (before, after, after + timedelta(seconds=1))}
    assert any(s in doc["answer"] for s in spoken), (doc["answer"], spoken)
    assert doc["tool_calls"][0]["name"] == "current_time"
    assert doc["tool_calls"][0]["arguments"] == {"place": "Tokyo"}


def test_a_conversation_continues_and_every_turn_is_stored(tmp_path: Path) -> None:
    first = last_json(parley_ask(tmp_path, "--json", "set a timer for ten minutes"))
    assert "10 minutes" in first["answer"]
    cid = first["conversation_id"]
    second = last_json(parley_ask(tmp_path, "--json", "--conversation", cid, "what timers do I have"))
    assert second["conversation_id"] == cid
    assert "timer 1" in second["answer"], second["answer"]  # the timer set by the first process, read from the data dir
    lines = (tmp_path / "data" / "parley" / "conversations" / f"{cid}.jsonl").read_text().splitlines()
    turns = [json.loads(line) for line in lines]
    assert [t["user_text"] for t in turns] == ["set a timer for ten minutes", "what timers do I have"]
    assert all(t["typed"] for t in turns)
    third = last_json(parley_ask(tmp_path, "--json", "what timers do I have"))
    assert third["conversation_id"] != cid  # without --conversation: a new conversation


def test_a_question_for_no_tool_gets_a_model_answer(tmp_path: Path) -> None:
    doc = last_json(parley_ask(tmp_path, "--json", "Tell me a joke about cats"))
    assert doc["tool_calls"] == []
    assert len(doc["answer"].split()) >= 3


def test_an_unknown_conversation_is_an_error_on_stderr(tmp_path: Path) -> None:
    proc = parley_ask(tmp_path, "--conversation", "nope-123", "hello")
    assert proc.returncode == 2
    assert "no conversation 'nope-123'" in proc.stderr
    assert proc.stdout == ""


def test_without_text_it_is_a_usage_error(tmp_path: Path) -> None:
    proc = parley_ask(tmp_path)
    assert proc.returncode == 2
    assert "TEXT" in proc.stderr
