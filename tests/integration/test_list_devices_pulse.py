"""``parley --list-devices`` as a user runs it: a real process listing the PulseAudio test server's devices."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from pulse import PA_MIC, PA_MIC_SINK, PA_SPEAKER, PA_SPEAKER_MONITOR, PulseServer

pytestmark = [pytest.mark.integration, pytest.mark.audio, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]


def _parley(pulse: PulseServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = pulse.env()
    env.pop("PARLEY_ALSA_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)


def test_list_devices_json_shows_the_virtual_microphone_and_speaker_and_the_defaults(pulse_env: PulseServer) -> None:
    res = _parley(pulse_env, "--list-devices", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    rows = {(d["name"], d["direction"]): d for d in doc["devices"]}
    for name, direction in ((PA_MIC, "input"), (PA_SPEAKER_MONITOR, "input"), (PA_SPEAKER, "output"), (PA_MIC_SINK, "output")):
        row = rows.get((name, direction))
        assert row is not None, f"{name} ({direction}) missing from {sorted(rows)}"
        assert row["channels"] >= 1 and row["default_samplerate"] > 0 and isinstance(row["index"], int)
        assert not row["default"]  # the named PCMs are not ALSA's default device
    # The system defaults are ALSA's "default" PCM (the test server's parley_speaker / parley_mic).
    default_in = [d for d in doc["devices"] if d["direction"] == "input" and d["default"]]
    default_out = [d for d in doc["devices"] if d["direction"] == "output" and d["default"]]
    assert len(default_in) == 1 and len(default_out) == 1
    assert default_in[0]["index"] == doc["default_input"] and default_out[0]["index"] == doc["default_output"]
    assert default_in[0]["name"] == "default" and default_out[0]["name"] == "default"
    assert "ALSA lib" not in res.stderr  # libasound's probing noise is silenced


def test_list_devices_table_names_the_devices_and_how_to_choose(pulse_env: PulseServer) -> None:
    res = _parley(pulse_env, "--list-devices")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    mic = [line.split() for line in lines if line.endswith(f" {PA_MIC} (ALSA)")]
    assert [cells[1] for cells in mic] == ["input", "output"]  # ALSA's pulse PCMs are duplex: one row per direction
    marked = [line for line in lines if line.startswith("*")]
    assert len(marked) == 2 and all(" default (ALSA)" in line for line in marked)
    assert "--input-device" in lines[-1]
    assert "ALSA lib" not in res.stderr and "not built yet" not in res.stderr
