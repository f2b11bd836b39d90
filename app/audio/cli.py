"""``parley --list-devices``: the audio devices PortAudio sees, as a table or one JSON document.

One row per device and direction (a device with both microphone and speaker channels, such
as ALSA's ``default``, is listed once as an input and once as an output): index, direction,
channels, default sample rate, whether it is the system default for that direction, name and
host API. ``--json`` prints ``{"devices": [...], "default_input": i|null, "default_output": i|null}``.

Exit codes: 0 listed (even when empty), 2 PortAudio is missing or fails.
Does not open any stream; it only enumerates (:func:`app.audio.devices.list_devices`).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from typing import TextIO

from app.audio.backend import AudioBackend, Direction
from app.audio.devices import DeviceInfo, list_devices
from app.audio.errors import AudioError

EXIT_OK, EXIT_NO_AUDIO = 0, 2
DIRECTIONS: tuple[Direction, ...] = ("input", "output")
HINT = (
    "Choose with --input-device / --output-device NAME|INDEX, or input_device / output_device in [audio] "
    "of the settings file; * marks the system default."
)


@dataclass(frozen=True, slots=True)
class DeviceRow:
    """One device in one direction."""

    index: int
    name: str
    hostapi: str
    direction: Direction
    channels: int
    default_samplerate: int
    default: bool


def device_rows(devices: list[DeviceInfo]) -> list[DeviceRow]:
    """Inputs first, then outputs, each in PortAudio's index order."""
    rows: list[DeviceRow] = []
    for direction in DIRECTIONS:
        for d in devices:
            channels = d.channels(direction)
            if channels <= 0:
                continue
            default = d.is_default_input if direction == "input" else d.is_default_output
            rows.append(DeviceRow(d.index, d.name, d.hostapi, direction, channels, d.default_samplerate, default))
    return rows


def to_json(rows: list[DeviceRow]) -> dict[str, object]:
    def default_of(direction: Direction) -> int | None:
        return next((r.index for r in rows if r.direction == direction and r.default), None)

    return {
        "devices": [asdict(r) for r in rows],
        "default_input": default_of("input"),
        "default_output": default_of("output"),
    }


def format_table(rows: list[DeviceRow]) -> str:
    if not rows:
        return "No audio devices found. Plug in or enable a microphone and a speaker (on Linux: is PulseAudio/PipeWire running?)."
    head = ("", "index", "direction", "channels", "default rate", "name")
    body = [
        ("*" if r.default else "", str(r.index), r.direction, str(r.channels), f"{r.default_samplerate} Hz", f"{r.name} ({r.hostapi})")
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (head, *body)) for i in range(len(head) - 1)]
    right = {1, 3, 4}  # numbers are right-aligned

    def fmt(line: tuple[str, ...]) -> str:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths, strict=False))]
        return "  ".join([*cells, line[-1]]).rstrip()

    return "\n".join([fmt(head), *(fmt(b) for b in body), "", HINT])


def print_devices(*, as_json: bool, out: TextIO, err: TextIO, backend: AudioBackend | None = None) -> int:
    try:
        rows = device_rows(list_devices(backend=backend))
    except AudioError as e:
        print(f"parley: {e}", file=err)
        return EXIT_NO_AUDIO
    if as_json:
        out.write(json.dumps(to_json(rows), indent=2) + "\n")
    else:
        out.write(format_table(rows) + "\n")
    out.flush()
    return EXIT_OK


def list_devices_main(args: argparse.Namespace) -> int:
    """Entry point of ``parley --list-devices [--json]`` (see :mod:`app.cli`)."""
    return print_devices(as_json=bool(getattr(args, "json", False)), out=sys.stdout, err=sys.stderr)


__all__ = ["DeviceRow", "device_rows", "format_table", "list_devices_main", "print_devices", "to_json"]
