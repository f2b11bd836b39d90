"""A correction said mid-sentence: the value after "actually / sorry / no wait / I mean / make it" replaces the one before.

:func:`corrected` rewrites the cleaned utterance as the request meant, or
returns ``None`` when it holds no correction it can place. A correction is a
pause (a comma), a marker, then a *replacement of a kind the request already
holds*: an amount ("… for eight minutes, actually make it twelve" → "… for 12
minutes"; "… for seven, sorry, seven thirty am" → "… for 7 30 am": a
replacement with its own unit or am/pm replaces the whole amount, a bare number
only the number) or an item named by its kind ("cancel the tea timer, no wait,
the egg one" → "cancel the egg timer"). Anything else after a marker is not a
correction ("… 5 minutes, actually two timers", a reminder's "actually, …"):
the caller matches the words as said, and :func:`starts_with_correction` tells
the timer parsers such words are no name. A placed correction is the request: when the rewrite matches no tool
("remind me to buy 2 lemons, actually 3" → "… buy 3 lemons", no moment), the words as said are not matched either.
Said in one breath, with no pause, a correction is the same ("a timer for five no make that eight minutes", "at 6 actually
no 6:30", "in 60 no 45 minutes"), also with the rest of the request after the replacement ("remind me at 5 actually make
that 6 pm to call Sam"); a replacement that starts with a preposition the request holds replaces its last phrase
of that preposition, when it is no longer ("the time in Paris, no sorry, in Berlin" → "the time in Berlin"); a place said
bare replaces the request's last place ("the time in Paris no I mean Berlin"), and a day the request's last day ("remind me
… tonight no wait tomorrow morning"). "One" set, then its kind named after the value, is that kind ("set one for an hour, a
timer I mean": a timer for an hour).
:func:`restarts` gives the words after each marker, latest first: a whole request said after one is the request ("set a,
no wait, can you set a timer …").
"""

from __future__ import annotations

import re

from genx.assistant.patterns import rx as _rx
from genx.assistant.slot_reads import reads
from genx.toolbox.numwords import words_to_numbers

__all__ = ["corrected", "restarts", "starts_with_correction"]


_MARK = r"(?:actually|sorry|no wait|wait|no|nope|i mean|i meant|or rather|rather|scratch that|correction|oops|my bad|my mistake)"
_MAKE_IT = r"(?:make (?:it|that)|change (?:it|that) to|let's (?:say|make it)|(?:it|that) should be)"
#: The last pause then a marker (or "make it" alone): what follows is the replacement.
_CORRECTION = _rx(rf"(?P<head>.+), (?:(?:{_MARK})(?:[ ,]+{_MARK})*[ ,]+(?:{_MAKE_IT} )?|{_MAKE_IT} )(?P<repl>.+)")
#: The same said in one breath: a marker (or "make it") straight after the value, no pause.
_INLINE = _rx(rf" (?:(?:{_MARK})(?: {_MARK})*(?: {_MAKE_IT})?|{_MAKE_IT}) (?=\S)")
_TRAILING_MARK = _rx(rf"(?:,? {_MARK})+$")
#: A marker anywhere, with or without a pause: where a restart may begin.
_ANY_MARK = _rx(rf"(?:^|[ ,])(?:{_MARK})(?:[ ,]+(?:{_MARK}))*[ ,]+")
#: A replacement that starts with a preposition: it replaces the request's last phrase of that preposition.
_REPL_PHRASE = _rx(r"(?P<prep>in|at|to|into|for|on|from|by) \S.*")
#: A name may start with a plain word that can be a marker ("no onions", "wait for the kettle"), not with a sure one.
_SURE = r"(?:actually|sorry|no wait|i mean|i meant|or rather|scratch that|correction)"
_STARTS = _rx(rf"(?:{_SURE}|{_MAKE_IT})\b|{_MARK},")
#: Words that belong to an amount, by what it measures: a moment, a length of time, the rest.
_CLOCK = r"(?:am|pm|a\.m\.|p\.m\.|o'?clock)"
_SPAN = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)"
_UNIT = rf"(?:{_CLOCK}|{_SPAN}|degrees|percent)"
_AMOUNT = rf"(?P<num>\d+(?:[:.]\d+)?(?: (?:[0-5]\d|oh \d))?)(?P<unit>(?: {_UNIT})*)"
_REPL_AMOUNT = _rx(rf"(?:to |for |at )?{_AMOUNT}")
#: A replacement amount with the rest of the request after it: "… at 5 actually make that 6 pm to pick up the kids".
_REPL_THEN_REST = _rx(rf"(?P<amount>(?:to |for |at )?{_AMOUNT})(?= (?:to|for|about|that) [a-z])")
_ANY_AMOUNT = _rx(rf"\b{_AMOUNT}\b")
_KIND = r"(?:timer|alarm|reminder|countdown)"
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
#: A day a request is for, with its part of the day: "tonight", "tomorrow morning", "on friday evening", "this afternoon".
_DAY = _rx(
    rf"\b(?:tonight|today|tomorrow|the day after tomorrow|this (?:morning|afternoon|evening|weekend)|"
    rf"(?:on |next |this )?{_DAYS}|next week)(?: (?:morning|afternoon|evening|night))?\b"
)
#: The request's last place: "in Paris" at its end.
_LAST_PLACE = _rx(r" in (?P<place>[a-z][a-z' ]*)$")
#: "the egg one", "my egg timer": an item of the kind the request names.
_REPL_ITEM = _rx(rf"(?:the|my|that) (?P<name>[a-z]+(?: [a-z]+)?) (?:one|1|{_KIND})")
_LAST_ITEM = _rx(rf"\b(?:the|my|that|an?) (?:[a-z0-9']+ ){{1,3}}?(?P<kind>{_KIND})\b(?!.*\b{_KIND}\b)")


def starts_with_correction(text: str) -> bool:
    """Whether ``text`` begins with a correction marker ("actually two timers"): such words name nothing."""
    return bool(_STARTS.match(text.strip(" ,")))


def _kind(unit: str) -> str:
    """What an amount's unit measures: "clock", "span", "other", or "" for a bare number."""
    for kind, rx in (("clock", _CLOCK), ("span", _SPAN)):
        if re.search(rf"\b{rx}", unit, re.IGNORECASE):
            return kind
    return "other" if unit.strip() else ""


def _replaced(amounts: list[re.Match[str]], new: re.Match[str]) -> re.Match[str] | None:
    """The amount a replacement replaces. With a unit: the last of its kind, else the last bare one ("7 30 am" after
    "for 7"), else none ("9 am" replaces no "8 minutes"). Bare: the last with a unit ("12" after "8 minutes", not the
    "2" of "call the 2 kids at 5 pm"), else the last."""
    want, last_first = _kind(new["unit"]), amounts[::-1]
    if want:
        ranked = [a for a in last_first if _kind(a["unit"]) == want] + [a for a in last_first if not _kind(a["unit"])]
    else:
        ranked = [a for a in last_first if _kind(a["unit"])] + last_first
    return ranked[0] if ranked else None


def _placed(head: str, repl: str, *, inline: bool = False) -> str | None:
    """``head`` with ``repl`` put in place of what it replaces (an amount, an item, a phrase), or ``None``.

    ``inline`` (no pause): only what ends ``head``, the slip said just before the marker ("if it's actually 3 days" is none)."""
    head = words_to_numbers(_TRAILING_MARK.sub("", head))  # "3 minutes, no wait, make it 4": "no wait" is no head
    repl = words_to_numbers(repl.strip(" ,"))
    amounts = [a for a in _ANY_AMOUNT.finditer(head) if not inline or a.end() == len(head)]
    if (new := _REPL_AMOUNT.fullmatch(repl)) and (old := _replaced(amounts, new)):
        value = new["num"] + (new["unit"] or old["unit"])
        return f"{head[: old.start()]}{value}{head[old.end() :]}"
    if (item := _REPL_ITEM.fullmatch(repl)) and (old_item := _LAST_ITEM.search(head)) and not (inline and old_item.end() < len(head)):
        return f"{head[: old_item.start()]}the {item['name']} {old_item['kind']}{head[old_item.end() :]}"
    if (day := list(_DAY.finditer(head))) and _DAY.fullmatch(repl) and not (inline and day[-1].end() < len(head)):
        return f"{head[: day[-1].start()]}{repl}{head[day[-1].end() :]}"
    if (place := _LAST_PLACE.search(head)) and reads("place", place["place"]) and len(repl.split()) <= 3 and reads("place", repl):
        return f"{head[: place.start('place')]}{repl}"
    cut = head.lower().rfind(f" {phrase['prep'].lower()} ") if (phrase := _REPL_PHRASE.fullmatch(repl)) else -1
    if cut > 0 and len(repl.split()) <= len(head[cut:].split()):  # "in Paris" → "in Berlin"; not "say no to Bob at 5"
        return f"{head[:cut]} {repl}"
    return None


#: "one" set, the kind said after the value: "set one for an hour, a timer I mean" is "set a timer for an hour".
_KIND_AFTER = _rx(
    rf"(?P<head>(?:set|start|make|create|add|put on|give me|get me)(?: me| us)? )one (?P<rest>(?:for|at|to go off) .+?),? "
    rf"(?:(?:{_MARK}),? )?(?P<art>an?) (?P<kind>{_KIND})(?:,? (?:{_MARK}))?"
)


def corrected(t: str) -> str | None:
    """``t`` with its mid-sentence correction applied (module docstring), or ``None``."""
    if m := _KIND_AFTER.fullmatch(t):
        return f"{m['head']}{m['art']} {m['kind']} {m['rest']}"
    if (m := _CORRECTION.fullmatch(t)) and (fixed := _placed(m["head"], m["repl"])) is not None:
        return fixed
    for mark in reversed(list(_INLINE.finditer(t))):  # one breath: "… for five no make that eight minutes"
        if (fixed := _placed(t[: mark.start()], t[mark.end() :], inline=True)) is not None:
            return fixed
        if (lead := _REPL_THEN_REST.match(t, mark.end())) and (fixed := _placed(t[: mark.start()], lead["amount"], inline=True)):
            return fixed + t[lead.end() :]  # "remind me at 5 actually make that 6 pm to call Sam": the rest goes on
    return None


def restarts(t: str) -> list[str]:
    """The words after each correction marker in ``t``, the latest first: where a request may have been said anew."""
    return [t[m.end() :] for m in reversed(list(_ANY_MARK.finditer(t))) if m.start() > 0 and m.end() < len(t)]
