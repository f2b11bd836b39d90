"""The talk key through the XDG GlobalShortcuts portal (``org.freedesktop.portal.GlobalShortcuts``, D-Bus).

Where the desktop offers the portal (KDE Plasma, GNOME 48+, Hyprland … on Wayland), Parley asks it for one
shortcut, ``push-to-talk``, with the ``[ui] hotkey`` as the preferred trigger; the desktop may ask the user to
confirm or pick another key, and then reports the key going down (``Activated``) and up (``Deactivated``) whatever
window has focus. The conversation with the portal is the spec's: ``CreateSession`` and ``BindShortcuts`` each
answer with a request object whose ``Response`` signal carries the result (code 0: granted).

:meth:`PortalHotkey.start` returns "" when the shortcut is bound, else why not (no session bus, no portal, refused),
so the caller can say "window only" with the reason. D-Bus through ``jeepney`` on the asyncio loop (qasync's).

Does not own: X11 (``app.ui.global_hotkey``), what a press does (the presenter).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from genx.deadline import within

log = logging.getLogger(__name__)

BUS_NAME = "org.freedesktop.portal.Desktop"
OBJECT_PATH = "/org/freedesktop/portal/desktop"
INTERFACE = "org.freedesktop.portal.GlobalShortcuts"
REQUEST = "org.freedesktop.portal.Request"
SHORTCUT_ID = "push-to-talk"
RESPONSE_TIMEOUT_S = 60.0  # the desktop may show the user a dialog to confirm the key


class PortalHotkey:
    def __init__(self, on_down: Callable[[], None], on_up: Callable[[], None], *, window_active: Callable[[], bool]) -> None:
        self._on_down = on_down
        self._on_up = on_up
        self._window_active = window_active
        self._router: Any = None
        self._conn: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._ours = False
        self.session = ""

    @property
    def running(self) -> bool:
        return self._listener is not None

    async def start(self, key_text: str, *, address: str = "SESSION") -> str:
        """Bind the talk key with the portal; "" when bound, else the reason it is not."""
        from jeepney import DBusAddress, MatchRule, new_method_call
        from jeepney.bus_messages import message_bus
        from jeepney.io.asyncio import DBusRouter, open_dbus_connection
        from jeepney.wrappers import DBusErrorResponse

        await self.stop()
        try:
            conn = await open_dbus_connection(address)
        except (OSError, KeyError, ValueError) as e:
            return f"no D-Bus session bus ({e})"
        router = DBusRouter(conn)
        self._router, self._conn = router, conn
        portal = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=INTERFACE)
        try:
            props = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface="org.freedesktop.DBus.Properties")
            reply = await router.send_and_get_reply(new_method_call(props, "Get", "ss", (INTERFACE, "version")))
            if reply.header.message_type.name == "error":
                await self.stop()
                return "the desktop offers no global shortcuts portal"
            sender = router.unique_name.lstrip(":").replace(".", "_")

            async def request(method: str, signature: str, args: tuple[Any, ...], token: str) -> dict[str, Any]:
                path = f"{OBJECT_PATH}/request/{sender}/{token}"
                rule = MatchRule(type="signal", interface=REQUEST, member="Response", path=path)
                await router.send_and_get_reply(message_bus.AddMatch(rule))
                with router.filter(rule) as queue:
                    answer = await router.send_and_get_reply(new_method_call(portal, method, signature, args))
                    if answer.header.message_type.name == "error":
                        raise DBusErrorResponse(answer)
                    code, results = (await within(queue.get(), RESPONSE_TIMEOUT_S)).body
                if code != 0:
                    raise PermissionError(f"the desktop refused the shortcut ({method}: response {code})")
                return dict(results)

            token = "parley" + secrets.token_hex(4)
            created = await request(
                "CreateSession", "a{sv}", ({"handle_token": ("s", token), "session_handle_token": ("s", token + "s")},), token
            )
            self.session = str(created["session_handle"][1])
            token = "parley" + secrets.token_hex(4)
            shortcut = (SHORTCUT_ID, {"description": ("s", "Hold to talk to Parley"), "preferred_trigger": ("s", key_text)})
            await request("BindShortcuts", "oa(sa{sv})sa{sv}", (self.session, [shortcut], "", {"handle_token": ("s", token)}), token)
            keys = MatchRule(type="signal", interface=INTERFACE, path=OBJECT_PATH)
            await router.send_and_get_reply(message_bus.AddMatch(keys))
            queue: asyncio.Queue[Any] = asyncio.Queue()
            router.filter(keys, queue=queue, bufsize=64)
        except (DBusErrorResponse, PermissionError, TimeoutError, OSError, KeyError, ValueError) as e:
            await self.stop()
            return f"the global shortcuts portal did not bind the key ({e})"
        self._listener = asyncio.get_running_loop().create_task(self._listen(queue), name="portal-hotkey")
        return ""

    async def _listen(self, queue: asyncio.Queue[Any]) -> None:
        while True:
            msg = await queue.get()
            body = msg.body
            if len(body) < 2 or str(body[0]) != self.session or body[1] != SHORTCUT_ID:
                continue
            if msg.header.fields.get(_member_field()) == "Activated":
                self._ours = not self._window_active()  # an active Parley window handles its own key
                if self._ours:
                    self._on_down()
            elif self._ours:
                self._ours = False
                self._on_up()

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        router, conn, self._router, self._conn = self._router, self._conn, None, None
        if router is not None:
            with contextlib.suppress(Exception):
                await router.__aexit__(None, None, None)  # stops its receiver task
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
        self.session = ""


def _member_field() -> Any:
    from jeepney import HeaderFields

    return HeaderFields.member


__all__ = ["PortalHotkey"]
