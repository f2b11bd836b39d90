"""The turn-taking bench runs end to end on the virtual devices and reports what its JSON line promises.

A smoke run (``--quick --sets a --n 2 --json``: two complete questions per detector)
as a subprocess, with a hang guard; the numbers themselves are the bench's business.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
TOP_FIELDS = (
    "v2v_ms_p50",
    "v2v_ms_p95",
    "cutoff_rate",
    "backchannel_stop_rate",
    "interrupt_caught_rate",
    "duck_ms_p50",
    "stop_ms_p50",
    "turn_model_ms_p50",
    "self_interruptions",
)


def test_a_quick_run_prints_both_detectors_and_a_json_line_with_every_field() -> None:
    for tool in ("espeak-ng", "pulseaudio", "parec", "paplay"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (apt-get install espeak-ng pulseaudio pulseaudio-utils)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        res = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "turn_taking.py"), "--quick", "--sets", "a", "--n", "2", "--json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"the bench hung; its output so far:\n{e.stdout}\n{e.stderr}") from e
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    report = json.loads(res.stdout.strip().splitlines()[-1])
    for key in TOP_FIELDS:
        assert key in report, key
    assert report["variant"] == "smart-turn"  # the app's default detector is on top
    assert set(report["variants"]) == {"silence", "smart-turn"}
    for variant in report["variants"].values():
        assert variant["items"] == {"a": 2}
        for key in TOP_FIELDS:
            assert key in variant, (variant["variant"], key)
    # set a ran: two questions were answered and timed, from the recordings
    assert report["v2v_n"] >= 1 and report["v2v_ms_p50"] > 0, report
    assert report["turn_model_ms_p50"] is not None, "smart-turn asked its model at the pauses"
    assert report["variants"]["silence"]["turn_model_ms_p50"] is None, "the silence rule asks no model"
    assert report["cutoff_rate"] is None and report["self_interruptions"] is None  # sets b-e did not run
    assert "smart-turn p50" in res.stdout and "silence p50" in res.stdout  # the table has both side by side
