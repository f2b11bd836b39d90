"""A clause that gives a value, then a request that points back to it: "my brother is six feet tall, how much is that in cm".

The request's back-reference ("there", "over there", "that", "this", "that day", "it", "then")
is replaced by a run of the clause's words and the whole result must be one of
the tools' own phrasings ("how much is six feet in cm"), so nothing is claimed
that the plain request with its value spelt out would not be. The clause is
never read for its meaning: a clause whose words, put in the request, make no
phrasing ("I was in Paris last spring, what was that like") stays with the
model. A conversion with no unit to convert to takes a unit the clause names
("my oven only shows celsius, what's 425 fahrenheit"). "there" is a place: the *shortest* run the place reader knows ("the
Vancouver office" → "Vancouver"); "that"/"it" take the *longest* run that reads
(an amount keeps its unit, a date its year: "christmas day nineteen eighty two"), never a place
("I was in Rome at christmas, what day was that": Christmas, not the day in Rome).
A command that names its tool but no value ("…, timer please", "…, set an alarm", "…, can you set a rice timer") takes the
longest run that reads as the value ("the slow cooker needs two hours, timer please": 2 hours); a name said as a clause
of its own before the value is the timer's ("eggs, six minutes, timer please").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from genx.assistant.intents import Intent
from genx.assistant.slot_reads import reads

__all__ = ["match_back_reference"]

#: Where the request may start: after a comma, or at a request word ("… six feet tall how much is that").
_START = re.compile(
    r"(?:, |\s)(?=(?:set|start|put|give me|make|cancel|stop|delete|remove|turn|switch|what|what's|how|when|which|"
    r"convert|calculate|work out|tell me|is|was|does|did)\b)",
    re.IGNORECASE,
)
_PLACE_REF = re.compile(r"\b(?:over there|there)\b", re.IGNORECASE)
_VALUE_REF = re.compile(r"\b(?:that day|that date|that|this|it|then)\b", re.IGNORECASE)
_PHRASAL = re.compile(r"\b(turn|switch) (it|that) off\b", re.IGNORECASE)  # "turn it off" is "turn off it"
_MAX_RUN = 8
#: Words a run may not start or end with: they belong to the clause, not to the value.
_EDGE = frozenset("and but so is was are were be has have had to for of my it i i'm we we're you he she they".split())
_VERBS = frozenset("is was are were be has have had".split())  # a value has none: "the bus ride is 40 minutes" → "40 minutes"
_FIRST_EDGE = _EDGE - {"my"}  # "my 6 am alarm" names the alarm


def _runs(scene: str, *, shortest_first: bool) -> list[str]:
    words = scene.split()
    runs = [
        " ".join(words[i:j])
        for i in range(len(words))
        for j in range(i + 1, min(len(words), i + _MAX_RUN) + 1)
        if words[i].lower() not in _FIRST_EDGE and words[j - 1].lower() not in _EDGE and not any(w.lower() in _VERBS for w in words[i:j])
    ]
    return sorted(runs, key=lambda r: len(r.split()), reverse=not shortest_first)


def _unit_words(scene: str) -> list[str]:
    """The clause's words that may name the unit wanted ("my oven only shows celsius, what's 425 fahrenheit").

    Whole words of four letters or more: "in", "at", "m" are units to pint but only words to a speaker."""
    return [w for w in scene.split() if len(w) >= 4 and w.isalpha()]


def _read(intent: Intent) -> bool:
    """Every slot reads with its tool's parser: the run was the value, not a stretch of the clause around it."""
    return all(reads(name, value) for name, value in intent.arguments.items())


#: A command naming its tool but no value ("timer please", "set an alarm"): the value is in the clause before it.
_OPEN_COMMAND = re.compile(
    r"(?:(?:can|could|would) you (?:please )?)?(?:(?:set|start|put on|give me|get me|make|i need|i want)(?: me| us)? )?"
    r"(?:a |an |the |my )?(?:(?P<label>[a-z]+) )?(?P<kind>timer|countdown|alarm)"
    r"(?: on| going)?",
    re.IGNORECASE,
)
_OPEN = {
    "timer": ("duration", "set a {}timer for {}"),
    "countdown": ("duration", "set a {}timer for {}"),
    "alarm": ("time", "set an {}alarm for {}"),
}
#: A name said before the value, as its own clause: "eggs, six minutes, timer please" (the timer for the eggs).
_NAME_CLAUSE = re.compile(r"(?P<name>[a-z]+(?: [a-z]+)?), ", re.IGNORECASE)


def _open_command(t: str, match: Callable[[str], Intent | None]) -> Intent | None:
    """A command with no value after a clause ("the slow cooker needs two hours, timer please"): the longest run that reads."""
    scene, _, rest = t.rpartition(", ")
    if not scene or not (command := _OPEN_COMMAND.fullmatch(rest)):
        return None
    slot, phrasing = _OPEN[command["kind"].lower()]
    label = command["label"] or ""
    if not label and (name := _NAME_CLAUSE.fullmatch(scene, 0, scene.find(", ") + 2)) and name["name"].split()[0].lower() not in _EDGE:
        label, scene = name["name"], scene[name.end() :]
    for run in _runs(scene, shortest_first=False):
        said = phrasing.format(f"{label} " if label else "", run)
        if reads(slot, run) and (intent := match(said)) is not None and _read(intent):
            return intent
    return None


def match_back_reference(t: str, match: Callable[[str], Intent | None]) -> Intent | None:
    """The request at the end of ``t`` with its back-reference resolved into the clause before it, or ``None``."""
    if (intent := _open_command(t, match)) is not None:
        return intent
    for start in _START.finditer(t):
        scene, rest = t[: start.start()].strip(" ,"), _PHRASAL.sub(r"\1 off \2", t[start.end() :])
        if not scene or ", " in rest:  # the request pointing back is the last clause
            continue
        if not start[0].startswith(",") and _START.match(" " + scene.rpartition(", ")[2]):
            continue  # a start inside a request is none: "…, how many days is that" is one request, not "is that"
        for ref in _PLACE_REF.finditer(rest):
            for run in _runs(scene, shortest_first=True):
                intent = match(f"{rest[: ref.start()]}in {run}{rest[ref.end() :]}")
                if intent is not None and intent.arguments.get("place") == run and _read(intent):
                    return intent
        for run in _unit_words(scene):
            intent = match(f"{rest} in {run}")
            if intent is not None and intent.tool == "convert_units" and run.lower() in str(intent.arguments["to_unit"]).lower():
                return intent
        for ref in _VALUE_REF.finditer(rest):
            for run in _runs(scene, shortest_first=False):
                intent = match(f"{rest[: ref.start()]}{run}{rest[ref.end() :]}")
                if intent is not None and intent.arguments and intent.tool != "current_time" and _read(intent):
                    return intent
    return None
