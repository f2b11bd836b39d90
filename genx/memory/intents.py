"""Explicit memory requests, matched without a model: remember, forget, forget everything, what do you know.

:func:`match_intent` returns an :class:`Intent` or None. It only matches a
request at the start of the utterance (after "please", "hey Parley", "can
you"…), so "do you remember my name?" is a question, not an order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["remember", "forget", "forget_all", "list"]

_LEAD = r"^\s*(?:(?:hey|ok|okay)\s+parley[,\s]+)?(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
_REMEMBER = re.compile(
    _LEAD + r"(?:remember|note|keep in mind|don't forget|do not forget)(?:\s+that|\s*:|,)?\s+(?P<t>.+?)\s*[.!?]?\s*$", re.I | re.S
)
_FORGET_ALL = re.compile(
    _LEAD + r"(?:forget|delete|erase|wipe|clear)\s+(?:everything|all(?: of)?(?: your| my| the)? memor(?:y|ies)|all you know|what you know)"
    r"(?:\s+about me)?\s*[.!?]?\s*$",
    re.I,
)
_FORGET = re.compile(
    _LEAD + r"(?:forget|stop remembering|delete the fact)(?:\s+that|\s+about|\s*:|,)?\s+(?P<t>.+?)\s*[.!?]?\s*$", re.I | re.S
)
_LIST = re.compile(
    _LEAD
    + r"(?:tell me\s+)?what (?:do |else do )?you (?:know|remember|recall) about me|what have you (?:learned|learnt|remembered) about me"
    r"|(?:tell me|list) (?:everything )?(?:what )?you (?:know|remember) about me|what(?:'s| is) in your memory",
    re.I,
)


_POLITE = re.compile(r"^\s*(?:please\s+)?(?:can|could|would|will)\s+you\b", re.I)


@dataclass(frozen=True, slots=True)
class Intent:
    kind: Kind
    text: str = ""  # what to remember / forget (empty for list and forget_all)


def match_intent(utterance: str) -> Intent | None:
    u = utterance.strip()
    if not u:
        return None
    if _LIST.search(u):
        return Intent("list")
    if _FORGET_ALL.match(u):
        return Intent("forget_all")
    if u.endswith("?") and not _POLITE.match(u):
        return None
    m = _FORGET.match(u)
    if m:
        return Intent("forget", m.group("t").strip())
    m = _REMEMBER.match(u)
    if m:
        return Intent("remember", m.group("t").strip())
    return None


__all__ = ["Intent", "Kind", "match_intent"]
