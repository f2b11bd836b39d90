"""The router bench's scorer: a date_info call with an offset is right when it works out the same date."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from bench.tool_slots import slots_ok


def test_a_date_and_an_offset_count_by_the_date_they_make() -> None:
    assert slots_ok({"date": "100 days ago"}, {"offset": "100 days ago"})
    assert slots_ok({"date": "Friday", "offset": "two weeks"}, {"date": "Friday", "offset": "2 weeks"})
    assert not slots_ok({"date": "Friday"}, {"date": "Friday", "offset": "2 weeks"})
    assert not slots_ok({"date": "99 days ago"}, {"offset": "100 days ago"})


def test_a_from_date_must_be_there_on_both_sides_and_agree() -> None:
    want = {"date": "April 15", "offset": "1 day", "from_date": "March 1"}
    assert slots_ok({"date": "April 16", "from_date": "1 March"}, want)
    assert not slots_ok({"date": "April 16"}, want)
    assert not slots_ok({"date": "April 16", "from_date": "2 March"}, want)


def test_repeats_are_compared_by_meaning() -> None:
    assert slots_ok({"time": "7 am", "repeat": "every day"}, {"time": "7:00 am", "repeat": "daily"})
    assert not slots_ok({"time": "7 am", "repeat": "weekends"}, {"time": "7 am", "repeat": "weekdays"})
    assert not slots_ok({"time": "7 am"}, {"time": "7 am", "repeat": "daily"})
