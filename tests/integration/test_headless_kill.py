"""Kill -9 mid-turn: ``parley --headless`` is killed at a random point of a spoken answer; every turn it had
finished is in the store, the file loads clean, and Parley starts again on the same data.

A real process on the PulseAudio virtual devices, as ``test_headless_cli.py`` runs it. The kill point is drawn
at random (printed, and fixed by ``PARLEY_KILL_SEED``) between the user's transcript and well into the answer.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from pulse import PA_MIC, PA_SPEAKER, PulseServer
from test_headless_cli import STARTUP_LINES, Terminal

from genx.agentkit.store import ConversationStore

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(420)]

ROOT = Path(__file__).resolve().parents[2]
STORY = "You are a storyteller. Always answer with a long story of at least ten sentences."
# a finished turn must be on disk this long after its answer line was printed (the write is fsynced on a worker)
WRITE_GRACE_S = 1.0


def _start(env: dict[str, str]) -> tuple[subprocess.Popen[str], Terminal]:
    cmd = [sys.executable, "-m", "app", "--headless", "--input-device", PA_MIC, "--output-device", PA_SPEAKER]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, Terminal(proc)


def _answer_line(s: str) -> bool:
    return s.startswith("parley: ") and not s.startswith(STARTUP_LINES)


def test_a_sigkill_mid_answer_keeps_every_finished_turn_and_the_file_loads_clean(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    seed = int(os.environ.get("PARLEY_KILL_SEED", str(time.time_ns() % 10_000)))
    kill_after = random.Random(seed).uniform(0.3, 6.0)
    print(f"kill seed {seed}: SIGKILL {kill_after:.2f} s after the second transcript")
    config = tmp_path / "config.toml"
    config.write_text(f'[loop]\nend_of_turn_silence_ms = 500\nsystem_prompt = "{STORY}"\n', encoding="utf-8")
    env = pulse_env.env()
    env.update(
        PARLEY_CONFIG=str(config),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
        PYTHONUNBUFFERED="1",
    )
    (tmp_path / "run").mkdir(mode=0o700)
    store = ConversationStore(tmp_path / "data" / "parley" / "conversations")
    proc, term = _start(env)
    try:
        term.wait_for(lambda s: s.startswith("listening"), 240, "'listening…' (models loaded)")
        cid = next(s.split()[1] for s in term.lines if s.startswith("conversation "))
        time.sleep(0.5)
        pulse_env.play_into_mic(np.frombuffer(say_espeak("Tell me a short story about a cat."), dtype="<i2"))
        term.wait_for(lambda s: s.startswith("you: "), 60, "the first transcript")
        first = term.wait_for(_answer_line, 240, "the first answer")
        done_at = time.monotonic()
        time.sleep(1.0)
        pulse_env.play_into_mic(np.frombuffer(say_espeak("Tell me a long story about a brave little dragon."), dtype="<i2"))
        term.wait_for(lambda s: s.startswith("you: "), 60, "the second transcript")
        time.sleep(kill_after)
        killed_at = time.monotonic()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    term.drain()  # what it printed before the kill that no wait_for had read yet (an answer line, once in CI)
    print("\n".join(term.lines))
    finished = [s for s in term.lines if _answer_line(s)]
    assert finished[0] == first and done_at + WRITE_GRACE_S <= killed_at
    records, problems = store.load_with_errors(cid)
    assert problems == [], problems  # no torn or half-written line, whatever the kill interrupted
    # the turn finished before the kill is stored as it was printed; the killed one is absent or, if its answer
    # had ended just before the kill, stored whole; nothing else
    assert 1 <= len(records) <= 2, records
    # (an answer of several paragraphs prints as several lines: the printed line is its first)
    assert f"parley: {records[0].assistant_text}".startswith(first.split(" [error")[0]) and not records[0].interrupted, records[0]
    if len(records) == 2:
        assert len(finished) == 2 and records[1].turn_id != records[0].turn_id

    # Parley starts again on the same data (no stale lock, no unreadable file) and quits cleanly
    proc, term = _start(env)
    try:
        term.wait_for(lambda s: s.startswith("listening"), 240, "'listening…' after the restart")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 0, "\n".join(term.lines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    again, problems = store.load_with_errors(cid)
    assert problems == [] and [r.turn_id for r in again] == [r.turn_id for r in records]
