"""The spoken form of an answer: what TTS says and the chat bubble shows, rewritten while it streams.

A small model writes for a screen (markdown lists, ``**bold**``, emoji, links,
"20 km"); read aloud that is "one dot a pan-seared…" or an emoji's name.
:class:`SpokenForm` rewrites the answer's text deltas into plain spoken
sentences as they arrive, so the voice loop's TTS and its bubble (both fed from
the same stream) get the same words:

* list items (``-``, ``*``, ``•``, ``1.``, ``2)``) become sentences: "First, …. Second, …."; headings lose
  their ``#`` and end with a full stop; quote markers are dropped;
* ``**bold**``, ``_italics_``, backticks and strike-through markers are removed,
  a fenced code block is left out entirely;
* ``[text](url)`` keeps the text; a bare URL is read as its host ("bbc dot co dot uk");
* emoji and other pictographs are removed (the rule: :func:`genx.local.speakable.is_pictograph`, plus the emoji blocks);
* a number with a unit, currency or percent is read in words ("20 km" →
  "twenty kilometres", "$5" → "five dollars", "30°C" → "thirty degrees Celsius",
  "50%" → "fifty percent"); bare numbers stay digits (the voice reads them);
* ``&`` ``@`` ``=`` ``+`` ``×`` ``→`` standing alone become words.

Streaming: a word is rewritten once the whitespace after it has arrived (a
number waits for the next word, which may be its unit), so the rewriting is the
same however the text is split into deltas (:func:`spoken` = one feed + flush).
Pure: no I/O, no clock.
"""

from __future__ import annotations

import re

from genx.assistant.numbers import number_words, ordinal_word
from genx.local.speakable import is_pictograph

__all__ = ["UNITS", "SpokenForm", "spoken"]

#: unit as written → (singular, plural) as spoken
UNITS: dict[str, tuple[str, str]] = {
    "km": ("kilometre", "kilometres"),
    "m": ("metre", "metres"),
    "cm": ("centimetre", "centimetres"),
    "mm": ("millimetre", "millimetres"),
    "mi": ("mile", "miles"),
    "ft": ("foot", "feet"),
    "yd": ("yard", "yards"),
    "kg": ("kilogram", "kilograms"),
    "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"),
    "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "l": ("litre", "litres"),
    "L": ("litre", "litres"),
    "ml": ("millilitre", "millilitres"),
    "mL": ("millilitre", "millilitres"),
    "km/h": ("kilometre per hour", "kilometres per hour"),
    "kph": ("kilometre per hour", "kilometres per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "m/s": ("metre per second", "metres per second"),
    "h": ("hour", "hours"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
    "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"),
    "s": ("second", "seconds"),
    "sec": ("second", "seconds"),
    "secs": ("second", "seconds"),
    "ms": ("millisecond", "milliseconds"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "%": ("percent", "percent"),
    "KB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "TB": ("terabyte", "terabytes"),
    "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"),
    "W": ("watt", "watts"),
    "V": ("volt", "volts"),
    "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "km²": ("square kilometre", "square kilometres"),
    "m²": ("square metre", "square metres"),
}
_CURRENCY = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
}
_ALONE = {"&": "and", "@": "at", "=": "equals", "+": "plus", "×": "times", "→": "to", "->": "to", "=>": "to", "~": "about"}
_DROP_ALONE = frozenset({"|", "-", "–", "—", "*", "**", "#", ">", "<", "/", "\\", "```", "`"})
_NUM = r"\d[\d,]*(?:\.\d+)?"
_TOKEN = re.compile(rf"^(?P<cur>[$€£])?(?P<num>[-−]?{_NUM})(?P<unit>[%°][CF]?|[A-Za-z][A-Za-z/²³]*)?(?P<tail>[.,!?;:)]*)$")
_BARE_NUMBER = re.compile(rf"^~?[-−]?{_NUM}$")
_LIST_MARK = re.compile(r"^(?:[-*+•–]|\d{1,2}[.)])$")
_HEADING = re.compile(r"^#{1,6}$")
_URL = re.compile(r"^(?P<lead>[(\[<]*)(?:https?://|www\.)(?P<host>[^/\s?#)\]>]+)[^\s]*?(?P<tail>[.,!?;:]*)$", re.IGNORECASE)
_TAIL = re.compile(r"[.,!?;:]+$")
_TERMINAL = ".!?:;,"
# besides genx.local.speakable's is_pictograph: the emoji blocks whole (their unassigned and bracket characters too),
# the zero-width joiner and the tag characters of flag sequences
_PICTO_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0x200D, 0x200D), (0xE0020, 0xE007F))


def _is_picto(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _PICTO_RANGES) or is_pictograph(ch)


def _amount(cur: str, num: str) -> str | None:
    one, many, sub_one, sub_many = _CURRENCY[cur]
    whole, _, frac = num.replace(",", "").partition(".")
    words = number_words(whole)
    if words is None:
        return None
    out = f"{words} {one if whole == '1' else many}"
    if frac and len(frac) == 2 and int(frac):
        out += f" and {number_words(str(int(frac)))} {sub_one if int(frac) == 1 else sub_many}"
    elif frac and len(frac) != 2:
        return None
    return out


def _say_quantity(num: str, unit: str) -> str | None:
    names = UNITS.get(unit)
    words = number_words(num)
    if names is None or words is None:
        return None
    return f"{words} {names[0] if num == '1' else names[1]}"


def _clean(word: str) -> str:
    """One word without markup, emoji or link syntax (may be empty)."""
    if "](" in word:
        word = word.split("](", 1)[0]
    m = _URL.match(word)
    if m:
        host = m.group("host").lower().removeprefix("www.")
        return host.replace(".", " dot ") + m.group("tail")
    word = "".join(ch for ch in word if not _is_picto(ch))
    word = word.replace("**", "").replace("__", "").replace("~~", "").replace("`", "").replace("*", "")
    word = word.lstrip("[").replace("]", "")
    if word.startswith("_") or word.endswith("_"):
        word = word.strip("_")
    return word.replace("_", " ")


class SpokenForm:
    """A streaming rewriter; see the module docstring. ``feed`` returns the text ready to speak, ``flush`` the rest."""

    __slots__ = ("_buf", "_held", "_in_fence", "_item", "_kind", "_last", "_line_start", "_line_words", "_skip_line", "_space")

    def __init__(self) -> None:
        self._buf = ""
        self._held = ""  # a bare number waiting for its unit
        self._in_fence = False
        self._skip_line = False
        self._line_start = True
        self._kind = ""  # "item" / "heading" for the current line
        self._item = 0
        self._line_words = 0
        self._last = ""  # last character emitted
        self._space = False

    def feed(self, text: str) -> str:
        self._buf += text
        tokens = re.findall(r"\s+|\S+", self._buf)
        if tokens and not tokens[-1].isspace():
            self._buf = tokens.pop()
        else:
            self._buf = ""
        return "".join(self._token(t) for t in tokens)

    def flush(self) -> str:
        rest = self._buf
        self._buf = ""
        out = "".join(self._token(t) for t in re.findall(r"\s+|\S+", rest))
        return out + self._end_line()

    # -- tokens ---------------------------------------------------------------------------
    def _token(self, tok: str) -> str:
        if tok.isspace():
            if "\n" in tok:
                return self._end_line()
            self._space = True
            return ""
        return self._word(tok)

    def _end_line(self) -> str:
        out = self._release_held()
        if self._line_words and self._last not in _TERMINAL and not self._in_fence:
            out += self._emit(".", glue=True)
        if self._kind != "item" and self._line_words:
            self._item = 0
        self._line_start, self._skip_line, self._kind, self._line_words = True, False, "", 0
        self._space = bool(self._last)
        return out

    def _word(self, tok: str) -> str:
        if self._skip_line:
            return ""
        if self._line_start:
            self._line_start = False
            if tok.startswith("```"):
                self._in_fence = not self._in_fence
                self._skip_line = True
                return ""
            if self._in_fence:
                self._skip_line = True
                return ""
            if _HEADING.match(tok) or tok == ">":
                self._kind = "heading" if tok != ">" else ""
                return ""
            if _LIST_MARK.match(tok):
                self._kind = "item"
                self._item += 1
                return self._emit(ordinal_word(self._item) + ",")
        if self._in_fence:
            return ""
        if tok in _ALONE:
            return self._release_held() + self._emit(_ALONE[tok])
        if tok in ("-", "–") and self._held:  # "3 - 5": a range
            return self._release_held() + self._emit("to")
        if tok in _DROP_ALONE:
            return ""
        out = ""
        if self._held:
            held, self._held = self._held, ""
            unit, tail = _split_tail(tok)
            said = _say_quantity(held.lstrip("~"), unit)
            if said is not None:
                return self._emit(("about " if held.startswith("~") else "") + said + tail)
            out = self._emit(held)
            self._space = True
        word = _clean(tok)
        if not word:
            return out
        if _BARE_NUMBER.match(word):
            self._held = word
            return out
        return out + self._emit(_quantity_in(word), glue=not any(ch.isalnum() for ch in word))

    def _release_held(self) -> str:
        if not self._held:
            return ""
        held, self._held = self._held, ""
        out = self._emit(held)
        self._space = True  # a held number always had whitespace after it
        return out

    def _emit(self, word: str, *, glue: bool = False) -> str:
        if not word:
            return ""
        sep = " " if self._space and self._last and not glue else ""
        self._space = False
        self._last = word[-1]
        self._line_words += 1
        return sep + word


def _split_tail(tok: str) -> tuple[str, str]:
    m = _TAIL.search(tok)
    return (tok[: m.start()], m.group()) if m else (tok, "")


def _quantity_in(word: str) -> str:
    """A token with its number, currency or unit in words ("$5," → "five dollars,"), else as it is."""
    m = _TOKEN.match(word.lstrip("~"))
    if not m:
        return word
    cur, num, unit, tail = m.group("cur"), m.group("num"), m.group("unit"), m.group("tail")
    about = "about " if word.startswith("~") else ""
    if cur:
        if unit:
            return word
        said = _amount(cur, num)
    elif unit:
        said = _say_quantity(num, unit)
    else:
        return word
    return word if said is None else about + said + tail


def spoken(text: str) -> str:
    """The whole of ``text`` in spoken form (what streaming it through :class:`SpokenForm` gives)."""
    form = SpokenForm()
    return form.feed(text) + form.flush()
