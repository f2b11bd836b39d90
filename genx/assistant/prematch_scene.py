"""A clause that sets the scene before a request: "I'm putting the pizza in, set a timer for 12 minutes".

:func:`after_scene` owns it: which clauses set a scene (one with its own subject, "I'm …", "there are 9 of us"; a thing
doing something, "the roast is going in"; a clause about a thing, "the kids keep asking"), where the scene ends (a pause,
"so", or, with no pause, an unbound command or question), and which requests after it are claimed (a whole request that
does not point back into the clause). With no pause, a question after a clause with its own subject is claimed when it
says its own value ("we're splitting it 4 ways what's 84 divided by 4") or asks the time or the date with no value and
the clause names no place ("I lost track of time what time is it"; "my son lives in Rome what time is it" is not claimed:
whose clock?); after a pause, a clause about the speaker's clock or calendar that names no place, day, time or event
before the bare time or date ("the clock in the shed is dead, what's the time"); a time said as a clause, "before my next call, …".
:data:`REQUEST` (how a request starts) and :data:`COMMAND` (a command verb) are shared with :mod:`.prematch`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.prematch_questions import names_a_place

__all__ = ["COMMAND", "REQUEST", "after_scene"]

#: The verbs a command starts with (what is asked of a tool, not a question).
_COMMAND_VERBS = "set|start|put|give me|make|remind|wake|cancel|stop|delete|remove|turn off"
COMMAND = re.compile(rf"(?:{_COMMAND_VERBS})\b", re.IGNORECASE)
#: How a request starts (a command, a question, or "(tell me) the time"); a clause before it only sets the scene.
REQUEST = re.compile(
    rf"(?:{_COMMAND_VERBS}|get me up|switch off|shut off|get rid of|scrap|"
    r"kill|dismiss|clear|silence|disable|what|what's|whats|how|when|which|"
    r"convert|calculate|work out|tell me|list|show|can you|could you|would you|you can|please|the time|the date|any)\b",
    re.IGNORECASE,
)
_BACK_REFERENCE = re.compile(r"\b(?:there(?! (?:right )?(?:now )?in \w)|then|that day|that date|that time)\b", re.IGNORECASE)
_VALUE_TOOLS = frozenset(("convert_units", "calculate", "current_time", "date_info"))
_CLOCK_TOOLS = frozenset(("current_time", "date_info"))
#: A scene is a clause with its own subject ("I'm putting the pizza in", "before I go to bed", "there are 9 of us"), not a topic the
#: question is about ("my birthday, what day is it": the day of the birthday, not today's).
_SCENE = re.compile(
    r"(?:(?:before|after|when|once|while|as soon as|now that|since) (?:i|we|you|he|she|they|(?:the|my|our) [a-z]+ [a-z]+s)\b|"
    r"(?:i|i'm|im|i've|i'll|i'd|we|we're|we've|we'll|you|he|she|they|they're|it's|there's|there (?:is|are|was|were))\b|"
    r"(?:(?:my|our|the) )?[a-z]+ (?:said|says|told (?:me|us)|asked (?:me|us))\b|"
    r"(?:before|after|during) (?:my|our|the|this) [a-z]+(?: [a-z]+)?(?=,))",  # "before my next call, what time is it in …"
    re.IGNORECASE,
)
#: A thing doing something ("the roast is going in now", "dinner's ready") sets the scene for a command after it.
_THING_SCENE = re.compile(
    r"(?!(?:what|who|where|when|how|which|why)\b)(?:(?:the|my|our) )?[a-z]+(?: [a-z]+){0,2}(?:'s| is| are| was| were)\b", re.IGNORECASE
)  # a question first is a request of its own: "what's 5 plus 5, set a timer" is two
#: A clause about a thing ("the kids keep asking", "my jug only does cups") sets the scene for a request that says its
#: own value (a date, a place, an amount): the clause cannot be what it asks about.
_TOPIC = re.compile(r"(?:the|my|our|his|her|their) [a-z]+ [a-z']+", re.IGNORECASE)
#: A clause about the speaker's own clock or calendar failing ("the clock in the shed is dead", "my watch stopped"): why
#: the bare time or date is asked, not what it is about. A timer or an alarm is no clock ("the timer went off, what's the
#: time" may ask when), and a clause saying a day, a time or an event of its own may be what the question is about.
_TIMEPIECE = re.compile(r"\b(?:clock|clocks|watch|calendar|phone|laptop)\b", re.IGNORECASE)
_WHEN_WORDS = re.compile(
    r"\d|\b(?:timer|alarm|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday|tonight|noon|"
    r"midnight|morning|afternoon|evening|week|month|year|january|february|march|april|may|june|july|august|september|"
    r"october|november|december|birthday|anniversary|party|meeting|appointment|holiday|wedding|christmas|easter|deadline)",
    re.IGNORECASE,
)


#: Where a scene ends: a pause, or "so" ("the pasta's just gone in so set a timer for 11 minutes").
_SCENE_END = re.compile(r", | so (?=\S)", re.IGNORECASE)


#: A command straight after a clause with its own subject, no pause: "I just glued the joint set a glue timer …".
_COMMAND_START = re.compile(r" (?=(?:just )?(?:set|start|remind|wake|put on|give me|tell me) )", re.IGNORECASE)
#: Words that make the command part of the clause ("I forgot to set an alarm", "I already set one", "we can start a timer",
#: "I need to go set an alarm").
_BOUND = frozenset(
    "to and or but i you we they he she it will can could would should might must shall did didn't don't not never already "
    "just also then please me let's lets who that which i'll we'll you'll they'll he'll she'll i'd we'd you'd they'd "
    "go come help let usually normally always often generally typically sometimes rarely".split()
)


#: A question about a value straight after a clause with its own subject, no pause: "we're splitting it 4 ways what's 84
#: divided by 4"; claimed only when it says enough without the clause (:func:`_says_enough`).
_QUESTION_START = re.compile(
    r" (?=(?:what's|what is|how much is|how many|how long|when's|when is|what time is it|what's the time)(?: |$))", re.IGNORECASE
)


def _unbound(t: str, starts: re.Pattern[str]) -> list[int]:
    return [m.end() for m in starts.finditer(t) if t[: m.start()].split()[-1].lower() not in _BOUND]


def _scene_ends(t: str, subject: bool, thing: bool, topic: bool) -> tuple[list[int], set[int]]:
    """Where a scene may end: at a pause or "so", and, after a clause with its own subject or a thing doing something,
    before an unbound command; after a clause with its own subject, before a question too (the second set: those ends)."""
    ends = [m.end() for m in _SCENE_END.finditer(t)]
    if subject or thing:
        ends += _unbound(t, _COMMAND_START)
    questions = set(_unbound(t, _QUESTION_START)) - set(ends) if subject or topic else set()
    return sorted([*ends, *questions]), questions


def after_scene(t: str, clean: Callable[[str], str], match: Callable[[str], Intent | None]) -> Intent | None:
    """A whole request after a clause that sets the scene: "I'm putting the pizza in, set a timer for 12 minutes".

    Not when the request points back into the clause ("I'm flying to Tokyo, what time is it there": which place?).
    ``clean`` is the pre-match's cleaning, ``match`` its matchers on cleaned text."""
    subject, thing, topic = bool(_SCENE.match(t)), bool(_THING_SCENE.match(t)), bool(_TOPIC.match(t))
    if not (subject or thing or topic):
        return None
    ends, questions = _scene_ends(t, subject, thing, topic)
    for end in ends:
        rest = clean(t[end:])  # "…, um what day is it", "…, so remind me …"
        if not REQUEST.match(rest) or _BACK_REFERENCE.search(rest) or (intent := match(rest)) is None:
            continue
        if end in questions:
            if _says_enough(intent, subject, t[:end]):
                return intent
        elif subject or (thing and COMMAND.match(rest)) or (topic and intent.arguments) or _bare_clock(intent, t[:end]):
            return intent
    return None


def _bare_clock(intent: Intent, clause: str) -> bool:
    """The time or the date with no value after a pause and a clause about the speaker's clock or calendar that names no
    place, no day, no time and no event ("the clock in the shed is dead, what's the time")."""
    return (
        intent.tool in _CLOCK_TOOLS
        and not intent.arguments
        and clause.rstrip().endswith(",")
        and bool(_TIMEPIECE.search(clause))
        and not names_a_place(clause)
        and not _WHEN_WORDS.search(clause)
    )


def _says_enough(intent: Intent, subject: bool, clause: str) -> bool:
    """A question straight after a clause, no pause: one that says its own value, or, after a clause with its own subject
    that names no place, the time or the date with no value (the clause cannot be whose clock it is)."""
    if intent.tool not in _VALUE_TOOLS:
        return False
    if intent.arguments:
        return True
    return subject and intent.tool in _CLOCK_TOOLS and not names_a_place(clause)
