"""Numbers as spoken words: ``20`` → "twenty", ``1.5`` → "one point five", ``3`` as an ordinal → "third".

The reverse of :mod:`genx.toolbox.numwords` (spoken words → digits), for the
spoken form of an answer (:mod:`genx.assistant.spoken_form`). Integers up to
999 999 999 999; larger ones stay digits (``None``).
"""

from __future__ import annotations

__all__ = ["number_words", "ordinal_word"]

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"), (1_000, "thousand"))
_ORDINALS = "First Second Third Fourth Fifth Sixth Seventh Eighth Ninth Tenth".split()
_LIMIT = 1_000_000_000_000


def _below_thousand(n: int) -> str:
    parts: list[str] = []
    if n >= 100:
        parts.append(f"{_ONES[n // 100]} hundred")
        n %= 100
        if n:
            parts.append("and")
    if n >= 20:
        parts.append(_TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else ""))
    elif n or not parts:
        parts.append(_ONES[n])
    return " ".join(parts)


def _integer_words(n: int) -> str:
    if n < 1000:
        return _below_thousand(n)
    parts: list[str] = []
    for value, name in _SCALES:
        if n >= value:
            parts.append(f"{_below_thousand(n // value)} {name}")
            n %= value
    if n:
        parts.append(("and " if n < 100 else "") + _below_thousand(n))
    return " ".join(parts)


def number_words(digits: str) -> str | None:
    """``"20"`` → "twenty", ``"1,500"`` → "one thousand five hundred", ``"-2.25"`` → "minus two point two five".

    ``None`` when ``digits`` is not a number we say in words."""
    s = digits.replace(",", "").strip()
    sign = ""
    if s.startswith(("-", "−")):
        sign, s = "minus ", s[1:]
    whole, dot, frac = s.partition(".")
    if not whole.isdigit() or (dot and not frac.isdigit()) or not whole.isascii() or (frac and not frac.isascii()):
        return None
    n = int(whole)
    if n >= _LIMIT:
        return None
    out = sign + _integer_words(n)
    if frac:
        out += " point " + " ".join(_ONES[int(d)] for d in frac)
    return out


def ordinal_word(i: int) -> str:
    """1 → "First" … 10 → "Tenth", then "Next" (list items read as sentences)."""
    return _ORDINALS[i - 1] if 1 <= i <= len(_ORDINALS) else "Next"
