"""genx.toolbox.places: the city → zone tables and name lookup."""

from __future__ import annotations

import csv
import importlib.util
import zoneinfo
from pathlib import Path

import pytest

from genx.errors import ToolFailure
from genx.toolbox.places import resolve_place

DATA = Path(__file__).resolve().parents[2] / "genx" / "toolbox" / "data"


def _rows(name: str) -> list[dict[str, str]]:
    lines = [line for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    return list(csv.DictReader(lines))


def test_tzdata_is_installed_so_zones_work_without_the_system_database() -> None:
    assert importlib.util.find_spec("tzdata") is not None
    # zoneinfo reads tzdata's copy when it is told not to use the system paths
    zoneinfo.reset_tzpath(to=[])
    try:
        zoneinfo.ZoneInfo.clear_cache()
        assert zoneinfo.ZoneInfo("Asia/Tokyo").key == "Asia/Tokyo"
    finally:
        zoneinfo.reset_tzpath()
        zoneinfo.ZoneInfo.clear_cache()


def test_the_table_covers_far_more_than_the_300_largest_cities_and_every_zone_in_it_exists() -> None:
    rows = _rows("places.csv") + _rows("aliases.csv")
    cities = [r for r in rows if r["kind"] == "city"]
    assert len(cities) >= 300
    available = zoneinfo.available_timezones()
    for r in rows:
        for zone in r["zone"].split():
            assert zone == "*" or zone in available, r


@pytest.mark.parametrize(
    ("name", "zone"),
    [
        # the largest cities of the world (UN World Urbanization Prospects) and their official zones
        ("Tokyo", "Asia/Tokyo"),
        ("Delhi", "Asia/Kolkata"),
        ("Shanghai", "Asia/Shanghai"),
        ("São Paulo", "America/Sao_Paulo"),
        ("Sao Paulo", "America/Sao_Paulo"),
        ("Mexico City", "America/Mexico_City"),
        ("Cairo", "Africa/Cairo"),
        ("Mumbai", "Asia/Kolkata"),
        ("Dhaka", "Asia/Dhaka"),
        ("Osaka", "Asia/Tokyo"),
        ("Karachi", "Asia/Karachi"),
        ("Istanbul", "Europe/Istanbul"),
        ("Buenos Aires", "America/Argentina/Buenos_Aires"),
        ("Kolkata", "Asia/Kolkata"),
        ("Lagos", "Africa/Lagos"),
        ("Kinshasa", "Africa/Kinshasa"),
        ("Manila", "Asia/Manila"),
        ("Rio de Janeiro", "America/Sao_Paulo"),
        ("Moscow", "Europe/Moscow"),
        ("Los Angeles", "America/Los_Angeles"),
        ("Paris", "Europe/Paris"),
        ("London", "Europe/London"),
        ("Jakarta", "Asia/Jakarta"),
        ("Seoul", "Asia/Seoul"),
        ("Bangkok", "Asia/Bangkok"),
        ("Lima", "America/Lima"),
        ("Tehran", "Asia/Tehran"),
        ("Sydney", "Australia/Sydney"),
        ("Nairobi", "Africa/Nairobi"),
        ("Kathmandu", "Asia/Kathmandu"),
        ("Berlin", "Europe/Berlin"),
        ("Chicago", "America/Chicago"),
        ("Toronto", "America/Toronto"),
    ],
)
def test_large_cities_resolve_to_their_zone(name: str, zone: str) -> None:
    assert resolve_place(name).zone_name == zone


@pytest.mark.parametrize(
    ("name", "zone"),
    [
        ("NYC", "America/New_York"),
        ("new york", "America/New_York"),
        ("Bombay", "Asia/Kolkata"),
        ("Peking", "Asia/Shanghai"),
        ("Saigon", "Asia/Ho_Chi_Minh"),
        ("Kiev", "Europe/Kyiv"),
        ("st petersburg", "Europe/Moscow"),
        ("Zurich", "Europe/Zurich"),  # the table spells it Zürich
        ("the hague", "Europe/Amsterdam"),
        ("TOKYO", "Asia/Tokyo"),
        ("Tokyo right now", "Asia/Tokyo"),
        ("London time", "Europe/London"),
        ("Japan", "Asia/Tokyo"),  # a country with one zone (not the legacy zone named "Japan")
        ("China", "Asia/Shanghai"),
        ("India", "Asia/Kolkata"),
        ("UK", "Europe/London"),
        ("England", "Europe/London"),
        ("California", "America/Los_Angeles"),
        ("Texas", "America/Chicago"),
        ("PST", "America/Los_Angeles"),
        ("eastern time", "America/New_York"),
        ("Europe/Paris", "Europe/Paris"),
        ("europe/paris", "Europe/Paris"),
        ("UTC", "UTC"),
    ],
)
def test_aliases_countries_states_and_zone_names_resolve(name: str, zone: str) -> None:
    assert resolve_place(name).zone_name == zone


@pytest.mark.parametrize(
    ("name", "zone"),
    [("the East Coast", "America/New_York"), ("west coast", "America/Los_Angeles"), ("the Bay Area", "America/Los_Angeles")],
)
def test_the_us_coasts_and_regions_people_name_resolve_to_their_main_zone(name: str, zone: str) -> None:
    assert resolve_place(name).zone_name == zone


def test_a_state_named_like_a_city_narrows_a_town_as_the_state() -> None:
    assert resolve_place("Seattle, Washington").zone_name == "America/Los_Angeles"  # not Washington DC's zone
    assert resolve_place("Spokane Washington").zone_name == "America/Los_Angeles"
    assert resolve_place("Buffalo, New York").zone_name == "America/New_York"


def test_a_country_narrows_a_city_name_several_countries_share() -> None:
    assert resolve_place("Hyderabad").zone_name == "Asia/Kolkata"  # the larger one
    assert resolve_place("Hyderabad, Pakistan").zone_name == "Asia/Karachi"
    assert resolve_place("hyderabad in pakistan").zone_name == "Asia/Karachi"
    assert resolve_place("Valencia, Venezuela").zone_name == "America/Caracas"
    assert resolve_place("Valencia, Spain").zone_name == "Europe/Madrid"


def test_a_small_town_in_a_known_state_or_single_zone_country_gets_that_zone() -> None:
    p = resolve_place("Springfield, Illinois")
    assert (p.zone_name, p.name) == ("America/Chicago", "Springfield, Illinois")
    assert resolve_place("Paris, Texas").zone_name == "America/Chicago"
    assert resolve_place("Neustadt, Germany").zone_name == "Europe/Berlin"


@pytest.mark.parametrize(
    "text", ["we're flying to Lisbon", "my aunt in Ontario", "I am in Texas", "my brother in Texas", "we are staying in Portugal"]
)
def test_a_clause_around_a_region_is_no_small_town_and_is_never_named_back_as_one(text: str) -> None:
    with pytest.raises(ToolFailure, match="I don't know the time zone"):
        resolve_place(text)


def test_a_small_towns_name_may_hold_the_little_words_town_names_have() -> None:
    assert resolve_place("Stratford upon Avon, England").zone_name == "Europe/London"
    assert resolve_place("Sint-Niklaas, Belgium").zone_name == "Europe/Brussels"
    assert resolve_place("Saint Louis Missouri").zone_name == "America/Chicago"


def test_utc_offsets_become_fixed_zones() -> None:
    from datetime import datetime, timedelta

    p = resolve_place("UTC+5:30")
    assert p.zone.utcoffset(datetime(2026, 1, 1)) == timedelta(hours=5, minutes=30)
    assert resolve_place("GMT-3").zone.utcoffset(datetime(2026, 1, 1)) == timedelta(hours=-3)
    with pytest.raises(ToolFailure, match="UTC-12 to UTC"):
        resolve_place("UTC+15")


@pytest.mark.parametrize(
    ("name", "hours"),
    [("UTC plus three", 3), ("GMT minus five", -5), ("utc plus five and a half", 5.5), ("GMT minus 3 30", -3.5)],
)
def test_utc_offsets_said_in_words_become_fixed_zones(name: str, hours: float) -> None:
    from datetime import datetime, timedelta

    assert resolve_place(name).zone.utcoffset(datetime(2026, 1, 1)) == timedelta(hours=hours)


def test_an_unknown_place_is_a_failure_naming_it() -> None:
    with pytest.raises(ToolFailure, match="I don't know the time zone of Atlantis"):
        resolve_place("Atlantis")


@pytest.mark.parametrize(("name", "example"), [("USA", "New York"), ("the United States", "Los Angeles"), ("Russia", "Moscow")])
def test_a_country_with_several_zones_asks_for_a_city(name: str, example: str) -> None:
    with pytest.raises(ToolFailure, match="several time zones") as e:
        resolve_place(name)
    assert example in str(e.value)


def test_an_empty_place_asks_which() -> None:
    with pytest.raises(ToolFailure, match="Which place"):
        resolve_place("  ")
