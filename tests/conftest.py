"""Shared pytest fixtures. Audio: ``pulse_env`` (a private PulseAudio server with virtual devices, see tests/pulse.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

sys.path.insert(0, str(Path(__file__).parent))  # tests/pulse.py is imported as `pulse`, with or without tests/__init__.py

from pulse import PulseServer, PulseUnavailableError, pulse_server

# CI runs the property tests on a fixed sequence of examples (a landing must not hinge on a lucky draw);
# a developer's run explores new ones, and what they find is pinned with @example.
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


@pytest.fixture(scope="session")
def pulse_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulseServer]:
    """The private PulseAudio server, active for this process (PULSE_SERVER, ALSA_CONFIG_PATH, PortAudio re-scanned).

    Skips when PulseAudio cannot run here, unless PARLEY_REQUIRE_AUDIO=1 (CI), where it fails.
    """
    try:
        with pulse_server(tmp_path_factory.mktemp("pulse")) as server:
            yield server
    except PulseUnavailableError as e:
        if os.environ.get("PARLEY_REQUIRE_AUDIO") == "1":
            pytest.fail(f"PulseAudio test server unavailable: {e}")
        pytest.skip(f"PulseAudio test server unavailable: {e}")


@pytest.fixture(autouse=True)
def _private_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has its own config, data and state directories (``platformdirs`` reads the XDG variables, and so do
    the ``parley`` processes a test starts): no test reads or changes the user's settings, reminders, memory or
    conversations. A spoken "remind me to call my mother tomorrow" in a voice test sets a real reminder, and one left
    due in the user's directory fired during another test's answer."""
    root = tmp_path_factory.mktemp("xdg")
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        monkeypatch.setenv(var, str(root / sub))


@pytest.fixture(autouse=True)
def _quiet_microphone_after_each_audio_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Speech a test started into the shared server's microphone stops with the test (it leaked into the next one)."""
    server = request.getfixturevalue("pulse_env") if "pulse_env" in request.fixturenames else None
    yield
    if server is not None:
        server.stop_playbacks()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that use ``pulse_env`` are ``audio`` tests (so ``-m 'not audio'`` leaves them out)."""
    for item in items:
        if "pulse_env" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.audio)
