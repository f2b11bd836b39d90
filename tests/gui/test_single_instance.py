"""The single-instance lock and socket: private per-user runtime dir, an fcntl lock, no predictable /tmp name."""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.single_instance import SingleInstance, runtime_dir

pytestmark = pytest.mark.gui


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A short private directory (socket paths must fit in 107 bytes; pytest's tmp_path can be longer)."""
    d = Path(tempfile.mkdtemp(prefix="psi-"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_the_socket_and_the_lock_live_in_a_private_dir_under_xdg_runtime_dir(qtbot, short_dir, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rt = short_dir / "rt"
    rt.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(rt))
    si = SingleInstance()
    assert si.acquire()
    try:
        assert si.socket_path == rt / "parley" / "instance.sock" and si.lock_path == rt / "parley" / "instance.lock"
        assert stat.S_ISSOCK(si.socket_path.stat().st_mode)
        assert _mode(rt / "parley") == 0o700 and _mode(si.lock_path) == 0o600
        assert not any(p.name.startswith("parley-") for p in Path(tempfile.gettempdir()).iterdir() if p.is_socket())
    finally:
        si.release()


def test_without_a_usable_runtime_dir_a_0700_dir_in_the_cache_dir_is_used(short_dir, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shared = short_dir / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # a world-writable "runtime dir" is not private: not used
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    monkeypatch.setenv("XDG_CACHE_HOME", str(short_dir / "cache"))
    assert runtime_dir() == short_dir / "cache" / "parley" / "run"
    assert _mode(short_dir / "cache" / "parley" / "run") == 0o700
    assert not (shared / "parley").exists()
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    loose = short_dir / "cache" / "parley" / "run"
    os.chmod(loose, 0o755)
    assert runtime_dir() == loose and _mode(loose) == 0o700  # tightened again


def test_a_held_lock_means_another_instance_even_before_it_listens(qtbot, short_dir) -> None:  # type: ignore[no-untyped-def]
    si = SingleInstance("held", directory=short_dir)
    si.acquire(timeout_ms=0)
    lock_path = si.lock_path
    si.release()
    assert lock_path is not None
    fd = os.open(lock_path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # "another Parley" that took the lock and is still starting
    try:
        assert not SingleInstance("held", directory=short_dir).acquire(timeout_ms=100)
    finally:
        os.close(fd)
    again = SingleInstance("held", directory=short_dir)
    assert again.acquire()  # the lock is free again: the next launch runs
    again.release()


def test_a_socket_file_left_by_a_crash_does_not_block_the_next_launch(qtbot, short_dir) -> None:  # type: ignore[no-untyped-def]
    probe = SingleInstance("crashed", directory=short_dir)
    probe.acquire(timeout_ms=0)
    sock = probe.socket_path
    probe.release()
    assert sock is not None
    sock.write_text("stale")  # what a killed instance leaves behind (its lock died with it)
    first = SingleInstance("crashed", directory=short_dir)
    assert first.acquire()
    try:
        with qtbot.waitSignal(first.activated, timeout=3000):
            assert not SingleInstance("crashed", directory=short_dir).acquire()
    finally:
        first.release()


def test_without_a_private_runtime_directory_parley_still_starts_unguarded(qapp, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    import app.single_instance as si

    def no_dir() -> Path:
        raise NotADirectoryError("/blocked/home/.cache/parley/run")  # an unwritable HOME and no XDG_RUNTIME_DIR

    monkeypatch.setattr(si, "runtime_dir", no_dir)
    inst = si.SingleInstance("no-runtime-dir")
    with caplog.at_level("WARNING"):
        assert inst.acquire() is True  # the window starts
    assert "without the one-window check" in caplog.text
    inst.release()
