"""A stand-in for the desktop's GlobalShortcuts portal on a private D-Bus session bus (jeepney, its own thread).

It answers CreateSession and BindShortcuts as the XDG portal spec says (a request object path back, then that
request's Response signal) and lets the test press and release the bound shortcut (Activated / Deactivated).
"""

from __future__ import annotations

import threading
from typing import Any

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

BUS_NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
IFACE = "org.freedesktop.portal.GlobalShortcuts"


class FakePortal:
    def __init__(self, address: str, *, refuse: bool = False) -> None:
        self.conn = open_dbus_connection(address)
        self.conn.send_and_get_reply(message_bus.RequestName(BUS_NAME))
        self.refuse = refuse
        self.bound: list[tuple[str, dict[str, Any]]] = []
        self.session = ""
        self._lock = threading.Lock()
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _send(self, msg: Any) -> None:
        with self._lock:
            self.conn.send(msg)

    def _respond(self, request_path: str, code: int, results: dict[str, Any]) -> None:
        self._send(new_signal(DBusAddress(request_path, interface="org.freedesktop.portal.Request"), "Response", "ua{sv}", (code, results)))

    def _serve(self) -> None:
        while not self._stop:
            try:
                msg = self.conn.receive(timeout=0.2)
            except TimeoutError:
                continue
            except OSError:
                return
            h = msg.header
            if h.message_type != MessageType.method_call:
                continue
            member, iface = h.fields.get(HeaderFields.member), h.fields.get(HeaderFields.interface)
            sender = str(h.fields.get(HeaderFields.sender, "")).lstrip(":").replace(".", "_")
            if iface == "org.freedesktop.DBus.Properties" and member == "Get":
                self._send(new_method_return(msg, "v", (("u", 1),)))
            elif iface == IFACE and member == "CreateSession":
                (options,) = msg.body
                req = f"{PATH}/request/{sender}/{options['handle_token'][1]}"
                self.session = f"{PATH}/session/{sender}/{options['session_handle_token'][1]}"
                self._send(new_method_return(msg, "o", (req,)))
                self._respond(req, 0, {"session_handle": ("s", self.session)})
            elif iface == IFACE and member == "BindShortcuts":
                session, shortcuts, _parent, options = msg.body
                req = f"{PATH}/request/{sender}/{options['handle_token'][1]}"
                self._send(new_method_return(msg, "o", (req,)))
                if self.refuse or session != self.session:
                    self._respond(req, 1, {})
                else:
                    self.bound = [(sid, {k: v[1] for k, v in props.items()}) for sid, props in shortcuts]
                    self._respond(req, 0, {"shortcuts": ("a(sa{sv})", shortcuts)})
            else:
                self._send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (f"no {member}",)))

    def key(self, down: bool, shortcut: str = "push-to-talk") -> None:
        member = "Activated" if down else "Deactivated"
        self._send(new_signal(DBusAddress(PATH, interface=IFACE), member, "osta{sv}", (self.session, shortcut, 0, {})))

    def close(self) -> None:
        self._stop = True
        self.thread.join(2)
        self.conn.close()
