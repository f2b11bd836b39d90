"""The ``convert_units`` tool: "20 km to miles" → "20 km is 12.43 miles", with pint.

pint (one registry, built on first use in the tool's worker thread: ~0.3 s)
knows length, mass, temperature, volume, speed, time, data sizes and much more.
Temperatures are offset units: a quantity is created directly in its unit
(``Quantity(20, degC)``), which pint converts correctly to °F or K. Before pint
sees a unit, :func:`unit_name` maps the names people say ("degrees Celsius",
"kph", "kilometres per hour", "square feet", "gb") to pint's. An unknown unit or
a conversion between different kinds of quantity raises
:class:`~genx.errors.ToolFailure` naming the unit (after reading the two units
that mean another next to the other side: ounces of a volume are fluid ounces,
bare "degrees" next to a temperature the other common scale); money between currencies
:class:`CurrencyConversion` (no live exchange rates offline: the tool says so
rather than a small model inventing a rate).
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

from genx.errors import ToolFailure
from genx.toolbox.numwords import parse_number
from genx.tools import FuncTool

__all__ = ["CurrencyConversion", "convert", "format_amount", "meant_units", "money_pair", "unit_name", "units_tool"]


class CurrencyConversion(ToolFailure):
    """Money between currencies: rates change every day and nothing offline knows them."""


_CURRENCY = re.compile(
    r"(?:us |american |canadian |australian |hong kong |new zealand |singapore )?"
    r"(?:euros?|dollars?|bucks|usd|eur|gbp|jpy|cny|inr|cad|aud|chf|yen|yuan|renminbi|rupees?|pesos?|francs?|rubles?|roubles?|"
    r"won|lira|liras|reais|real|rand|krona|kronor|krone|zloty|dirhams?|riyals?|bitcoins?|btc|pounds? sterling|sterling|quid|"
    r"\$|€|£|¥)",
    re.IGNORECASE,
)


def _money(unit: str) -> bool:
    return _CURRENCY.fullmatch(unit.strip()) is not None


def money_pair(from_unit: str, to_unit: str) -> bool:
    """Both are currencies ("pounds" counts next to one): a request for an exchange rate."""
    pounds = re.compile(r"(?:british )?pounds?", re.IGNORECASE)
    sides = [_money(u) or pounds.fullmatch(u.strip()) is not None for u in (from_unit, to_unit)]
    return all(sides) and (_money(from_unit) or _money(to_unit))


# Spoken or ambiguous names → pint names. Keys are lower case; symbols whose case matters (MB vs mb) are here too.
_ALIASES = {
    "c": "degC", "°c": "degC", "celsius": "degC", "centigrade": "degC", "degrees celsius": "degC", "degree celsius": "degC",
    "degrees c": "degC", "f": "degF", "°f": "degF", "fahrenheit": "degF", "degrees fahrenheit": "degF",
    "degree fahrenheit": "degF", "degrees f": "degF", "k": "kelvin", "kelvins": "kelvin", "degrees kelvin": "kelvin",
    "kph": "km/h", "kmh": "km/h", "km/hr": "km/h", "kmph": "km/h", "mph": "mile/hour", "mi/h": "mile/hour",
    "knots": "knot", "kn": "knot", "kt": "knot", "m/s": "m/s", "mps": "m/s", "fps": "ft/s",
    "b": "byte", "kb": "kilobyte", "mb": "megabyte", "gb": "gigabyte", "tb": "terabyte", "pb": "petabyte",
    "kib": "kibibyte", "mib": "mebibyte", "gib": "gibibyte", "tib": "tebibyte", "bytes": "byte", "bits": "bit",
    "kbps": "kilobit/second", "mbps": "megabit/second", "gbps": "gigabit/second",
    "lbs": "pound", "lb": "pound", "pounds": "pound", "oz": "ounce", "ounces": "ounce", "st": "stone", "stones": "stone",
    "tons": "short_ton", "ton": "short_ton", "tonnes": "tonne", "metric tons": "tonne", "metric ton": "tonne",
    "fl oz": "fluid_ounce", "fluid ounces": "fluid_ounce", "fluid ounce": "fluid_ounce",
    "us gallons": "gallon", "us gallon": "gallon", "gallons": "gallon", "us pints": "pint", "us cups": "cup",
    "imperial gallons": "imperial_gallon", "imperial gallon": "imperial_gallon", "uk gallons": "imperial_gallon",
    "imperial pints": "imperial_pint", "imperial pint": "imperial_pint", "uk pints": "imperial_pint",
    "litres": "liter", "litre": "liter", "l": "liter", "ml": "milliliter", "millilitres": "milliliter", "cl": "centiliter",
    "cc": "cubic_centimeter", "tbsp": "tablespoon", "tsp": "teaspoon", "cups": "cup",
    "metres": "meter", "metre": "meter", "kilometres": "kilometer", "kilometre": "kilometer", "centimetres": "centimeter",
    "centimetre": "centimeter", "millimetres": "millimeter", "millimetre": "millimeter", "feet": "foot", "ft": "foot",
    "inches": "inch", "in": "inch", '"': "inch", "'": "foot", "yds": "yard", "yd": "yard", "nautical miles": "nautical_mile",
    "nautical mile": "nautical_mile", "nmi": "nautical_mile", "light years": "light_year", "light year": "light_year",
    "hrs": "hour", "hr": "hour", "mins": "minute", "min": "minute", "secs": "second", "sec": "second", "s": "second",
    "ms": "millisecond", "wk": "week", "wks": "week", "yrs": "year", "yr": "year",
    "kcal": "kilocalorie", "calories": "kilocalorie", "cal": "calorie", "kwh": "kilowatt_hour", "hp": "horsepower",
    "psi": "psi", "atm": "atmosphere", "mbar": "millibar", "hpa": "hectopascal",
    "acres": "acre", "hectares": "hectare", "ha": "hectare",
    "kilo": "kilogram", "kilos": "kilogram", "kgs": "kilogram", "kms": "kilometer", "cms": "centimeter", "mms": "millimeter",
    "grams": "gram", "gs": "gram", "degrees centigrade": "degC",
}  # fmt: skip
_RATE = re.compile(r"^(.+?)\s+an?\s+(hour|minute|second|day)$")  # "kilometers an hour" = kilometers per hour
_PREFIX = re.compile(r"^(square|sq|cubic|cu)\s+(.+)$")
_SUFFIX = re.compile(r"^(.+?)\s+(squared|cubed)$")
_INFO = ("bit", "byte")

_lock = threading.Lock()


@functools.cache
def _registry() -> Any:
    import pint

    return pint.UnitRegistry(autoconvert_offset_to_baseunit=True)


def unit_name(text: str) -> str:
    """A spoken unit → an expression pint parses ("square feet" → "foot**2", "kilometres per hour" → "kilometer/hour")."""
    t = re.sub(r"\s+", " ", text.strip().lower().rstrip(".?!"))
    t = re.sub(r"^(?:a|an|one|the)\s+", "", t)
    if t in _ALIASES:
        return _ALIASES[t]
    if text.strip() in ("MB", "GB", "TB", "kB", "KB", "PB"):
        return _ALIASES[text.strip().lower()]
    if m := _RATE.match(t):
        t = f"{m[1]} per {m[2]}"
    if " per " in t:
        num, den = t.split(" per ", 1)
        return f"({unit_name(num)})/({unit_name(den)})"
    if m := _PREFIX.match(t):
        return f"({unit_name(m[2])})**{2 if m[1] in ('square', 'sq') else 3}"
    if m := _SUFFIX.match(t):
        return f"({unit_name(m[1])})**{2 if m[2] == 'squared' else 3}"
    if re.fullmatch(r"[a-z ]+", t):
        return t.replace(" ", "_")
    return text.strip()


def _unit(ureg: Any, text: str) -> Any:
    import pint

    name = unit_name(text)
    try:
        unit = ureg.parse_units(name)
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, TypeError, ValueError, SyntaxError):
        raise ToolFailure(
            f"I don't know the unit {text.strip()!r}; use a name like 'kilometers', 'pounds', 'degrees Celsius' or 'GB'."
        ) from None
    except Exception:
        raise ToolFailure(f"I don't know the unit {text.strip()!r}.") from None
    return unit


def _is_information(unit: Any) -> bool:
    return any(part in str(unit) for part in _INFO)


def convert(value: float, from_unit: str, to_unit: str) -> tuple[float, str, str]:
    """``value`` in ``from_unit`` as ``to_unit``: (number, from unit's name, to unit's name)."""
    import pint

    if _money(from_unit) or _money(to_unit):  # "pounds" alone is a mass: money only next to a currency
        raise CurrencyConversion(
            f"I can't convert {from_unit.strip()} to {to_unit.strip()} offline: exchange rates change every day and I have no live rates."
        )
    with _lock:  # the registry's caches are not thread-safe; conversions take microseconds
        ureg = _registry()
        src, dst = _unit(ureg, from_unit), _unit(ureg, to_unit)
        if src.dimensionality != dst.dimensionality:
            src, dst = _unit(ureg, _beside(ureg, from_unit, dst)), _unit(ureg, _beside(ureg, to_unit, src))
        if _is_information(src) != _is_information(dst):
            raise ToolFailure(f"{from_unit.strip()} and {to_unit.strip()} measure different things; I can't convert between them.")
        try:
            result = ureg.Quantity(value, src).to(dst).magnitude
        except pint.errors.DimensionalityError:
            raise ToolFailure(
                f"{from_unit.strip()} ({_kind(src)}) can't be converted to {to_unit.strip()} ({_kind(dst)}): they measure different things."
            ) from None
        return float(result), _plural(src, value), _plural(dst, float(result))


_BARE_DEGREES = re.compile(r"(?:a |one )?(?:degrees?|deg)", re.IGNORECASE)


def _beside(ureg: Any, text: str, other: Any) -> str:
    """The unit ``text`` means next to ``other`` (a pint unit the two did not convert with): ounces of a volume
    are fluid ounces ("how many ounces in a cup"); bare degrees next to a temperature are the other common
    scale ("15 degrees in fahrenheit" is 15 °C, "60 degrees in celsius" 60 °F)."""
    dim = str(other.dimensionality)
    if unit_name(text) == "ounce" and dim == "[length] ** 3":
        return "fluid ounces"
    if _BARE_DEGREES.fullmatch(text.strip()) and dim == "[temperature]":
        return "degrees Fahrenheit" if other == ureg.degC else "degrees Celsius"
    return text


def meant_units(from_unit: str, to_unit: str) -> tuple[str, str]:
    """The two units as :func:`convert` reads them: ("degrees", "fahrenheit") → ("degrees Celsius", "fahrenheit").

    Unknown units are returned as given (:func:`convert` names them)."""
    import pint

    with _lock:
        ureg = _registry()
        try:
            src, dst = _unit(ureg, from_unit), _unit(ureg, to_unit)
        except ToolFailure:
            return from_unit, to_unit
        try:
            if src.dimensionality == dst.dimensionality:
                return from_unit, to_unit
        except pint.errors.PintError:
            return from_unit, to_unit
        return _beside(ureg, from_unit, dst), _beside(ureg, to_unit, src)


def _kind(unit: Any) -> str:
    dim = str(unit.dimensionality).strip("[]")
    return {"length": "a length", "mass": "a mass", "time": "a time", "temperature": "a temperature",
            "length ** 3": "a volume", "length ** 2": "an area", "length / time": "a speed", "dimensionless": "a pure number"}.get(
        dim, dim)  # fmt: skip


def _plural(unit: Any, value: float) -> str:
    """How to say ``value`` of ``unit``: "miles", "miles per hour", "square kilometers", "°C"."""
    return _say(str(unit), plural=abs(value) != 1)


def _say(name: str, *, plural: bool) -> str:
    special = {"degree_Celsius": "°C", "degree_Fahrenheit": "°F", "kelvin": "K"}
    if name in special:
        return special[name]
    if " / " in name:
        num, den = name.split(" / ", 1)
        return f"{_say(num, plural=plural)} per {_say(den, plural=False)}"
    if m := re.fullmatch(r"(\w+) \*\* ([23])", name):
        return f"{'square' if m[2] == '2' else 'cubic'} {_say(m[1], plural=plural)}"
    if not re.fullmatch(r"\w+", name):
        return name.replace("_", " ")
    name = name.replace("_", " ")
    if not plural:
        return name
    irregular = {"foot": "feet", "inch": "inches", "century": "centuries", "hertz": "hertz", "stone": "stone"}
    return irregular.get(name, name if name.endswith("s") else name + "s")


def format_amount(value: float) -> str:
    """Two decimals from 1 up (12.43), four significant digits below (0.0001234), no trailing zeros, thousands separated (1,073.74)."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        text = f"{value:,.2f}"
    elif abs(value) >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.4g}"
        if "e" in text:
            return text
    return text.rstrip("0").rstrip(".") if "." in text else text


def units_tool() -> FuncTool:
    """``convert_units(value, from_unit, to_unit)``."""

    def convert_units(value: float | str, from_unit: str, to_unit: str) -> str:
        """Convert a quantity between units: length, mass, temperature, volume, speed, time, data sizes and more.

        Args:
            value: the number to convert, e.g. 20.
            from_unit: the unit it is in, e.g. "km", "degrees Fahrenheit", "GB".
            to_unit: the unit wanted, e.g. "miles", "celsius", "MB".
        """
        number = value if isinstance(value, float | int) else parse_number(str(value))
        if number is None:
            raise ToolFailure(f"{value!r} is not a number; give the amount as digits, e.g. 20.")
        result, src, dst = convert(float(number), from_unit, to_unit)
        return f"{format_amount(float(number))} {src} is {format_amount(result)} {dst}."

    return FuncTool.from_function(convert_units)
