"""The PortAudio backend's lock: a device call stuck inside a driver makes later calls fail in bounded time, not hang."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from app.audio import backend as backend_mod
from app.audio.backend import OpenRequest, SoundDeviceBackend
from app.audio.errors import AudioDeviceError

pytestmark = pytest.mark.timeout(30)


class _StuckStream:
    """A stream whose start blocks until ``release`` is set (a driver that never answers)."""

    entered = threading.Event()
    release = threading.Event()

    def __init__(self, **_: Any) -> None:
        self.closed = False

    def start(self) -> None:
        _StuckStream.entered.set()
        _StuckStream.release.wait(20)

    def stop(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None:
        self.closed = True


def _fake_sd() -> Any:
    return SimpleNamespace(
        RawInputStream=_StuckStream,
        RawOutputStream=_StuckStream,
        PortAudioError=RuntimeError,
        query_devices=lambda kind=None: [] if kind is None else {"index": 0},
        query_hostapis=lambda: [{"name": "ALSA"}],
        _terminate=lambda: None,
        _initialize=lambda: None,
    )


def _request() -> OpenRequest:
    return OpenRequest("input", 0, 16000, 1, 160, "low", callback=lambda *a: None)


def test_while_a_stream_start_is_stuck_other_device_calls_fail_with_a_clear_error_within_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(backend_mod, "LOCK_WAIT_S", 0.3)
    be = SoundDeviceBackend(_fake_sd())
    stream = be.open(_request())
    _StuckStream.entered.clear()
    _StuckStream.release.clear()
    stuck = threading.Thread(target=stream.start, daemon=True)
    stuck.start()
    try:
        assert _StuckStream.entered.wait(5)
        for call in (be.query_devices, be.hostapi_names, lambda: be.open(_request()), stream.close):
            t0 = time.monotonic()
            with pytest.raises(AudioDeviceError, match="did not answer"):
                call()
            assert time.monotonic() - t0 < 3.0  # bounded by the wait (0.3 s here), not by the stuck call
    finally:
        _StuckStream.release.set()
        stuck.join(5)
    assert be.hostapi_names() == ["ALSA"]  # once the stuck call returns, the backend works again


def test_device_calls_from_one_thread_do_not_wait_for_themselves() -> None:
    be = SoundDeviceBackend(_fake_sd())
    with be.held("an outer call"):
        assert be.hostapi_names() == ["ALSA"]  # the lock is re-entrant for the thread holding it
