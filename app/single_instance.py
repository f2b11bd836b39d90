"""One Parley window per user: a second launch activates the running window and exits (QLocalServer/QLocalSocket)."""

from __future__ import annotations

import getpass
import hashlib
import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

_ACTIVATE = b"activate\n"


def default_server_name() -> str:
    """A per-user socket name, so two users on one machine each get their own Parley."""
    try:
        user = getpass.getuser()
    except Exception:
        user = "user"
    return "parley-" + hashlib.sha1(user.encode()).hexdigest()[:12]


class SingleInstance(QObject):
    """Claim the instance name; ``activated`` fires in the first instance when another one starts.

    Usage: ``si = SingleInstance(); if not si.acquire(): return 0`` (the running window was told to come forward).
    """

    activated = Signal()

    def __init__(self, name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name or default_server_name()
        self._server: QLocalServer | None = None

    def acquire(self, timeout_ms: int = 500) -> bool:
        """True when this process is now the single instance; False when another one answered (and was activated)."""
        sock = QLocalSocket()
        sock.connectToServer(self.name)
        if sock.waitForConnected(timeout_ms):
            sock.write(_ACTIVATE)
            sock.waitForBytesWritten(timeout_ms)
            sock.disconnectFromServer()
            log.info("another Parley is running; asked it to come forward")
            return False
        # Nobody answered: a socket file left by a crash must not block us.
        QLocalServer.removeServer(self.name)
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            log.warning("single-instance server %s could not listen (%s); continuing without it", self.name, server.errorString())
            return True
        server.newConnection.connect(self._on_connection)
        self._server = server
        return True

    def release(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.newConnection.disconnect(self._on_connection)
            server.close()
            server.deleteLater()

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
