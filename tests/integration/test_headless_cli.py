"""``parley --headless`` as a user runs it: a real process on the PulseAudio virtual devices.

The test starts the command with the test server's environment (PortAudio reaches
the virtual microphone and speaker through ALSA's pulse plugin), speaks a question
into the microphone, reads the conversation from the terminal output, records the
speaker, stops the process with Ctrl-C (SIGINT) and reads the stored conversation.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PA_MIC, PA_SPEAKER, PulseServer, loud_span

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
RATE = 16000
STARTUP_LINES = ("parley: microphone", "parley: loading", "parley: bye")


class Terminal:
    """The process's stdout, line by line, read by a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        self._proc = proc
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._q.put(line.rstrip("\n"))
        self._q.put(None)

    def drain(self, timeout: float = 10.0) -> list[str]:
        """After the process ended: every line it printed that no :meth:`wait_for` took yet, up to its end of output."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._q.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return self.lines

    def wait_for(self, pred: Callable[[str], bool], timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {what} within {timeout:.0f} s; output so far:\n" + "\n".join(self.lines))
            try:
                line = self._q.get(timeout=min(left, 1.0))
            except queue.Empty:
                if self._proc.poll() is not None and self._q.empty():
                    raise AssertionError(f"parley exited ({self._proc.returncode}) before {what}:\n" + "\n".join(self.lines)) from None
                continue
            if line is None:
                raise AssertionError(f"parley closed its output before {what}:\n" + "\n".join(self.lines))
            self.lines.append(line)
            if pred(line):
                return line


def test_parley_headless_holds_a_spoken_conversation_on_real_devices(
    pulse_env: PulseServer, tmp_path: Path, say_espeak: Callable[[str], bytes]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[loop]\nend_of_turn_silence_ms = 500\n", encoding="utf-8")
    env = pulse_env.env()
    env.update(
        PARLEY_CONFIG=str(config),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHONUNBUFFERED="1",
    )
    cmd = [sys.executable, "-m", "app", "--headless", "--input-device", PA_MIC, "--output-device", PA_SPEAKER]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    term = Terminal(proc)
    try:
        term.wait_for(lambda s: s.startswith("listening"), 180, "'listening…' (models loaded)")
        rec = pulse_env.record()
        try:
            time.sleep(0.5)
            pb = pulse_env.play_into_mic(np.frombuffer(say_espeak("What color is the sky on a clear day?"), dtype="<i2"))
            you = term.wait_for(lambda s: s.startswith("you: "), 60, "the user's transcript")
            said = term.wait_for(lambda s: s.startswith("parley: ") and not s.startswith(STARTUP_LINES), 120, "the answer")
            time.sleep(0.5)
        finally:
            spoken = rec.stop()
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(60)
        term.wait_for(lambda s: s.startswith("parley: bye"), 10, "the goodbye line")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    print("\n".join(term.lines))
    assert rc == 0, "\n".join(term.lines)
    assert len(you.removeprefix("you: ").split()) >= 3, you
    answer = said.removeprefix("parley: ")
    assert answer.strip() and "[error" not in answer, said
    assert "parley: bye (1 turns)" in term.lines
    greeting = next(line for line in term.lines if line.startswith("parley: microphone"))
    assert f"] {PA_MIC} (ALSA," in greeting and f"] {PA_SPEAKER} (ALSA," in greeting, greeting  # the device labels
    assert not [line for line in term.lines if line.startswith("ALSA lib")], "libasound's error lines reached the terminal"
    # the answer was played on the speaker after the question
    after = spoken[rec.index_at(pb.started_at + pb.duration_s) :]
    assert loud_span(after, RATE, -45.0) is not None, "nothing was played on the speaker"
    # and the turn is in the conversation store of the user's data dir
    files = list((tmp_path / "data" / "parley" / "conversations").glob("*.jsonl"))
    assert len(files) == 1, os.listdir(tmp_path / "data")
    records = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [r["user_text"] for r in records] == [you.removeprefix("you: ")]
    assert records[0]["assistant_text"] == answer.removesuffix(" [interrupted]")
