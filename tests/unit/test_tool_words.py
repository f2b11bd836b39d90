"""Tool activity in words: the terminal lines of ``--headless`` (the window shows the same summaries)."""

from __future__ import annotations

import io

from app.terminal import TerminalView
from app.tool_words import call_summary, tool_line
from genx.agentkit.events import Announcement, ToolActivity


def test_the_terminal_prints_each_finished_tool_call_with_its_arguments_and_result() -> None:
    out = io.StringIO()
    view = TerminalView(out)
    view(ToolActivity(turn_id="t1", call_id="c1", name="current_time", arguments='{"city": "Tokyo"}', status="running"))
    view(
        ToolActivity(
            turn_id="t1", call_id="c1", name="current_time", arguments='{"city": "Tokyo"}', status="ok", result="It's 17:35 in Tokyo."
        )
    )
    view(
        ToolActivity(
            turn_id="t2", call_id="c2", name="lookup", arguments="{}", status="timeout", result="no answer within 15 s", is_error=True
        )
    )
    view(Announcement(announcement_id="a1", text="Reminder: call my sister.", phase="queued"))
    view(Announcement(announcement_id="a1", text="Reminder: call my sister.", phase="done"))
    assert out.getvalue().splitlines() == [
        '  [tool] current_time(city="Tokyo") → It\'s 17:35 in Tokyo.',
        "  [tool] lookup() → timed out: no answer within 15 s",
        "parley (announcement): Reminder: call my sister.",
    ]


def test_arguments_that_are_not_a_json_object_are_shown_as_they_came() -> None:
    assert call_summary("calculate", "17 * 23") == "calculate(17 * 23)"
    assert call_summary("calculate", "[1, 2]") == "calculate([1, 2])"
    assert call_summary("convert_units", '{"value": 20, "from_unit": "km", "to_unit": "mi"}') == (
        'convert_units(value=20, from_unit="km", to_unit="mi")'
    )


def test_a_long_result_is_clipped_to_one_line() -> None:
    line = tool_line("search", "{}", "ok", "word " * 100, limit=30)
    assert line.startswith("search() → word word") and line.endswith("…") and len(line) < 50 and "\n" not in line
