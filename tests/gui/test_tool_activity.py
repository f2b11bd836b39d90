"""Tool activity in the chat: a compact line per call under the answer, expandable to its arguments and result."""

from __future__ import annotations

from html import unescape

import pytest
from PySide6.QtCore import Qt

from app.ui.main_window import MainWindow
from app.ui.presenter import Presenter
from app.ui.widgets.chat_view import AssistantBubble
from genx.agentkit.events import Announcement, AssistantDelta, AssistantDone, ToolActivity, UserFinal
from genx.agentkit.store import TurnRecord
from genx.chunk import FuncCall, Message, ToolResult

from .fakes import FakeLoop

pytestmark = pytest.mark.gui


@pytest.fixture
def ui(qtbot, window_state):  # type: ignore[no-untyped-def]
    w = MainWindow(window_state=window_state)
    qtbot.addWidget(w)
    p = Presenter(w)
    loop = FakeLoop()
    p.attach(loop)
    w.show()
    return w, p, loop


def test_a_running_tool_shows_its_call_and_then_its_result_on_the_same_line(ui, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(UserFinal(turn_id="t1", text="What time is it in Tokyo?"))
    loop.emit(ToolActivity(turn_id="t1", call_id="c1", name="current_time", arguments='{"city": "Tokyo"}', status="running"))
    answer = w.chat.bubbles()[-1]
    assert isinstance(answer, AssistantBubble)
    (row,) = answer.tools.rows()
    assert answer.tools.isVisibleTo(answer)
    assert row.button.text() == 'Tool: current_time(city="Tokyo") running…'
    loop.emit(
        ToolActivity(
            turn_id="t1",
            call_id="c1",
            name="current_time",
            arguments='{"city": "Tokyo"}',
            status="ok",
            result="It's 17:35 in Tokyo.",
            elapsed_ms=3.0,
        )
    )
    assert answer.tools.rows() == [row]  # the outcome replaces "running…"
    assert row.button.text() == 'Tool: current_time(city="Tokyo") → It\'s 17:35 in Tokyo.'
    loop.emit(AssistantDelta(turn_id="t1", text="It's 17:35 in Tokyo."))
    loop.emit(AssistantDone(turn_id="t1", text="It's 17:35 in Tokyo.", interrupted=False, spoken_text="It's 17:35 in Tokyo."))
    assert w.chat.bubbles()[-1] is answer and answer.text() == "It's 17:35 in Tokyo."
    assert not row.details.isVisibleTo(answer)
    qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
    assert row.expanded and row.details.isVisibleTo(answer)
    details = unescape(row.details.text())
    assert '"city": "Tokyo"' in details and "It's 17:35 in Tokyo." in details and "3 ms" in details


def test_a_failed_tool_is_shown_with_its_error(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(UserFinal(turn_id="t1", text="set a timer for banana minutes"))
    loop.emit(
        ToolActivity(
            turn_id="t1",
            call_id="c1",
            name="set_timer",
            arguments="{}",
            status="invalid_arguments",
            result="minutes is required",
            is_error=True,
        )
    )
    (row,) = w.chat.bubbles()[-1].tools.rows()  # type: ignore[attr-defined]
    assert row.button.text() == "Tool: set_timer() → refused: bad arguments: minutes is required"
    assert row.is_error


def test_a_reopened_conversation_shows_the_stored_tool_calls_under_their_answers(ui) -> None:  # type: ignore[no-untyped-def]
    w, p, _ = ui
    calls = [
        Message.assistant("", tool_calls=[FuncCall("calculate", '{"expression": "17*23"}', "c1")]),
        Message.tool(ToolResult("c1", "calculate", "17*23 is 391.")),
    ]
    p.show_records(
        [TurnRecord("t1", "what's 17 times 23", "391.", generated_text="391.", tool_messages=calls), TurnRecord("t2", "hi", "Hello!")]
    )
    bubbles = [b for b in w.chat.bubbles() if isinstance(b, AssistantBubble)]
    assert [r.button.text() for r in bubbles[0].tools.rows()] == ['Tool: calculate(expression="17*23") → 17*23 is 391.']
    assert bubbles[1].tools.rows() == [] and not bubbles[1].tools.isVisibleTo(bubbles[1])


def test_an_announcement_is_shown_when_it_comes(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(Announcement(announcement_id="a1", text="Time's up: timer 1 for 10 minutes.", phase="queued"))
    loop.emit(Announcement(announcement_id="a1", text="Time's up: timer 1 for 10 minutes.", phase="done"))
    (b,) = w.chat.bubbles()
    assert isinstance(b, AssistantBubble) and b.text() == "Time's up: timer 1 for 10 minutes."
    assert "Announcement" in b.badge.text()
