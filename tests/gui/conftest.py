"""GUI test fixtures: offscreen Qt, a qasync loop per test, isolated files and an in-memory keyring."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

import asyncio
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import keyring
import keyring.backend
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

T = TypeVar("T")


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that lives in a dict (the tests' stand-in for the system keyring)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a GUI test does touches the real user's config, cache or logs, nor another instance's socket (data and
    state are each test's own already: ``tests/conftest.py``). The config directory is the test's ``tmp_path / "config"``,
    where ``PARLEY_CONFIG`` points, so the settings and the window state sit side by side as in the app."""
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(var, str(tmp_path / sub))
    monkeypatch.setenv("PARLEY_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("PARLEY_CONFIG", str(tmp_path / "config" / "parley" / "config.toml"))
    monkeypatch.setenv("PARLEY_INSTANCE_NAME", f"parley-test-{os.getpid()}-{tmp_path.name}")


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    try:
        yield kr
    finally:
        keyring.set_keyring(previous)


@pytest.fixture(scope="session")
def _qasync_loop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """One qasync loop for the whole session: closing and re-creating it per test leaves Qt timers dangling."""
    import qasync

    loop = qasync.QEventLoop(qapp)
    try:
        yield loop
    finally:
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def aloop(_qasync_loop: asyncio.AbstractEventLoop) -> Iterator[asyncio.AbstractEventLoop]:
    """Qt's event loop as the asyncio loop (qasync), as in the app; tasks a test left behind are cancelled."""
    loop = _qasync_loop
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        asyncio.set_event_loop(None)


def run(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
    """Run ``coro`` on the Qt/asyncio loop with a hang guard."""
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


@pytest.fixture
def window_state(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "window-state.ini"), QSettings.Format.IniFormat)
