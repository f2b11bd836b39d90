"""The pre-match on phrasing families for the clock, the calendar and numbers: statement order, fronted dates, mixed units.

Each family is one rule; the utterances here are new phrasings of it, not the
bench's. Slots are compared by meaning with the bench's scorer
(:func:`bench.tool_slots.slots_ok`, its fixed "now" Tuesday 3 March 2026 10:00
in Paris), expected values written here by hand. Timers, alarms, reminders and
chat: ``test_intents_prematch_families_timers.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from genx.assistant import prematch
from tests.prematch_checks import check_prematch as _check


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Lisbon, what time is it there", {"place": "Lisbon"}),
        ("and in Nairobi, what's the time", {"place": "Nairobi"}),
        ("what time is it on the west coast", {"place": "America/Los_Angeles"}),
        ("what time would it be in Seoul", {"place": "Seoul"}),
        ("what's the time back home", {}),
        ("my aunt lives in Toronto, what time is it there", {"place": "Toronto"}),
        ("what's the time where my cousin works, in Dubai", {"place": "Dubai"}),
        ("is it too late in Sydney right now", {"place": "Sydney"}),
        ("what's the time, in Rome", {"place": "Rome"}),
        ("what time is it in Lima, I wonder", {"place": "Lima"}),
    ],
)
def test_time_questions_with_the_place_first_on_a_coast_or_back_home_go_to_the_clock(text: str, slots: dict[str, Any]) -> None:
    _check(text, "current_time", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Ten days from now, what's the date?", {"date": "13 March 2026"}),
        ("two weeks before Easter, what date is that", {"date": "22 March 2026"}),
        ("next Tuesday, what day of the month will that be", {"date": "10 March 2026"}),
        ("on Christmas, what day of the week is it", {"date": "25 December 2026"}),
    ],
)
def test_a_date_said_before_its_question_goes_to_the_calendar_with_that_date(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("is Christmas on the 25th", {"date": "25 December 2026"}),
        ("was yesterday the second", {"date": "2 March 2026"}),
        ("is tomorrow the twenty-first", {"date": "4 March 2026"}),
        ("is this coming Saturday the 7th", {"date": "7 March 2026"}),
    ],
)
def test_asking_whether_a_day_falls_on_a_day_of_the_month_reads_that_day(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("tell me what day it was yesterday", {"date": "2 March 2026"}),
        ("can you tell me what the date will be in ten days", {"date": "13 March 2026"}),
        ("I want to know what day it will be in two weeks", {"date": "17 March 2026"}),
        ("what day is it going to be tomorrow", {"date": "4 March 2026"}),
        ("I was wondering if you could tell me what day it'll be on Friday", {"date": "6 March 2026"}),
    ],
)
def test_day_questions_in_statement_order_after_tell_me_go_to_the_calendar(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("what's tomorrow's date", {"date": "4 March 2026"}),
        ("what was last Monday's date", {"date": "2 March 2026"}),
        ("what weekday is next friday's date", {"date": "6 March 2026"}),
        ("what's the date this coming Saturday", {"date": "7 March 2026"}),
        ("is tomorrow Wednesday", {"date": "4 March 2026"}),
    ],
)
def test_possessive_and_coming_days_read_as_the_day_they_name(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("which date is the second Sunday of May", {"date": "10 May 2026"}),
        ("when is the last Friday of the month", {"date": "27 March 2026"}),
        ("what day did New Year's Day fall on last year", {"date": "1 January 2025"}),
        ("what will the date be two weeks from Monday", {"date": "23 March 2026"}),
        ("what's the date going to be on Sunday", {"date": "8 March 2026"}),
        ("what's 60 days from today", {"date": "2 May 2026"}),
        ("what's the day and date", {}),
        ("is it Wednesday tomorrow", {"date": "4 March 2026"}),
        ("what day is the day after Boxing Day", {"date": "27 December 2026"}),
        ("how many days until the 20th of next month", {"date": "20 April 2026"}),
        ("what's the date a week on Thursday", {"date": "12 March 2026"}),
        ("what day of the week is our anniversary, the 9th of June", {"date": "9 June 2026"}),
        ("how long ago was the fall of the Berlin wall, 9 November 1989", {"date": "9 November 1989"}),
        ("what day was the 25th of December in 1999", {"date": "25 December 1999"}),
    ],
)
def test_nth_weekdays_last_year_and_will_be_questions_go_to_the_calendar(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("tell me how many kilometers 26 miles is", (26, "mile", "km")),
        ("I wonder what 100 fahrenheit is in celsius", (100, "fahrenheit", "celsius")),
        ("do you know what five feet would be in centimeters", (5, "foot", "cm")),
        ("could you tell me what 3 cups are in milliliters", (3, "cup", "ml")),
        ("in pounds, how much is 30 kilos", (30, "kg", "pound")),
        ("how much does 12 stone weigh in kilograms", (12, "stone", "kg")),
    ],
)
def test_conversions_in_statement_order_or_with_the_unit_wanted_first_get_the_value_and_both_units(
    text: str, want: tuple[float, str, str]
) -> None:
    _check(text, "convert_units", {"value": want[0], "from_unit": want[1], "to_unit": want[2]})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("how many tablespoons in a quarter cup", (0.25, "cup", "tablespoon")),
        ("one and a half pounds in grams", (1.5, "pound", "gram")),
        ("three quarters of a cup in ml", (0.75, "cup", "ml")),
        ("convert two and a half miles to km", (2.5, "mile", "km")),
        ("how many grams is a third of a pound", (1 / 3, "pound", "gram")),
    ],
)
def test_fractions_said_in_words_are_the_value_converted(text: str, want: tuple[float, str, str]) -> None:
    _check(text, "convert_units", {"value": want[0], "from_unit": want[1], "to_unit": want[2]})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("what is 6 feet 2 inches in centimeters", (6 + 2 / 12, "foot", "cm")),
        ("how many centimeters is five foot eleven", (5 + 11 / 12, "foot", "cm")),
        ("what's 11 stone 4 pounds in kilograms", (11 + 4 / 14, "stone", "kg")),
        ("convert 7 pounds 8 ounces to kilograms", (7.5, "pound", "kg")),
        ("how many minutes is 2 hours 30 minutes", (2.5, "hour", "minute")),
        ("what's 5'9 in centimeters", (5.75, "foot", "cm")),
        ("a mile and a half in kilometers", (1.5, "mile", "km")),
    ],
)
def test_an_amount_in_two_units_is_converted_whole(text: str, want: tuple[float, str, str]) -> None:
    _check(text, "convert_units", {"value": want[0], "from_unit": want[1], "to_unit": want[2]})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("how many grams of flour is 4 ounces", (4, "ounce", "gram")),
        ("convert 3 cups of milk to millilitres", (3, "cup", "ml")),
    ],
)
def test_what_is_measured_after_a_unit_is_not_part_of_the_unit(text: str, want: tuple[float, str, str]) -> None:
    _check(text, "convert_units", {"value": want[0], "from_unit": want[1], "to_unit": want[2]})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("how many ounces in a pint", (1, "pint", "fluid ounce")),
        ("what's 20 degrees in fahrenheit", (20, "celsius", "fahrenheit")),
        ("convert 98 degrees to celsius", (98, "fahrenheit", "celsius")),
    ],
)
def test_ounces_of_a_volume_and_bare_degrees_of_a_temperature_get_the_unit_they_mean(text: str, want: tuple[float, str, str]) -> None:
    _check(text, "convert_units", {"value": want[0], "from_unit": want[1], "to_unit": want[2]})


@pytest.mark.parametrize(
    ("text", "value"),
    [("i'm curious what 5 times 7 is", 35), ("tell me what 12 percent of 300 is", 36), ("do you know how much 45 divided by 9 is", 5)],
)
def test_arithmetic_in_statement_order_is_calculated(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("what's half a dozen plus a dozen", 18),
        ("what is 4 dozen", 48),
        ("what's two and a half times four", 10),
        ("what's 12 divided by a half", 24),
        ("what's three eighths of 40", 15),
        ("what is a tenth of 90", 9),
        ("what's five sixths of 36", 30),
        ("what's 10 plus 20 all divided by 3", 10),
        ("multiply 9 and 3", 27),
        ("what's 2 point 5 times 4", 10),
        ("if we split 60 pounds four ways how much does each of us pay", 15),
        ("what's 9 minus 4, times 3", 15),
        ("what's the average of 4, 8 and 12", 8),
        ("what's 15 percent tip on a 60 dollar bill", 9),
        ("how much should I tip on 40 dollars at 20 percent", 8),
    ],
)
def test_dozens_fractions_and_grouping_said_in_words_are_calculated(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


def test_a_division_by_zero_goes_to_the_calculator_which_says_it_has_no_answer() -> None:
    got = prematch("what's 7 divided by zero")
    assert got is not None and got.tool == "calculate"


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("we got married on June 5th 2010, which day was that", {"date": "5 June 2010"}),
        ("my daughter was born on 3 March 2015, what day of the week was it", {"date": "3 March 2015"}),
        ("they opened the shop on the 1st of July 1999, what day was that", {"date": "1 July 1999"}),
    ],
)
def test_a_clause_saying_when_something_happened_gives_its_date_to_the_day_question(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("if tickets are 12 dollars each and we need four, how much will that be", 48),
        ("three coffees at 4.20 each, how much is that", 12.6),
        ("if a burger costs 9.50 apiece and I buy two, what's the total", 19),
        ("if each ticket is 15 dollars and we need 3 how much", 45),
        ("I need 6 eggs at 30 cents each, how much is that", 1.8),
        ("three stamps at 85p each, what's the total", 2.55),
    ],
)
def test_a_price_each_and_a_count_are_multiplied(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("if she makes 15 an hour and works 40 hours how much does she make", 600),
        ("how much do 3 books at 12.99 each cost", 38.97),
        ("if I have 12 cookies and eat 5, how many do I have left", 7),
        ("we have 8 chairs and buy 4 more, how many do we have now", 12),
    ],
)
def test_a_rate_a_count_or_having_and_giving_is_calculated(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the box weighs 3 kilos, how much is that in pounds", (3, "kilograms", "pounds")),
        ("my car does 40 miles per gallon what is that in kilometers per liter", (40, "miles per gallon", "kilometers per liter")),
        ("the oven dial says 200 degrees fahrenheit, what's that in celsius", (200, "degrees Fahrenheit", "degrees Celsius")),
    ],
)
def test_an_amount_said_in_a_clause_then_asked_in_another_unit_is_converted(text: str, want: tuple[float, str, str]) -> None:
    _check(text, "convert_units", {"value": want[0], "from_unit": want[1], "to_unit": want[2]})


@pytest.mark.parametrize(
    "text",
    [
        "the recipe says 180 degrees",
        "if pizzas cost 14.50 each we should order fewer",
        "3 coffees at 4.20 each is expensive",
        "I have 3 kids, what's that in dollars",
        "we met on 5 June 2010 in Paris, what a day that was",
        "my son was born on a Tuesday",
        "thats a nice song",
        "I have 20 apples and I like them",
        "if I have 2 kids and lose my job how many do I have left",
        "its 5 oclock somewhere",
        "whats the point of timers",
    ],
)
def test_chat_with_a_price_an_amount_or_a_past_date_is_no_tool_request(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(("text", "place"), [("what's the time in GMT minus five", "UTC-5"), ("time in utc plus three", "UTC+3")])
def test_a_utc_offset_said_in_words_is_the_place_of_a_time_question(text: str, place: str) -> None:
    _check(text, "current_time", {"place": place})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("whats the date in 3 weeks", "date_info", {"date": "in 3 weeks"}),
        ("hows the pasta timer doing", "list_timers", {}),
        ("dont let me forget to call mum at 6 pm", "set_reminder", {"text": "call mum", "when": "6 pm"}),
        ("ive got to be up at 6, set an alarm", "set_alarm", {"time": "6 am"}),
    ],
)
def test_contractions_without_their_apostrophe_read_as_with_it(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(("text", "value"), [("split 120 between 4 people", 30), ("share 90 among 3 friends", 30)])
def test_sharing_an_amount_between_people_divides_it(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the day after tomorrow", "date_info", {"date": "the day after tomorrow"}),
        ("what was yesterday", "date_info", {"date": "yesterday"}),
        ("what time zone is Denver in", "current_time", {"place": "Denver"}),
        ("what's the time zone in Chicago", "current_time", {"place": "Chicago"}),
    ],
)
def test_a_bare_day_word_or_a_places_time_zone_goes_to_the_calendar_or_the_clock(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize("text", ["what's the time zone like", "what time zone are you in", "I'm visiting Rome next week"])
def test_chat_about_time_zones_or_a_trip_is_no_tool_request(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("what's the time in g m t", "current_time", {"place": "GMT"}),
        ("Is it night in Seoul yet? What's the time there?", "current_time", {"place": "Seoul"}),
        ("what's the correct time", "current_time", {}),
        ("my phone battery died, what time is it in Lagos", "current_time", {"place": "Lagos"}),
        ("the twins keep asking, how many days until halloween", "date_info", {"date": "31 October 2026"}),
        ("our oven only does celsius, what's 350 fahrenheit in celsius", "convert_units",
         {"value": 350, "from_unit": "fahrenheit", "to_unit": "celsius"}),
        ("I've been up all night, um what's the date", "date_info", {}),
    ],
)  # fmt: skip
def test_spelt_letters_two_questions_and_a_clause_about_a_thing_before_a_request_with_its_value(
    text: str, tool: str, slots: dict[str, Any]
) -> None:
    _check(text, tool, slots)


@pytest.mark.parametrize(
    "text",
    ["the movie starts at 8, what time is it", "my flight lands at noon, what's the date", "the timer went off, what's the time"],
)
def test_a_clause_about_a_thing_before_a_request_with_no_value_of_its_own_stays_with_the_model(text: str) -> None:
    assert prematch(text) is None


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("how many weeks since the second of february", {"date": "2 February 2026"}),
        ("how long has it been since new year's day", {"date": "1 January 2026"}),
        ("how many days since halloween", {"date": "31 October 2025"}),
        ("the exhibition runs from the 4th of may to the 30th, how many days is that", {"date": "30 May", "from_date": "4 May"}),
        ("we're away from august 3rd to the 17th, how many nights is that", {"date": "17 August", "from_date": "3 August"}),
        ("what date does ninety days take me to", {"date": "in 90 days"}),
    ],
)
def test_a_past_question_takes_the_last_date_and_a_range_said_first_or_a_length_reached_are_read(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("if we put aside 50 a month, how much will we have after 18 months", 900),
        ("we raised 1,200 euros at the bake sale and there are 5 of us, how much does each person get", 240),
    ],
)
def test_a_rate_over_a_stretch_of_time_and_a_total_shared_among_a_count_are_sums(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("what's the date a week on Tuesday", {"date": "10 March 2026"}),
        ("which day is two weeks on Monday", {"date": "23 March 2026"}),
        ("when is three weeks on Sunday", {"date": "29 March 2026"}),
    ],
)
def test_a_length_on_a_weekday_is_that_long_after_the_day(text: str, slots: dict[str, Any]) -> None:
    _check(text, "date_info", slots)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("convert 5k to miles", {"value": 5, "from_unit": "km", "to_unit": "mile"}),
        ("how many miles is 21.1k", {"value": 21.1, "from_unit": "km", "to_unit": "mile"}),
        ("I ran 5k this morning, how many miles is that", {"value": 5, "from_unit": "km", "to_unit": "mile"}),
    ],
)
def test_a_distance_said_as_a_race_is_kilometres(text: str, slots: dict[str, Any]) -> None:
    _check(text, "convert_units", slots)


def test_thousands_said_with_a_k_before_another_word_are_no_kilometres() -> None:
    assert prematch("convert 10k yen to dollars") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the bill came to 120 dollars and there's 5 of us, how much each", 24),
        ("lunch was 45 and there are three of us, how much is that per person", 15),
        ("the taxi cost 36 and we're 4, what's that each", 9),
    ],
)
def test_a_bill_and_how_many_share_it_is_a_division(text: str, value: float) -> None:
    _check(text, "calculate", {"expression": value})


@pytest.mark.parametrize(
    ("text", "tool", "slots"),
    [
        ("do one thing, what's 15 percent of 80", "calculate", {"expression": 12}),
        ("do one thing, convert 3 miles to km", "convert_units", {"value": 3, "from_unit": "mile", "to_unit": "km"}),
        ("reckon you could tell me the time in Perth", "current_time", {"place": "Perth"}),
        ("I reckon you can work out 19 times 3", "calculate", {"expression": 57}),
    ],
)
def test_regional_leads_before_a_question_are_politeness(text: str, tool: str, slots: dict[str, Any]) -> None:
    _check(text, tool, slots)
