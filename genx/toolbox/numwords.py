"""Spoken numbers as digits: "seventeen times twenty-three" → "17 times 23".

Speech recognisers and small models write numbers as words; every tool that
reads a quantity (calculator, durations, dates, conversions) runs its text
through :func:`words_to_numbers` first. English only. Handles units, teens,
tens ("twenty-three", "twenty three"), "hundred"/"thousand"/"million"/"billion"
with an optional "and" ("a hundred and five"), "a"/"an" before a scale word,
decimals ("three point five", "3 point 5"), digits with a scale word ("2 million", "1.5
thousand") and ordinals ("twenty-fifth" → "25th"). Digit runs already in the
text are left as they are. Separate numbers stay separate ("one two" → "1 2").
"""

from __future__ import annotations

import functools
import re

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
_NUMBER_WORDS = {**UNITS, **TENS, "hundred": 100, **SCALES}

_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z]+|\s+|.", re.DOTALL)


def _suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


class _Number:
    """One number being read word by word."""

    __slots__ = ("current", "decimals", "last", "total")

    def __init__(self) -> None:
        self.total = 0.0  # completed thousands/millions
        self.current = 0.0  # below the last scale word
        self.last = ""  # kind of the last word: unit, teen, tens, hundred, scale, digits
        self.decimals = ""  # digits after "point"

    def value(self) -> float:
        v = self.total + self.current
        return v + float("0." + self.decimals) if self.decimals else v

    def accepts(self, word: str) -> bool:
        """Whether ``word`` continues this number (else it starts a new one)."""
        if not self.last:
            return True
        if self.decimals or self.last == "point":
            return word in UNITS and UNITS[word] < 10
        if word in SCALES:
            return self.last != "scale" and self.value() > 0
        if word == "hundred":
            return self.last in ("unit", "teen", "tens", "digits") and self.current < 100 and self.current % 100 != 0
        if word in TENS:
            return self.last in ("hundred", "scale")
        if word in UNITS:
            return self.last in ("tens", "hundred", "scale") and UNITS[word] != 0 and not (self.last == "tens" and UNITS[word] >= 10)
        return False

    def add(self, word: str) -> None:
        if self.last == "point" or self.decimals:
            self.decimals += str(UNITS[word])
            self.last = "decimal"
            return
        if word in SCALES:
            self.total += self.current * SCALES[word]
            self.current = 0
            self.last = "scale"
        elif word == "hundred":
            self.current = (self.current or 1) * 100
            self.last = "hundred"
        elif word in TENS:
            self.current += TENS[word]
            self.last = "tens"
        else:
            self.current += UNITS[word]
            self.last = "teen" if UNITS[word] >= 10 else "unit"


def _format(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


@functools.lru_cache(maxsize=4096)  # pure; the pre-match's matchers each read the same text
def words_to_numbers(text: str) -> str:
    """``text`` with each run of number words replaced by its digits; everything else unchanged."""
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    num: _Number | None = None
    pending: list[str] = []  # separators / connectors held while a number may continue

    def flush() -> None:
        nonlocal num
        if num is not None:
            out.append(_format(num.value()))
            num = None
        out.extend(pending)
        pending.clear()

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        low = tok.lower()
        nxt = _next_word(tokens, i)
        if low in _NUMBER_WORDS and not (low in SCALES and num is None) and not (low == "hundred" and num is None):
            if num is not None and not num.accepts(low):
                flush()
            if num is None:
                out.extend(pending)
                pending.clear()
                num = _Number()
            pending.clear()
            num.add(low)
        elif low in ("a", "an") and nxt in ("hundred", *SCALES) and num is None:
            out.extend(pending)
            pending.clear()
            num = _Number()
            num.current, num.last = 1, "unit"
        elif re.fullmatch(r"\d+(?:\.\d+)?", tok) and num is None and (nxt in SCALES or (nxt == "hundred" and "." not in tok)):
            out.extend(pending)
            pending.clear()
            num = _Number()
            num.current, num.last = float(tok), "digits"
        elif low in ("and",) and num is not None and num.last in ("hundred", "scale") and (nxt in UNITS or nxt in TENS):
            pending.append(tok)
        elif low == "point" and num is not None and num.last in ("unit", "teen", "tens", "hundred", "scale") and nxt in UNITS:
            pending.clear()
            num.last = "point"
        elif (tok.isspace() or tok == "-") and num is not None:
            pending.append(tok)
        elif low in ORDINALS and (low != "second" or (num is not None and num.last in ("tens", "hundred", "scale"))):
            base = ORDINALS[low]
            if num is not None and (num.last in ("hundred", "scale") or (num.last == "tens" and base < 10)):
                value = int(num.value()) + base
                pending.clear()
                num = None
            else:
                flush()
                value = base
            out.append(f"{value}{_suffix(value)}")
        else:
            flush()
            out.append(tok)
        i += 1
    flush()
    return _DIGITS_POINT.sub(r"\1.\2", "".join(out))


_DIGITS_POINT = re.compile(r"(?<![\d.])(\d+) point (\d+)(?![\d.])")  # "3 point 5", "3 point five" once read: 3.5


def _next_word(tokens: list[str], i: int) -> str:
    for tok in tokens[i + 1 :]:
        if tok.isspace() or tok == "-":
            continue
        return tok.lower()
    return ""


def parse_number(text: str) -> float | None:
    """``text`` as one number ("twenty-five", "3.5", "a hundred"), else ``None``."""
    converted = words_to_numbers(text.strip()).replace(",", "")
    try:
        return float(converted)
    except ValueError:
        return None


__all__ = ["parse_number", "words_to_numbers"]
