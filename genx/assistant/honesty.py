"""Questions an offline assistant cannot answer, and the plain sentence said instead of an invented answer.

A small offline model asked for today's weather, the news or a score makes one
up ("it's 10:59 AM in Tokyo", "sunny and 22 degrees"). :func:`unknowable` spots
the questions that need live or personal data no offline tool has (weather,
news, scores, prices, traffic, the user's mail or calendar); the assistant then
says :func:`cannot_know` ("I can't know today's weather offline. …") instead of
asking the model. Time, dates, sums and units are tools (the pre-match runs
first), and a configured tool whose name or description mentions the topic
(a weather webhook) takes the question instead (:func:`covered_by`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["OFFER", "Unknowable", "cannot_know", "covered_by", "unknowable"]

OFFER = "I can tell you the time, work out sums, convert units or set a timer or reminder."


@dataclass(frozen=True, slots=True)
class Unknowable:
    topic: str  # a word a covering tool would mention ("weather")
    what: str  # said: "I can't know <what> offline."


_RULES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "weather",
        "the weather",
        (
            "weather",
            "forecast",
            "(is it|will it|is it going to) (rain|snow)",
            "temperature (outside|today|tomorrow|now)",
            "how (hot|cold) is it",
        ),
    ),
    ("news", "the news", ("news", "headlines?", "latest on", "happening in the world", "what happened (today|yesterday)")),
    (
        "score",
        "live scores or results",
        ("the score", "scores", "who won", "who is winning", "who's winning", "match result", "game last night", "election results?"),
    ),
    (
        "price",
        "prices right now",
        (
            "stock price",
            "stock market today",
            "share price",
            "bitcoin (price|worth)",
            "price of bitcoin",
            "exchange rate",
            "price of (gold|oil|petrol|gas)",
            "how much is .+ (worth|trading) (today|now)",
        ),
    ),
    ("traffic", "the traffic", ("traffic (like|today|now|on)", "flight status", "is my (train|flight|bus) (late|delayed|on time)")),
    (
        "email",
        "your email or messages",
        (
            "my (e-?mails?|inbox|messages|texts|voicemail)",
            "(any|new) (e-?mails?|messages|texts|voicemails?)",
            "did .+ (email|text|message|call) me",
        ),
    ),
    (
        "calendar",
        "your calendar",
        ("my (calendar|schedule|agenda|appointments?|meetings?)", "am i free", "what('s| is) on (today|tomorrow)"),
    ),
    ("account", "your accounts", ("my (bank|account|balance|order|package|parcel|delivery)", "where is my (order|package|parcel)")),
    ("location", "where you are", ("where am i", "my (location|address)", "near me", "open now", "nearby")),
    (
        "stranger",
        "who that is",
        (
            "what('s| is) (the|that) name of (the|that)",
            "what('s| is) (the|that) (man|woman|guy|person|lady)('s)? name",
            "who is (at the door|calling|that (man|woman|guy|person))",
        ),
    ),
)
_COMPILED = tuple((topic, what, re.compile(r"\b(" + "|".join(alts) + r")\b", re.IGNORECASE)) for topic, what, alts in _RULES)


def unknowable(text: str) -> Unknowable | None:
    """The live or personal data ``text`` asks for, when no offline model can know it; else ``None``."""
    for topic, what, rx in _COMPILED:
        if rx.search(text):
            return Unknowable(topic, what)
    return None


def covered_by(u: Unknowable, tools: Iterable[object]) -> bool:
    """Whether one of ``tools`` (FuncTool-like: ``name``, ``description``) mentions ``u``'s topic."""
    for t in tools:
        about = f"{getattr(t, 'name', '')} {getattr(t, 'description', '')}".lower()
        if u.topic in about:
            return True
    return False


def cannot_know(u: Unknowable) -> str:
    return f"I can't know {u.what} offline. {OFFER}"
