"""The main window driven by a scripted loop: talking, typing, transcripts, answers and barge-in."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton

from app.ui.main_window import MainWindow
from app.ui.presenter import Presenter, level_from_dbfs
from app.ui.widgets.chat_view import AssistantBubble, UserBubble
from genx.agentkit.events import (
    AssistantDelta,
    AssistantDone,
    AssistantSpoken,
    ErrorKind,
    InputLevel,
    LoopError,
    LoopState,
    SpeechStarted,
    TurnMetrics,
    TurnReopened,
    UserFinal,
    UserPartial,
)

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
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=2000)
    return w, p, loop


def _key(w: QApplication | object, etype: QEvent.Type, *, repeat: bool = False) -> None:
    target = QApplication.focusWidget() or w
    QApplication.sendEvent(target, QKeyEvent(etype, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " ", repeat))


def test_holding_the_talk_button_opens_an_utterance_and_releasing_closes_it(ui, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    qtbot.mousePress(w.talk_button, Qt.MouseButton.LeftButton)
    assert loop.names() == ["push_to_talk_down"]
    assert w.state_indicator.state() == "hearing"
    qtbot.mouseRelease(w.talk_button, Qt.MouseButton.LeftButton)
    assert loop.names() == ["push_to_talk_down", "push_to_talk_up"]
    assert w.state_indicator.state() == "thinking"


def test_space_held_is_push_to_talk_and_autorepeat_does_not_open_more_utterances(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    w.talk_button.setFocus()
    _key(w, QEvent.Type.KeyPress)
    _key(w, QEvent.Type.KeyPress, repeat=True)
    _key(w, QEvent.Type.KeyPress, repeat=True)
    assert loop.names() == ["push_to_talk_down"]
    assert w.talk_button.is_held()
    _key(w, QEvent.Type.KeyRelease)
    assert loop.names() == ["push_to_talk_down", "push_to_talk_up"]
    assert not w.talk_button.is_held()


def test_space_typed_in_the_message_box_is_a_space_not_push_to_talk(ui, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    w.composer.setFocus()
    qtbot.keyClicks(w.composer, "hi there")
    assert w.composer.text() == "hi there"
    assert "push_to_talk_down" not in loop.names()


def test_losing_focus_while_space_is_held_ends_the_utterance(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    w.talk_button.setFocus()
    _key(w, QEvent.Type.KeyPress)
    w.ptt_filter.release()  # what ActivationChange does when the window loses focus
    assert loop.names() == ["push_to_talk_down", "push_to_talk_up"]


def test_scripted_turn_shows_partial_then_final_transcript_then_the_streamed_answer(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(SpeechStarted(turn_id="t1"))
    loop.emit(UserPartial(turn_id="t1", text="what is the"))
    (user,) = w.chat.bubbles()
    assert isinstance(user, UserBubble)
    assert user.is_partial and user.text() == "what is the"
    assert "<i" in user.label.text()  # greyed italic while partial
    loop.emit(UserPartial(turn_id="t1", text="what is the time"))
    loop.emit(UserFinal(turn_id="t1", text="What is the time?"))
    assert w.chat.bubbles() == [user]  # replaced in place, not a new bubble
    assert not user.is_partial and user.text() == "What is the time?"

    loop.emit(AssistantDelta(turn_id="t1", text="It is "))
    loop.emit(AssistantDelta(turn_id="t1", text="noon."))
    answer = w.chat.bubbles()[1]
    assert isinstance(answer, AssistantBubble)
    assert answer.generated_text() == "It is noon."
    assert answer.text() == ""  # nothing heard yet
    loop.emit(AssistantSpoken(turn_id="t1", spoken_text="It is"))
    assert answer.text() == "It is"
    loop.emit(AssistantDone(turn_id="t1", text="It is noon.", interrupted=False, spoken_text="It is noon."))
    assert answer.done and not answer.interrupted
    assert answer.text() == "It is noon."
    assert len(w.chat.bubbles()) == 2


def test_barge_in_marks_the_bubble_interrupted_and_keeps_only_the_spoken_text(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.send_text("Tell me a story")
    loop._turn += 1
    loop.emit(UserFinal(turn_id=loop.turn_id, text="Another one"))
    loop.speak_answer("Once upon a time there was a lighthouse keeper.", cut_after_words=3)
    bubble = w.chat.bubbles()[-1]
    assert isinstance(bubble, AssistantBubble)
    assert bubble.interrupted
    assert bubble.text() == "Once upon a"
    assert bubble.dropped_text().strip() == "time there was a lighthouse keeper."
    assert "<s" in bubble.label.text()  # the dropped remainder is struck through
    assert bubble.badge.isVisibleTo(bubble)
    assert "interrupted" in bubble.accessibleName().lower()


def test_typing_a_message_sends_it_and_shows_the_answer(ui, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.answer = "Paris is the capital of France."
    w.composer.setFocus()
    qtbot.keyClicks(w.composer, "Capital of France?")
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    assert ("send_text", ("Capital of France?",)) in loop.commands
    user, answer = w.chat.bubbles()
    assert isinstance(user, UserBubble) and user.text() == "Capital of France?" and not user.is_partial
    assert isinstance(answer, AssistantBubble) and answer.text() == "Paris is the capital of France."
    assert w.composer.text() == ""


def test_a_message_typed_before_the_loop_exists_is_sent_when_it_attaches(qtbot, window_state) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(window_state=window_state)
    qtbot.addWidget(w)
    p = Presenter(w)
    assert not w.talk_button.isEnabled()  # voice not ready
    w.composer.setText("hello early")
    w.send_button.click()
    (pending,) = w.chat.bubbles()
    assert isinstance(pending, UserBubble) and pending.is_partial
    loop = FakeLoop(answer="Hi!")
    p.attach(loop)
    assert ("send_text", ("hello early",)) in loop.commands
    bubbles = w.chat.bubbles()
    assert bubbles[0] is pending and not pending.is_partial  # the loop's UserFinal adopted the pending bubble
    assert bubbles[1].text() == "Hi!"
    assert w.talk_button.isEnabled()


def test_hands_free_mute_and_stop_buttons_send_their_commands(ui, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    w.hands_free_button.click()
    assert loop.commands[-1][0] == "set_mode" and str(loop.commands[-1][1][0]) == "hands-free"
    assert w.hands_free_action.isChecked()
    w.mute_button.click()
    assert loop.commands[-1] == ("mute", (True,))
    assert w.state_indicator.state() == "muted"
    loop.set_state(LoopState.SPEAKING)
    assert w.stop_button.isEnabled()
    w.stop_button.click()
    assert loop.commands[-1] == ("stop_speaking", ())
    w.new_button.click()
    assert loop.commands[-1] == ("new_conversation", ())


def test_new_conversation_clears_the_chat(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.send_text("hi")
    assert w.chat.bubbles()
    w.new_action.trigger()
    assert w.chat.bubbles() == []


def test_input_level_moves_the_meter(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(InputLevel(dbfs=-12.0))
    assert w.state_indicator.meter.level() == pytest.approx(level_from_dbfs(-12.0))
    assert 0.7 < w.state_indicator.meter.level() < 0.9
    loop.emit(InputLevel(dbfs=-200.0))
    assert w.state_indicator.meter.level() == 0.0


def test_metrics_panel_shows_the_turn_latency_breakdown(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    w.metrics_action.setChecked(True)
    assert w.metrics_panel.isVisible()
    loop.emit(TurnMetrics(turn_id="t1", asr_ms=111.0, llm_first_token_ms=222.0, tts_first_audio_ms=33.0, playout_ms=44.0, v2v_ms=410.0))
    rows = dict(w.metrics_panel.bars.rows())
    assert rows["Speech recognition"] == 111.0
    assert rows["Model: first token"] == 222.0
    assert rows["Voice to voice"] == 410.0
    assert "410 ms" in w.metrics_panel.summary.text()
    assert w.metrics_panel.history.rowCount() == 1


def test_a_loop_error_is_shown_in_the_conversation_without_crashing(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(LoopError(kind=ErrorKind.GENERATOR, message="provider 'openai' rejected the API key (401)"))
    (notice,) = w.chat.notices()
    assert "rejected the API key" in notice.text()
    loop.emit(LoopError(kind=ErrorKind.DEVICE, message="microphone vanished", recoverable=False))
    assert w.state_indicator.state() == "error"


def test_every_control_has_an_accessible_name(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, _ = ui
    controls = w.findChildren(QPushButton) + w.findChildren(QLineEdit)
    assert controls
    unnamed = [c for c in controls if c.isVisibleTo(w) and not (c.accessibleName() or (isinstance(c, QPushButton) and c.text()))]
    assert unnamed == []
    assert w.talk_button.accessibleName() == "Talk"


def test_a_reopened_turn_drops_the_unheard_answer_bubble_and_the_joined_words_get_one_answer(ui) -> None:  # type: ignore[no-untyped-def]
    w, _, loop = ui
    loop.emit(SpeechStarted(turn_id="t1"))
    loop.emit(UserFinal(turn_id="t1", text="book a table for"))
    loop.emit(AssistantDelta(turn_id="t1", text="A table for"))
    assert len([b for b in w.chat.bubbles() if isinstance(b, AssistantBubble)]) == 1
    loop.emit(TurnReopened(turn_id="t1"))
    assert [b for b in w.chat.bubbles() if isinstance(b, AssistantBubble)] == []
    loop.emit(UserFinal(turn_id="t1", text="book a table for four people"))
    loop.emit(AssistantDelta(turn_id="t1", text="Booked for four."))
    loop.emit(AssistantDone(turn_id="t1", text="Booked for four.", interrupted=False, spoken_text="Booked for four."))
    users = [b for b in w.chat.bubbles() if isinstance(b, UserBubble)]
    answers = [b for b in w.chat.bubbles() if isinstance(b, AssistantBubble)]
    assert [u.text() for u in users] == ["book a table for four people"]
    assert [a.generated_text() for a in answers] == ["Booked for four."]
