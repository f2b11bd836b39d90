"""Listing and choosing audio devices, and opening them with rate/channel negotiation.

A device is chosen by index (``3`` or ``"3"``), by name (case-insensitive; an exact
name wins, otherwise a unique substring) or, with ``None``/``""``/``"default"``, the
system default (on Linux the PulseAudio/PipeWire default through ALSA ``default``).

Negotiation (:func:`open_negotiated`): the stream is opened at the requested rate,
else at the device's default rate, else at 48000/44100 Hz; mono first, then stereo
when the device refuses mono. The caller resamples/mixes between the device format and
its own (``app.audio.pcm``). When everything fails the :class:`AudioDeviceError` lists
every format tried with PortAudio's reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from app.audio.backend import AudioBackend, Direction, OpenRequest, RawStream, load_backend, loaded_backend
from app.audio.errors import AudioDeviceError, NoAudioDeviceError

log = logging.getLogger(__name__)

FALLBACK_RATES = (48000, 44100)
DEFAULT_SPECS = ("", "default")


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    index: int
    name: str
    hostapi: str
    max_input_channels: int
    max_output_channels: int
    default_samplerate: int
    is_default_input: bool = False
    is_default_output: bool = False

    def channels(self, direction: Direction) -> int:
        return self.max_input_channels if direction == "input" else self.max_output_channels

    def label(self) -> str:
        marks = [m for m, on in (("default input", self.is_default_input), ("default output", self.is_default_output)) if on]
        tail = f", {', '.join(marks)}" if marks else ""
        return (
            f"[{self.index}] {self.name} ({self.hostapi}, {self.max_input_channels} in / {self.max_output_channels} out, "
            f"{self.default_samplerate} Hz{tail})"
        )


@dataclass(frozen=True, slots=True)
class StreamFormat:
    """The format a device stream was opened with (always int16 samples)."""

    rate: int
    channels: int

    def describe(self) -> str:
        ch = {1: "mono", 2: "stereo"}.get(self.channels, f"{self.channels} ch")
        return f"{self.rate} Hz {ch}"


def _backend(backend: AudioBackend | None) -> AudioBackend:
    return backend if backend is not None else load_backend()


def list_devices(direction: Direction | None = None, *, backend: AudioBackend | None = None) -> list[DeviceInfo]:
    """Devices PortAudio knows, optionally only those with ``direction`` channels."""
    be = _backend(backend)
    apis = be.hostapi_names()
    din, dout = be.default_index("input"), be.default_index("output")
    out: list[DeviceInfo] = []
    for i, d in enumerate(be.query_devices()):
        idx = int(d.get("index", i))
        api_i = int(d.get("hostapi", -1))
        info = DeviceInfo(
            index=idx,
            name=str(d.get("name", "")),
            hostapi=apis[api_i] if 0 <= api_i < len(apis) else "?",
            max_input_channels=int(d.get("max_input_channels", 0)),
            max_output_channels=int(d.get("max_output_channels", 0)),
            default_samplerate=round(float(d.get("default_samplerate", 0) or 0)),
            is_default_input=idx == din,
            is_default_output=idx == dout,
        )
        if direction is None or info.channels(direction) > 0:
            out.append(info)
    return out


def format_device_list(devices: list[DeviceInfo]) -> str:
    return "; ".join(d.label() for d in devices) if devices else "(none)"


def find_device(spec: str | int | None, direction: Direction, *, backend: AudioBackend | None = None) -> DeviceInfo:
    """The ``direction`` device named by ``spec`` (index, name or substring, or None for the default)."""
    be = _backend(backend)
    devices = list_devices(direction, backend=be)
    if not devices:
        total = len(be.query_devices())
        raise NoAudioDeviceError(direction, f"PortAudio lists {total} device(s), none with {direction} channels")
    flag = "--input-device" if direction == "input" else "--output-device"
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in DEFAULT_SPECS):
        default = be.default_index(direction)
        for d in devices:
            if d.index == default:
                return d
        log.warning("no default %s device; using %s", direction, devices[0].label())
        return devices[0]
    if isinstance(spec, int) or spec.strip().isdigit():
        index = int(spec)
        for d in devices:
            if d.index == index:
                return d
        raise AudioDeviceError(
            f"no {direction} device with index {index}; choose one of the available {direction} devices "
            f"with {flag}: {format_device_list(devices)}"
        )
    wanted = spec.strip().lower()
    exact = [d for d in devices if d.name.lower() == wanted]
    if exact:
        return exact[0]
    matches = [d for d in devices if wanted in d.name.lower()]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AudioDeviceError(
            f"{direction} device name {spec!r} is ambiguous, it matches {format_device_list(matches)}; "
            f"give the full name or the index with {flag}"
        )
    raise AudioDeviceError(
        f"no {direction} device matches {spec!r}; choose one of the available {direction} devices "
        f"with {flag}: {format_device_list(devices)}"
    )


def format_candidates(device: DeviceInfo, direction: Direction, requested_rate: int) -> list[StreamFormat]:
    """Formats to try, best first: requested rate, device default rate, 48000, 44100; mono before stereo."""
    rates: list[int] = []
    for r in (requested_rate, device.default_samplerate, *FALLBACK_RATES):
        if r > 0 and r not in rates:
            rates.append(r)
    channel_options = [1] + ([2] if device.channels(direction) >= 2 else [])
    return [StreamFormat(r, ch) for ch in channel_options for r in rates]


def open_negotiated(
    backend: AudioBackend,
    device: DeviceInfo,
    direction: Direction,
    requested_rate: int,
    make_request: Callable[[StreamFormat], OpenRequest],
) -> tuple[RawStream, StreamFormat]:
    """Open ``device`` in the first format it accepts; blocking (call it from a worker thread)."""
    tried: list[str] = []
    for fmt in format_candidates(device, direction, requested_rate):
        try:
            stream = backend.open(make_request(fmt))
        except AudioDeviceError as e:
            tried.append(f"{fmt.describe()} ({e})")
            continue
        if (requested_rate and fmt.rate != requested_rate) or fmt.channels != 1:
            log.info("%s device %s opened at %s (requested %d Hz mono); converting", direction, device.name, fmt.describe(), requested_rate)
        return stream, fmt
    raise AudioDeviceError(
        f"could not open {direction} device {device.label()} in any format; tried {', '.join(tried)}. "
        "Close other programs that use the device exclusively, or choose another device (parley --list-devices)"
    )


def rescan(*, backend: AudioBackend | None = None) -> None:
    """Re-enumerate devices (PortAudio scans only at initialisation).

    Call it after changing ``PULSE_SERVER``/``ALSA_CONFIG_PATH`` or plugging in a device,
    with no capture or playback stream open. A no-op when PortAudio was not loaded yet
    (it will scan on first use).
    """
    be = backend if backend is not None else loaded_backend()
    if be is not None:
        be.rescan()
