"""The terminal side of ``parley --headless``: what it prints and the keys it reads.

Owns :class:`TerminalView` (loop events as lines, partials on one updating line),
:class:`AudioNotices` (device events in Parley's words, the first underrun once),
:func:`device_greeting` and :class:`KeyCommands` (Enter for push-to-talk, ``/`` commands,
typed messages). Does not own the session, the devices or the models (:mod:`app.voice_session`, :mod:`app.voice_stack`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from app.tool_words import tool_line
from genx.agentkit.events import (
    Announcement,
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    ConversationStarted,
    Event,
    LoopError,
    LoopState,
    Mode,
    StateChanged,
    ToolActivity,
    TurnMetrics,
    TurnReopened,
    UserFinal,
    UserPartial,
    WakeChanged,
)
from genx.agentkit.loop import VoiceLoop
from genx.agentkit.metrics import format_metrics


class TerminalView:
    """Prints loop events: partials on one updating line (on a terminal), everything else as lines."""

    def __init__(self, out: TextIO = sys.stdout, *, show_metrics: bool = True) -> None:
        self.out = out
        self.tty = out.isatty()
        self.show_metrics = show_metrics
        self._line = ""  # the updating line currently shown
        self._spoken: dict[str, str] = {}

    def __call__(self, e: Event) -> None:
        if isinstance(e, UserPartial):
            self._update(f"you: {e.text} …")
        elif isinstance(e, UserFinal):
            self._final(f"you{' (typed)' if e.typed else ''}: {e.text}")
        elif isinstance(e, TurnReopened):
            self._final("  (you went on: the answer was dropped unheard)")
        elif isinstance(e, AssistantSpoken):
            self._spoken[e.turn_id] = e.spoken_text
            self._update(f"parley: {e.spoken_text}")
        elif isinstance(e, AssistantDone):
            mark = " [interrupted]" if e.interrupted else ""
            err = f" [error: {e.error}]" if e.error else ""
            self._final(f"parley: {e.spoken_text}{mark}{err}")
        elif isinstance(e, ToolActivity) and e.status != "running":
            self._final(f"  [tool] {tool_line(e.name, e.arguments, e.status, e.result)}")
        elif isinstance(e, Announcement) and e.phase == "queued":
            self._final(f"parley (announcement): {e.text}")
        elif isinstance(e, BargeIn):
            self._final(f"  (barge-in: playback stopped in {e.latency_ms:.0f} ms)")
        elif isinstance(e, TurnMetrics) and self.show_metrics:
            self._final(f"  ({format_metrics(e)})")
        elif isinstance(e, LoopError):
            self._final(f"  ! {e.kind.value}: {e.message}")
        elif isinstance(e, StateChanged) and e.state is LoopState.LISTENING and e.reason == "started":
            self._final("listening… (Ctrl-C quits)")
        elif isinstance(e, WakeChanged):
            self._final(f"  (heard “{e.phrase}”: listening)" if e.awake else f"  (say “{e.phrase}” to talk)")
        elif isinstance(e, ConversationStarted):
            self._final(f"conversation {e.conversation_id}")

    def _update(self, text: str) -> None:
        if self.tty:
            pad = max(0, len(self._line) - len(text))
            self.out.write("\r" + text + " " * pad)
            self.out.flush()
            self._line = text
        # not a terminal: partial lines would flood the log; only finals are printed

    def line(self, text: str) -> None:
        """Print a whole line (clearing an updating line first)."""
        self._final(text)

    def _final(self, text: str) -> None:
        if self.tty and self._line:
            self.out.write("\r" + " " * len(self._line) + "\r")
            self._line = ""
        self.out.write(text + "\n")
        self.out.flush()


class KeyCommands:
    """Terminal input: Enter toggles push-to-talk, ``/`` commands, any other line is a typed message."""

    HELP = (
        "keys: Enter = talk / stop talking (push-to-talk), /stop, /new, /mute, /unmute, "
        "/mode hands-free|push-to-talk, /quit; other text is sent as a message"
    )

    def __init__(self, loop: VoiceLoop, view: TerminalView, quit: Callable[[], None]) -> None:
        self.loop = loop
        self.view = view
        self.quit = quit

    def line(self, text: str) -> None:
        if text == "":  # EOF
            return
        cmd = text.strip()
        lp = self.loop
        if not cmd:
            if lp.mode is Mode.PUSH_TO_TALK or lp.state is LoopState.SPEAKING:
                if lp.push_to_talk_open:
                    lp.push_to_talk_up()
                else:
                    lp.push_to_talk_down()
                    self.view.line("  (talking… press Enter when done)")
            return
        if not cmd.startswith("/"):
            from app.commands import handle_command

            if not handle_command(lp, cmd):  # "stop", "mute", "new conversation" … typed: done without the model
                lp.send_text(cmd)
            return
        name, _, arg = cmd[1:].partition(" ")
        if name == "stop":
            lp.stop_speaking()
        elif name == "new":
            lp.new_conversation()
        elif name == "mute":
            lp.mute(True)
        elif name == "unmute":
            lp.mute(False)
        elif name == "mode":
            lp.set_mode(arg or "hands-free")
        elif name in ("quit", "exit"):
            self.quit()
        else:
            self.view.line(self.HELP)


QUIET_AUDIO_EVENTS = frozenset({"overflow", "opened", "closed"})


class AudioNotices:
    """Device events for the terminal: losses and recoveries as they come, the first underrun once.

    The player reports underruns only while an answer plays (idle silence is not one); they are
    coalesced and logged, but on the terminal one sentence is enough.
    """

    def __init__(self, view: TerminalView) -> None:
        self.view = view
        self.underrun_told = False

    def __call__(self, ev: Any) -> None:
        kind = getattr(ev, "kind", "")
        if kind == "underrun":
            if not self.underrun_told:
                self.underrun_told = True
                self.view.line(
                    f"  ~ audio {ev.direction} {ev.device}: playback stuttered (the speaker ran out of audio, "
                    "the computer may be busy); further stutters are only counted in the log"
                )
            return
        if kind not in QUIET_AUDIO_EVENTS:
            self.view.line(f"  ~ audio {ev.direction} {ev.device}: {ev.message}")


def device_greeting(capture: Any, player: Any) -> str:
    """The first line ``--headless`` prints: which microphone and speaker it opened."""
    mic = capture.device.label() if capture.device is not None else "?"
    spk = player.device.label() if player.device is not None else "?"
    return f"parley: microphone {mic}, speaker {spk}"


__all__ = ["QUIET_AUDIO_EVENTS", "AudioNotices", "KeyCommands", "TerminalView", "device_greeting"]
