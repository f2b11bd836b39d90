"""``parley --list-devices`` on a fake device list: one row per device and direction, defaults marked, JSON."""

from __future__ import annotations

import io
import json

import pytest
from audio_fakes import FakeBackend, device

from app.audio.cli import EXIT_NO_AUDIO, EXIT_OK, print_devices
from app.cli import build_parser, run


def _backend() -> FakeBackend:
    return FakeBackend(
        devices=[
            device(0, "HDA Intel PCH: ALC257 Analog (hw:0,0)", ins=2, outs=2, rate=44100.0),
            device(1, "USB Audio Headset Mic", ins=1, outs=0, rate=16000.0),
            device(2, "default", ins=32, outs=32, rate=44100.0),
            device(3, "HDMI 0", ins=0, outs=8, rate=48000.0),
        ],
        default_in=1,
        default_out=2,
    )


def test_json_lists_each_device_per_direction_with_channels_rate_and_the_defaults() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert print_devices(as_json=True, out=out, err=err, backend=_backend()) == EXIT_OK
    doc = json.loads(out.getvalue())  # one JSON document, nothing else on stdout
    assert err.getvalue() == ""
    assert doc["default_input"] == 1 and doc["default_output"] == 2
    rows = [(d["index"], d["direction"], d["channels"], d["default_samplerate"], d["default"], d["name"]) for d in doc["devices"]]
    assert rows == [
        (0, "input", 2, 44100, False, "HDA Intel PCH: ALC257 Analog (hw:0,0)"),
        (1, "input", 1, 16000, True, "USB Audio Headset Mic"),
        (2, "input", 32, 44100, False, "default"),
        (0, "output", 2, 44100, False, "HDA Intel PCH: ALC257 Analog (hw:0,0)"),
        (2, "output", 32, 44100, True, "default"),
        (3, "output", 8, 48000, False, "HDMI 0"),
    ]
    assert {d["hostapi"] for d in doc["devices"]} == {"FakeAPI"}


def test_the_table_marks_the_defaults_and_says_how_to_choose_a_device() -> None:
    out = io.StringIO()
    assert print_devices(as_json=False, out=out, err=io.StringIO(), backend=_backend()) == EXIT_OK
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["index", "direction", "channels", "default", "rate", "name"]
    mic = next(line for line in lines if "USB Audio Headset Mic" in line)
    assert mic.split()[:6] == ["*", "1", "input", "1", "16000", "Hz"]
    hdmi = next(line for line in lines if "HDMI 0" in line)
    assert hdmi.split()[:5] == ["3", "output", "8", "48000", "Hz"]  # not a default: no mark
    assert sum(line.lstrip().startswith("*") for line in lines) == 2
    assert "--input-device" in lines[-1] and "--output-device" in lines[-1]


def test_no_devices_is_said_in_words_and_an_empty_json_list() -> None:
    empty = FakeBackend(devices=[], default_in=-1, default_out=-1)
    out = io.StringIO()
    assert print_devices(as_json=False, out=out, err=io.StringIO(), backend=empty) == EXIT_OK
    assert out.getvalue().startswith("No audio devices found.")
    out = io.StringIO()
    assert print_devices(as_json=True, out=out, err=io.StringIO(), backend=empty) == EXIT_OK
    assert json.loads(out.getvalue()) == {"devices": [], "default_input": None, "default_output": None}


def test_portaudio_failing_exits_2_with_the_reason_on_stderr() -> None:
    from app.audio.errors import PortAudioMissingError

    class Broken(FakeBackend):
        def query_devices(self) -> list[dict[str, object]]:
            raise PortAudioMissingError("libportaudio.so.2: cannot open shared object file")

    out, err = io.StringIO(), io.StringIO()
    assert print_devices(as_json=True, out=out, err=err, backend=Broken()) == EXIT_NO_AUDIO
    assert out.getvalue() == "" and "libportaudio2" in err.getvalue()


def test_json_without_list_devices_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert build_parser().parse_args(["--list-devices", "--json"]).json
    with pytest.raises(SystemExit) as e:
        run(["--json"])
    assert e.value.code == 2 and "--json goes with --list-devices" in capsys.readouterr().err
