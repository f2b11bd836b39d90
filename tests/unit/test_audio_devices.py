"""Device listing, selection, rate negotiation and the PortAudio-missing error (fake backend)."""

from __future__ import annotations

import builtins
import sys
from typing import Any

import pytest
from audio_fakes import FakeBackend, device

from app.audio import backend as backend_mod
from app.audio.backend import OpenRequest
from app.audio.devices import StreamFormat, find_device, format_candidates, list_devices, open_negotiated
from app.audio.errors import AudioDeviceError, NoAudioDeviceError, PortAudioMissingError


def _backend() -> FakeBackend:
    return FakeBackend(
        devices=[
            device(0, "HDA Intel PCH: ALC257 Analog (hw:0,0)", rate=44100.0),
            device(1, "USB Audio Headset Mic", outs=0, ins=1, rate=16000.0),
            device(2, "pulse", ins=32, outs=32, rate=44100.0),
            device(3, "default", ins=32, outs=32, rate=44100.0),
            device(4, "HDMI 0", ins=0, outs=8, rate=48000.0),
        ],
        default_in=3,
        default_out=3,
    )


def test_listing_filters_by_direction_and_marks_defaults() -> None:
    be = _backend()
    outs = list_devices("output", backend=be)
    assert [d.name for d in outs] == ["HDA Intel PCH: ALC257 Analog (hw:0,0)", "pulse", "default", "HDMI 0"]
    default = next(d for d in outs if d.name == "default")
    assert default.is_default_output and default.is_default_input
    assert default.hostapi == "FakeAPI" and default.default_samplerate == 44100
    assert "USB Audio Headset Mic" in [d.name for d in list_devices("input", backend=be)]
    assert len(list_devices(backend=be)) == 5


def test_device_is_chosen_by_exact_name_substring_index_or_default() -> None:
    be = _backend()
    assert find_device("pulse", "output", backend=be).index == 2
    assert find_device("headset", "input", backend=be).index == 1  # case-insensitive substring
    assert find_device(4, "output", backend=be).name == "HDMI 0"
    assert find_device("4", "output", backend=be).name == "HDMI 0"
    assert find_device(None, "input", backend=be).index == 3
    assert find_device("Default", "output", backend=be).index == 3


def test_unknown_device_name_error_names_the_available_devices() -> None:
    with pytest.raises(AudioDeviceError) as e:
        find_device("Blue Yeti", "input", backend=_backend())
    msg = str(e.value)
    assert "'Blue Yeti'" in msg and "USB Audio Headset Mic" in msg and "--input-device" in msg
    assert "HDMI 0" not in msg  # output-only devices are not offered as microphones


def test_index_of_a_device_without_that_direction_is_refused() -> None:
    with pytest.raises(AudioDeviceError, match="no input device with index 4"):
        find_device(4, "input", backend=_backend())


def test_ambiguous_substring_lists_the_matches() -> None:
    be = FakeBackend(devices=[device(0, "USB Mic A"), device(1, "USB Mic B")])
    with pytest.raises(AudioDeviceError, match="ambiguous") as e:
        find_device("usb mic", "input", backend=be)
    assert "USB Mic A" in str(e.value) and "USB Mic B" in str(e.value)


def test_no_device_at_all_raises_no_audio_device_error() -> None:
    be = FakeBackend(devices=[device(0, "Speaker only", ins=0)], default_in=-1)
    with pytest.raises(NoAudioDeviceError, match="no audio input device"):
        find_device(None, "input", backend=be)


def test_missing_default_falls_back_to_the_first_device() -> None:
    be = FakeBackend(devices=[device(5, "Only Mic", outs=0)], default_in=-1)
    assert find_device(None, "input", backend=be).index == 5


def test_format_candidates_try_requested_then_default_then_common_rates_mono_before_stereo() -> None:
    dev = list_devices("output", backend=_backend())[0]  # 44100 Hz default, 2 channels
    got = format_candidates(dev, "output", 22050)
    assert got[:4] == [StreamFormat(22050, 1), StreamFormat(44100, 1), StreamFormat(48000, 1), StreamFormat(22050, 2)]
    assert got[-1] == StreamFormat(48000, 2)


def _request(dev_index: int) -> Any:
    def make(fmt: StreamFormat) -> OpenRequest:
        return OpenRequest("output", dev_index, fmt.rate, fmt.channels, fmt.rate // 50, "low", lambda *a: None)

    return make


def test_refused_rate_falls_back_to_the_device_default_rate() -> None:
    be = FakeBackend(devices=[device(0, "48k only", rate=48000.0)], accept=lambda r: r.rate == 48000)
    dev = find_device(0, "output", backend=be)
    _, fmt = open_negotiated(be, dev, "output", 22050, _request(0))
    assert fmt == StreamFormat(48000, 1)
    assert [a.rate for a in be.attempts] == [22050, 48000]


def test_stereo_only_device_is_opened_in_stereo() -> None:
    be = FakeBackend(devices=[device(0, "stereo only", rate=48000.0)], accept=lambda r: r.channels == 2)
    _, fmt = open_negotiated(be, find_device(0, "output", backend=be), "output", 16000, _request(0))
    assert fmt == StreamFormat(16000, 2)


def test_device_refusing_every_format_error_lists_what_was_tried() -> None:
    be = FakeBackend(devices=[device(0, "Broken DAC", rate=44100.0)], accept=lambda r: False)
    with pytest.raises(AudioDeviceError) as e:
        open_negotiated(be, find_device(0, "output", backend=be), "output", 22050, _request(0))
    msg = str(e.value)
    for tried in ("22050 Hz mono", "44100 Hz mono", "48000 Hz mono", "22050 Hz stereo", "Invalid sample rate"):
        assert tried in msg
    assert "Broken DAC" in msg


def test_missing_portaudio_library_raises_error_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(backend_mod, "_backend", None)
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(PortAudioMissingError) as e:
        backend_mod.load_backend()
    assert "PortAudio library not found" in str(e.value)
    assert "apt install libportaudio2" in str(e.value) and "pip install --force-reinstall sounddevice" in str(e.value)
    assert isinstance(e.value, AudioDeviceError)
