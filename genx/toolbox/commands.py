"""App commands said or typed to the assistant, matched without a model: "stop", "mute", "new conversation"…

:func:`match_command` returns an :class:`AppCommand` when the *whole* utterance
is a command (after dropping politeness and the assistant's name: "Parley,
could you please speak a bit slower?"), else ``None``. Matching the whole
utterance is what keeps "how do I stop smoking" or "stop the pasta timer" from
being the stop command. The phrasings are data (:data:`PHRASES`, regular
expressions over normalised text); the app maps each command to its action
(``VoiceLoop.mute``, ``set_mode`` …). Deterministic and about 20 µs a call.
"""

from __future__ import annotations

import enum
import re

__all__ = ["PHRASES", "AppCommand", "match_command", "normalise_utterance"]


class AppCommand(enum.StrEnum):
    STOP = "stop"  # stop speaking / cancel the current answer
    MUTE = "mute"  # stop listening (microphone muted)
    UNMUTE = "unmute"
    NEW_CONVERSATION = "new_conversation"
    SPEAK_SLOWER = "speak_slower"
    SPEAK_FASTER = "speak_faster"
    PUSH_TO_TALK = "push_to_talk"
    HANDS_FREE = "hands_free"


_SPEAK = r"(?:speak|talk|say (?:it|things)|read|go)"
_BIT = r"(?:(?:a )?(?:little |tiny )?(?:bit |lot )?)?"
_PTT = r"(?:push to talk|push-to-talk|ptt|press to talk|hold to talk|walkie talkie)(?: mode)?"
_HF = r"(?:hands free|hands-free|handsfree|always listening|continuous listening|open mic|hot mic)(?: mode)?"
_CONVO = r"(?:conversation|chat|session|topic|thread|discussion)"
_MIC = r"(?:(?:the |your )?(?:microphone|mic)|yourself|(?:the )?listening)"

#: Each command's phrasings, matched against the whole normalised utterance.
PHRASES: dict[AppCommand, tuple[str, ...]] = {
    AppCommand.STOP: (
        r"(?:ok |okay )?stop(?: it| that| now| talking| speaking| there| please)?",
        r"(?:be )?quiet", r"(?:shut up|hush|shush|silence|enough|thats enough|that will do|cancel|never ?mind|forget it)",
        r"(?:stop|quit) (?:the )?(?:answer|reading|speech)", r"please stop", r"sh+|s+h+", r"be silent", r"that is enough",
        r"(?:ok |okay )?(?:stop|hold it) right there",
    ),
    AppCommand.MUTE: (
        rf"mute(?: {_MIC})?", rf"(?:turn|switch) off {_MIC}", rf"(?:turn|switch) {_MIC} off", r"(?:mic|microphone) off",
        r"stop listening(?: to me)?", r"dont listen(?: to me)?", r"go to sleep",
    ),
    AppCommand.UNMUTE: (
        rf"unmute(?: {_MIC})?", rf"un mute(?: {_MIC})?", rf"(?:turn|switch) on {_MIC}", rf"(?:turn|switch) {_MIC} (?:back )?on",
        r"(?:mic|microphone) on", r"start listening(?: again)?", r"listen(?: to me)?(?: again)?", r"wake up",
    ),
    AppCommand.NEW_CONVERSATION: (
        rf"(?:start |begin |open )?(?:a )?(?:new|fresh|another) {_CONVO}", rf"start (?:over|again|afresh)(?: with a new {_CONVO})?",
        rf"(?:clear|reset|wipe) (?:the |this |our )?{_CONVO}(?: history)?",
        r"(?:clear|reset|wipe) (?:the |your )?(?:history|memory|context)",
        rf"forget (?:this|our|the) {_CONVO}", r"lets start over", r"new topic", r"(?:lets )?start fresh",
    ),
    AppCommand.SPEAK_SLOWER: (
        rf"{_SPEAK} {_BIT}(?:slower|more slowly|slowly)", rf"slow (?:down|it down)(?: {_BIT}|a little| please)?",
        r"(?:not so|less) fast", rf"{_SPEAK} {_BIT}less fast", r"slower(?: please)?", r"too fast",
    ),
    AppCommand.SPEAK_FASTER: (
        rf"{_SPEAK} {_BIT}(?:faster|quicker|more quickly)", rf"speed (?:up|it up)(?: {_BIT}| please)?", r"hurry up",
        r"(?:not so|less) slow(?:ly)?", r"faster(?: please)?", r"too slow",
    ),
    AppCommand.PUSH_TO_TALK: (
        rf"(?:switch|change|go|move|turn) (?:to |into |back to |on )?{_PTT}", rf"(?:use|enable|start|activate) {_PTT}", _PTT,
        rf"{_PTT} (?:mode )?(?:on|please)",
    ),
    AppCommand.HANDS_FREE: (
        rf"(?:switch|change|go|move|turn) (?:to |into |back to |on )?{_HF}", rf"(?:use|enable|start|activate) {_HF}", _HF,
        rf"{_HF} (?:mode )?(?:on|please)", rf"(?:turn|switch) off {_PTT}",
    ),
}  # fmt: skip

_COMPILED = [(cmd, re.compile("|".join(f"(?:{p})" for p in pats))) for cmd, pats in PHRASES.items()]

_LEAD = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|um|uh|er|well|now|oh|alright|all right|parley|assistant|computer)\b[ ,]*)*"
    r"(?:(?:can|could|would|will) you(?: please)? |please |i want you to |id like you to |i would like you to "
    r"|go ahead and |just |kindly )*"
)
_TAIL = re.compile(r"(?:\s+(?:please|now|thanks|thank you|parley|for me|right now|will you|would you|ok|okay))+$")


def normalise_utterance(text: str) -> str:
    """Lower case, apostrophes dropped, punctuation → spaces, politeness and the assistant's name removed."""
    t = text.lower().replace("'", "").replace("’", "")
    t = re.sub(r"[^a-z0-9 ]+", " ", t)  # "push-to-talk" → "push to talk"
    t = re.sub(r"\s+", " ", t).strip()
    t = _LEAD.sub("", t).strip()
    t = _TAIL.sub("", t).strip()
    return re.sub(r"^(?:please )", "", t)


def match_command(text: str) -> AppCommand | None:
    """The command ``text`` is, or ``None`` when it is anything else (a question, a request for a tool)."""
    t = normalise_utterance(text)
    if not t or len(t) > 80:
        return None
    for cmd, pattern in _COMPILED:
        if pattern.fullmatch(t):
            return cmd
    return None
