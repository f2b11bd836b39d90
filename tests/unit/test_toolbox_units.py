"""genx.toolbox.units: convert_units with pint."""

from __future__ import annotations

import pytest

from genx.toolbox.units import meant_units, money_pair, unit_name, units_tool

convert = units_tool()


@pytest.mark.parametrize(
    ("value", "src", "dst", "answer"),
    [
        (20, "km", "miles", "20 kilometers is 12.43 miles."),  # 20 / 1.609344
        (20, "kilometres", "mi", "20 kilometers is 12.43 miles."),
        (100, "degrees Fahrenheit", "celsius", "100 °F is 37.78 °C."),  # (100 - 32) * 5/9
        (0, "C", "F", "0 °C is 32 °F."),
        (-40, "celsius", "fahrenheit", "-40 °C is -40 °F."),
        (300, "kelvin", "degrees celsius", "300 K is 26.85 °C."),
        (5, "feet", "cm", "5 feet is 152.4 centimeters."),
        (10, "stone", "kg", "10 stone is 63.5 kilograms."),
        (1, "pound", "grams", "1 pound is 453.59 grams."),
        (2, "litres", "US gallons", "2 liters is 0.5283 gallons."),
        (60, "mph", "kph", "60 miles per hour is 96.56 kilometers per hour."),
        (1, "kilometres per hour", "metres per second", "1 kilometer per hour is 0.2778 meters per second."),
        (90, "minutes", "hours", "90 minutes is 1.5 hours."),
        (1, "week", "seconds", "1 week is 604,800 seconds."),
        (2, "gb", "mb", "2 gigabytes is 2,000 megabytes."),
        (1, "GiB", "MB", "1 gibibyte is 1,073.74 megabytes."),
        (1, "square mile", "square kilometers", "1 square mile is 2.59 square kilometers."),
        ("twenty", "km", "miles", "20 kilometers is 12.43 miles."),
    ],
)
async def test_conversions_across_kinds_of_quantity(value: float | str, src: str, dst: str, answer: str) -> None:
    r = await convert.call({"value": value, "from_unit": src, "to_unit": dst})
    assert not r.is_error, r.content
    assert r.content == answer


async def test_a_nonsense_unit_is_an_error_result_naming_it() -> None:
    r = await convert.call({"value": 3, "from_unit": "banana", "to_unit": "km"})
    assert r.is_error
    assert "I don't know the unit 'banana'" in r.content


@pytest.mark.parametrize(("src", "dst"), [("km", "kg"), ("GB", "km"), ("byte", "percent"), ("celsius", "meters")])
async def test_units_of_different_kinds_cannot_be_converted(src: str, dst: str) -> None:
    r = await convert.call({"value": 1, "from_unit": src, "to_unit": dst})
    assert r.is_error
    assert "different things" in r.content


async def test_a_value_that_is_not_a_number_is_an_error_result() -> None:
    r = await convert.call({"value": "lots", "from_unit": "km", "to_unit": "m"})
    assert r.is_error and "'lots' is not a number" in r.content


def test_spoken_unit_names_map_to_pint_names() -> None:
    assert unit_name("degrees Celsius") == "degC"
    assert unit_name("square feet") == "(foot)**2"
    assert unit_name("MB") == "megabyte"
    assert unit_name("kilometres per hour") == "(kilometer)/(hour)"


async def test_money_between_currencies_is_an_honest_error_not_a_made_up_rate() -> None:
    r = await units_tool().call({"value": 50, "from_unit": "euros", "to_unit": "US dollars"})
    assert r.is_error
    assert r.content == "I can't convert euros to US dollars offline: exchange rates change every day and I have no live rates."
    assert not (await units_tool().call({"value": 5, "from_unit": "pounds", "to_unit": "kg"})).is_error  # pounds alone: a mass


def test_a_money_pair_needs_two_currencies() -> None:
    assert money_pair("euros", "dollars") and money_pair("pounds", "yen") and money_pair("$", "£")
    assert not money_pair("pounds", "kilograms") and not money_pair("dollars", "me") and not money_pair("pounds", "pounds")


@pytest.mark.parametrize(
    ("value", "src", "dst", "answer"),
    [
        (1, "cup", "ounces", "1 cup is 8 fluid ounces."),  # ounces of a volume
        (4, "ounces", "ml", "4 fluid ounces is 118.29 milliliters."),
        (4, "ounces", "grams", "4 ounces is 113.4 grams."),  # next to a mass: still a mass
        (15, "degrees", "fahrenheit", "15 °C is 59 °F."),  # bare degrees next to a temperature: the other scale
        (212, "degrees", "celsius", "212 °F is 100 °C."),
        (20, "degrees", "kelvin", "20 °C is 293.15 K."),
        (90, "degrees", "radians", "90 degrees is 1.57 radians."),  # an angle next to an angle
    ],
)
async def test_ounces_and_bare_degrees_mean_what_the_other_unit_needs(value: float, src: str, dst: str, answer: str) -> None:
    r = await convert.call({"value": value, "from_unit": src, "to_unit": dst})
    assert not r.is_error, r.content
    assert r.content == answer


def test_the_meant_units_name_the_reading_and_leave_the_rest_as_said() -> None:
    assert meant_units("degrees", "fahrenheit") == ("degrees Celsius", "fahrenheit")
    assert meant_units("cup", "oz") == ("cup", "fluid ounces")
    assert meant_units("km", "miles") == ("km", "miles")
    assert meant_units("banana", "km") == ("banana", "km")
