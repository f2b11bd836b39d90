"""``parley`` (the GUI entry point) as a user starts it: a real process, offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.slow, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]


def launch(tmp_path: Path, *args: str, config: str | None = None) -> tuple[subprocess.CompletedProcess[str], str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PARLEY_LOG_DIR": str(tmp_path / "logs"),
        "PARLEY_INSTANCE_NAME": f"parley-entry-{tmp_path.name}",
    }
    env.pop("PARLEY_CONFIG", None)
    if config is not None:
        cfg = tmp_path / "config" / "parley" / "config.toml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(config)
    proc = subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=100)
    log = (tmp_path / "logs" / "parley.log").read_text() if (tmp_path / "logs" / "parley.log").exists() else ""
    return proc, log


def test_the_window_opens_and_quits_cleanly(tmp_path: Path) -> None:
    proc, log = launch(tmp_path, "--quit-after", "2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "window shown" in log
    assert "Parley closed cleanly" in log
    assert (tmp_path / "config" / "parley" / "window-state.ini").exists()  # geometry remembered


def test_a_broken_settings_file_does_not_stop_the_app(tmp_path: Path) -> None:
    proc, log = launch(tmp_path, "--quit-after", "2", config="[loop]\nend_of_turn_silence_ms = -5\nbogus = 1\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Parley closed cleanly" in log
    assert (tmp_path / "config" / "parley" / "config.toml").read_text().startswith("[loop]\nend_of_turn_silence_ms = -5")
