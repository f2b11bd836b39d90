"""One Parley window per user: a second launch activates the running window and exits.

Who is the instance is decided by an ``fcntl`` lock on ``<dir>/<stem>.lock`` (the kernel drops it
when the process dies, so a crash never blocks the next launch); the instance then listens on
``<dir>/<stem>.sock`` (QLocalServer) where a second launch writes ``activate``. ``<dir>`` is
``$XDG_RUNTIME_DIR/parley`` when that directory is the user's own and private, else a 0700
``run`` directory in the user's cache dir (never a predictable name in ``/tmp``). On systems
without ``fcntl`` (Windows) the named local server alone decides, as Qt does it there.

Does not own the window: the caller raises it on :attr:`SingleInstance.activated`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

_ACTIVATE = b"activate\n"
SUN_PATH_MAX = 107  # sockaddr_un.sun_path is 108 bytes on Linux (less elsewhere), with the final NUL


def _private_dir(path: Path) -> bool:
    """``path`` is a directory of this user that nobody else may enter (0700-like)."""
    try:
        st = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & (stat.S_IRWXG | stat.S_IRWXO)


def _ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (0700) or make an existing one of ours 0700; OSError when it is someone else's."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise PermissionError(f"{path} is not a directory of this user")
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        os.chmod(path, 0o700)
    return path


def runtime_dir() -> Path:
    """Where the lock and the socket live (see the module docstring); created 0700."""
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg and os.path.isabs(xdg) and _private_dir(Path(xdg)):
        with contextlib.suppress(OSError):
            return _ensure_private_dir(Path(xdg) / "parley")
    elif xdg:
        log.info("XDG_RUNTIME_DIR=%s is not a private directory of this user; using the cache dir", xdg)
    import platformdirs

    return _ensure_private_dir(platformdirs.user_cache_path("parley", appauthor=False) / "run")


def _stem(name: str | None) -> str:
    # Short, so the socket path fits sun_path even in a deep cache dir.
    return "instance" if not name else "instance-" + hashlib.sha1(name.encode()).hexdigest()[:12]


class SingleInstance(QObject):
    """Claim the instance; ``activated`` fires in the first instance when another one starts.

    Usage: ``si = SingleInstance(); if not si.acquire(): return 0`` (the running window was told to come forward).
    ``name`` tells apart independent instances of one user (tests); ``directory`` overrides :func:`runtime_dir`.
    """

    activated = Signal()

    def __init__(self, name: str | None = None, parent: QObject | None = None, *, directory: Path | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._directory = directory
        self.socket_path: Path | None = None
        self.lock_path: Path | None = None
        self._lock_fd: int | None = None
        self._server: QLocalServer | None = None

    def acquire(self, timeout_ms: int = 500) -> bool:
        """True when this process is now the single instance; False when another one runs (it was asked to come forward)."""
        try:
            directory = self._directory or runtime_dir()
        except OSError as e:  # e.g. an unwritable HOME without XDG_RUNTIME_DIR: run, but unguarded
            log.warning("no private runtime directory (%s): Parley runs without the one-window check", e)
            return True
        stem = _stem(self.name)
        self.socket_path, self.lock_path = directory / f"{stem}.sock", directory / f"{stem}.lock"
        if fcntl is not None and not self._lock():
            self._activate_other(timeout_ms)
            return False
        if fcntl is None and self._activate_other(0):
            return False
        self._listen()
        return True

    def _lock(self) -> bool:
        assert self.lock_path is not None and fcntl is not None
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd
        return True

    def _activate_other(self, timeout_ms: int) -> bool:
        """Tell the running instance to come forward; retries while it is still starting (lock taken, not listening yet)."""
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            sock = QLocalSocket()
            sock.connectToServer(str(self.socket_path))
            if sock.waitForConnected(max(50, timeout_ms)):
                sock.write(_ACTIVATE)
                sock.waitForBytesWritten(max(50, timeout_ms))
                sock.disconnectFromServer()
                log.info("another Parley is running; asked it to come forward")
                return True
            if time.monotonic() >= deadline:
                if timeout_ms:
                    log.warning("another Parley holds %s but does not answer on %s yet", self.lock_path, self.socket_path)
                return False
            time.sleep(0.05)  # the other instance is between taking the lock and listening

    def _listen(self) -> None:
        path = str(self.socket_path)
        if len(os.fsencode(path)) > SUN_PATH_MAX:
            log.warning("single-instance socket path %s is too long; a second launch cannot bring this window forward", path)
            return
        # We hold the lock: a socket file still there was left by a crashed instance.
        QLocalServer.removeServer(path)
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(path):
            log.warning("single-instance server %s could not listen (%s); continuing without it", path, server.errorString())
            return
        server.newConnection.connect(self._on_connection)
        self._server = server

    def release(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.newConnection.disconnect(self._on_connection)
            server.close()  # removes the socket file
            server.deleteLater()
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)  # drops the lock

    def _on_connection(self) -> None:
        server = self._server
        if server is None:
            return
        while (conn := server.nextPendingConnection()) is not None:
            # A second instance writes one short line and disconnects; wait briefly for it, then drop the socket.
            if conn.bytesAvailable() or conn.waitForReadyRead(200):
                data = bytes(conn.readAll().data())
                if data.startswith(_ACTIVATE.strip()):
                    self.activated.emit()
            conn.abort()
            conn.deleteLater()
