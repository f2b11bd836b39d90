"""Place names → time zones: "Tokyo", "São Paulo, Brazil", "Texas", "PST", "UTC+5:30", "Europe/Paris".

Two tables ship in ``genx/toolbox/data`` (package data, also in the bundle):

* ``places.csv``, derived from GeoNames (CC BY 4.0) by ``genx/toolbox/make_places_csv.py``:
  the 2000 most populous cities plus every capital, largest first, and each
  country's zone (or, for a country spanning several clocks, its main zones).
* ``aliases.csv``, hand-written: nicknames and old names (NYC, Bombay), US
  states, Canadian provinces, Australian states, spoken zone names (EST, "Pacific time").

:func:`resolve_place` looks a name up (case, accents and punctuation ignored;
"City, Country" and "City in Country" narrow a name many countries share, else
the largest city wins), and accepts IANA names in any case and UTC offsets, in words too ("UTC plus two").
Unknown places and countries with several zones raise
:class:`~genx.errors.ToolFailure` with a sentence a user can act on.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import unicodedata
import zoneinfo
from dataclasses import dataclass
from datetime import timedelta, timezone, tzinfo

from genx.errors import ToolFailure
from genx.resources import find_in_package
from genx.toolbox.numwords import words_to_numbers

__all__ = ["Place", "resolve_place", "zone_label"]


@dataclass(frozen=True, slots=True)
class Place:
    """A resolved place: its display name, zone and ISO country code ("" when none)."""

    name: str
    zone: tzinfo
    zone_name: str
    country: str = ""


@dataclass(frozen=True, slots=True)
class _Row:
    kind: str  # city, country, multi, alias, region, zone
    name: str
    country: str
    zone: str  # an IANA name; for "multi", several space-separated; "*" = the country's entry


@dataclass(slots=True)
class _Tables:
    by_key: dict[str, _Row]  # first (largest / hand-written) row per normalised name
    cities: dict[str, list[_Row]]  # every city row per normalised name, largest first
    countries: dict[str, _Row]  # ISO code → country or multi row
    country_keys: dict[str, str]  # normalised country name / alias / ISO code → ISO code
    zones: dict[str, str]  # lower-case IANA name → IANA name


def normalise(name: str) -> str:
    """Lower case, no accents, no punctuation, single spaces, "st"/"ste" → "saint", no leading "the"."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = text.replace("&", " and ").replace("'", "").replace("’", "")
    text = re.sub(r"[^a-z0-9]+", " ", text).strip()
    text = re.sub(r"^(?:st|ste)\s", "saint ", text)
    text = re.sub(r"^the\s", "", text)
    return text


def _read(name: str) -> list[_Row]:
    path = find_in_package("genx.toolbox", f"data/{name}")
    if path is None:
        raise ToolFailure(f"the place table {name} is missing from this installation; reinstall Parley")
    text = path.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    return [_Row(r["kind"], r["name"], r["country"], r["zone"]) for r in csv.DictReader(io.StringIO("\n".join(lines)))]


@functools.cache
def _tables() -> _Tables:
    t = _Tables({}, {}, {}, {}, {z.lower(): z for z in zoneinfo.available_timezones()})
    generated = _read("places.csv")
    hand = _read("aliases.csv")
    for row in generated:
        if row.kind in ("country", "multi"):
            t.countries[row.country] = row
            t.country_keys.setdefault(normalise(row.name), row.country)
            t.country_keys.setdefault(row.country.lower(), row.country)
    for row in hand:
        if row.kind == "alias" and (row.zone == "*" or row.country in t.countries) and row.country:
            if row.zone == "*" or t.countries.get(row.country, row).zone == row.zone:
                t.country_keys.setdefault(normalise(row.name), row.country)
    for row in hand:  # hand-written names win over a generated city of the same name
        t.by_key.setdefault(normalise(row.name), t.countries[row.country] if row.zone == "*" else row)
    for row in generated:
        key = normalise(row.name)
        t.by_key.setdefault(key, row)
        if row.kind == "city":
            t.cities.setdefault(key, []).append(row)
    return t


_OFFSET = re.compile(r"^(?:utc|gmt|z)?\s*([+-])\s*(\d{1,2})(?:[:.h]?(\d{2}))?$")
_NOISE = re.compile(r"\b(?:right now|now|currently|local time|time zone|timezone|time|the city of|city of|downtown)\b")


_SPOKEN_OFFSET = re.compile(r"^(utc|gmt)\s+(plus|minus)\s+(.+)$")


def _spoken_offset(text: str) -> str:
    """ "utc plus two" → "utc+2", "gmt minus five thirty" → "gmt-5:30", "utc plus five and a half" → "utc+5:30"; else ``text``."""
    m = _SPOKEN_OFFSET.match(text)
    if m is None:
        return text
    amount = words_to_numbers(m[3]).replace(" and a half", ":30").replace(" and a quarter", ":15")
    amount = re.sub(r"^(\d{1,2})(?: hours?)?(?: (\d{2}))?$", lambda h: h[1] + (f":{h[2]}" if h[2] else ""), amount)
    return f"{m[1]}{'+' if m[2] == 'plus' else '-'}{amount}"


def resolve_place(text: str) -> Place:
    """The zone of ``text``; raises :class:`ToolFailure` naming it when it is unknown or spans several zones."""
    raw = text.strip().strip(".?!")
    if not raw:
        raise ToolFailure("Which place? Name a city, a country or a time zone.")
    t = _tables()
    iana = t.zones.get(raw.lower().replace(" ", "_"))
    if iana is not None and "/" in iana:
        return Place(iana, zoneinfo.ZoneInfo(iana), iana)
    key = normalise(raw)
    m = _OFFSET.match(re.sub(r"\s+", "", _spoken_offset(raw.lower())))
    if m:
        return _offset_place(raw, m)
    for candidate in _candidates(key):
        found = _lookup(t, candidate, raw)
        if found is not None:
            return found
    if iana is not None:  # legacy zone names without a slash: "Japan", "Navajo", "EST5EDT"
        return Place(iana, zoneinfo.ZoneInfo(iana), iana)
    raise ToolFailure(f"I don't know the time zone of {raw}. Name a large city, a country or a zone like Europe/Paris.")


def _candidates(key: str) -> list[str]:
    """The name as given, then without filler words ("tokyo time", "new york right now"), then without "city"."""
    out = [key]
    stripped = re.sub(r"\s+", " ", _NOISE.sub(" ", key)).strip()
    if stripped and stripped != key:
        out.append(stripped)
    out.extend(k.removesuffix(" city") for k in list(out) if k.endswith(" city"))
    return out


def _lookup(t: _Tables, key: str, raw: str) -> Place | None:
    row = t.by_key.get(key)
    if row is not None:
        return _place(t, row)
    # "paris france", "hyderabad in pakistan", "springfield illinois": a city narrowed by its country or state
    words = key.split(" ")
    for i in range(len(words) - 1, 0, -1):
        city, area = re.sub(r"\s+in$", "", " ".join(words[:i])), " ".join(words[i:])
        area_row = t.by_key.get(area)
        if area_row is None or area_row.kind == "city":  # "seattle washington": the state, not the city of that name
            area_row = t.by_key.get(f"{area} state") or area_row
        code = t.country_keys.get(area) or (area_row.country if area_row is not None and area_row.kind != "city" else None)
        if code is None:
            continue
        hand = t.by_key.get(city)
        for r in [*t.cities.get(city, []), *([hand] if hand is not None else [])]:
            if r.country == code:
                return _place(t, r)
        if area_row is not None and area_row.kind in ("region", "country", "alias") and area_row.zone != "*" and _town_name(city):
            return Place(raw, zoneinfo.ZoneInfo(area_row.zone), area_row.zone, area_row.country)  # a smaller town
    return None


# words no town's name is made of ("of", "on", "the" are: "Port of Spain", "Southend on Sea"): what is left before
# an area when the words around a place came with it ("we're flying to lisbon", "my aunt in ontario"), a text that
# must not be named back as a town
_NOT_A_TOWN = frozenset(
    "i i'm im me my we we're were us our you you're your he she they they're it it's its is are am was be been going "
    "flying driving travelling traveling moving living staying visiting heading to from at for but so then now time "
    "what when where who how aunt uncle mum mom dad brother sister friend friends family".split()
)


def _town_name(words: str) -> bool:
    """Could ``words`` (normalised) be a town's name: at most four words, none of :data:`_NOT_A_TOWN`."""
    ws = words.split()
    return 0 < len(ws) <= 4 and not any(w in _NOT_A_TOWN for w in ws)


def _place(t: _Tables, row: _Row) -> Place:
    if row.kind == "multi":
        examples = [z.rsplit("/", 1)[-1].replace("_", " ") for z in row.zone.split()]
        listed = ", ".join(examples[:-1]) + f" or {examples[-1]}" if len(examples) > 1 else examples[0]
        raise ToolFailure(f"{row.name} has several time zones; name a city there, for example {listed}.")
    return Place(row.name, zoneinfo.ZoneInfo(row.zone), row.zone, row.country)


def _offset_place(raw: str, m: re.Match[str]) -> Place:
    sign = -1 if m.group(1) == "-" else 1
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes >= 60:
        raise ToolFailure(f"{raw} is not a UTC offset; offsets run from UTC-12 to UTC+14.")
    delta = sign * timedelta(hours=hours, minutes=minutes)
    return Place(f"UTC{zone_offset(delta)}", timezone(delta), f"UTC{zone_offset(delta)}")


def zone_offset(delta: timedelta | None) -> str:
    """``+09:00``, ``-03:30``, ``+00:00``."""
    total = int((delta or timedelta()).total_seconds() // 60)
    sign = "-" if total < 0 else "+"
    return f"{sign}{abs(total) // 60:02d}:{abs(total) % 60:02d}"


def zone_label(place: Place, delta: timedelta | None) -> str:
    """``Asia/Tokyo, UTC+09:00`` (just ``UTC+05:30`` for an offset)."""
    off = f"UTC{zone_offset(delta)}"
    return off if place.zone_name == off else f"{place.zone_name}, {off}"
