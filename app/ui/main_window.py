"""The main window: layout, menus, shortcuts and the Space push-to-talk hotkey.

The window is a view: it emits intent signals (talk pressed, text submitted, …) and offers methods to show
state; :mod:`app.ui.presenter` connects both to the voice loop.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.ui.ptt_filter import PushToTalkFilter
from app.ui.resources import app_icon
from app.ui.widgets.chat_view import ChatView
from app.ui.widgets.conversation_list import ConversationList
from app.ui.widgets.metrics_panel import MetricsPanel
from app.ui.widgets.state_indicator import StateIndicator
from app.ui.widgets.talk_button import TalkButton
from app.ui.window_view import _WindowView


class MainWindow(_WindowView):
    # intents
    talk_pressed = Signal()
    talk_released = Signal()
    text_submitted = Signal(str)
    hands_free_toggled = Signal(bool)
    mute_toggled = Signal(bool)
    stop_requested = Signal()
    new_conversation_requested = Signal()
    conversation_opened = Signal(str)
    settings_requested = Signal()
    memory_requested = Signal()
    about_requested = Signal()
    open_logs_requested = Signal()
    quit_requested = Signal()

    def __init__(self, *, window_state: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Parley")
        self.setWindowIcon(app_icon())
        self.setAccessibleName("Parley")
        self._window_state = window_state
        self._talk_held = False
        # False while the app owns shutdown: closing the window then asks to quit (quit_requested) instead.
        self.allow_close = True
        self.hide_on_close: Callable[[], bool] = lambda: False  # close-to-tray: closing hides the window
        self._build()
        self._build_menus()
        self.ptt_filter = PushToTalkFilter(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.ptt_filter)
        self.resize(980, 680)
        self.restore_geometry()

    # -- layout ------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.sidebar = ConversationList()
        self.sidebar.opened.connect(self.conversation_opened)
        self.sidebar.new_requested.connect(self.new_conversation_requested)

        top = QFrame()
        top.setObjectName("TopBar")
        self.state_indicator = StateIndicator()
        self.generator_label = QLabel()
        self.generator_label.setObjectName("EmptyHint")
        self.generator_label.setAccessibleName("Answering model")
        tl = QHBoxLayout(top)
        tl.setContentsMargins(16, 10, 16, 10)
        tl.addWidget(self.state_indicator, 1)
        tl.addSpacing(12)
        tl.addWidget(self.generator_label)

        self.chat = ChatView()

        controls = QFrame()
        controls.setObjectName("ControlBar")
        self.composer = QLineEdit()
        self.composer.setObjectName("Composer")
        self.composer.setPlaceholderText("Type a message and press Enter…")
        self.composer.setAccessibleName("Message")
        self.composer.setClearButtonEnabled(True)
        self.composer.returnPressed.connect(self._submit)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("SendButton")
        self.send_button.setAccessibleName("Send message")
        self.send_button.setEnabled(False)
        self.send_button.clicked.connect(self._submit)
        self.composer.textChanged.connect(lambda t: self.send_button.setEnabled(bool(t.strip())))
        row1 = QHBoxLayout()
        row1.setSpacing(8)
        row1.addWidget(self.composer, 1)
        row1.addWidget(self.send_button)

        self.hands_free_button = QPushButton("Hands-free")
        self.hands_free_button.setCheckable(True)
        self.hands_free_button.setAccessibleName("Hands-free mode")
        self.hands_free_button.setToolTip("Listen continuously; the assistant answers when you pause (Ctrl+H)")
        self.hands_free_button.toggled.connect(self._on_hands_free)
        self.mute_button = QPushButton("Mute")
        self.mute_button.setCheckable(True)
        self.mute_button.setAccessibleName("Mute microphone")
        self.mute_button.setToolTip("Ignore the microphone; typing still works (Ctrl+M)")
        self.mute_button.toggled.connect(self._on_mute)
        self.talk_button = TalkButton()
        self.talk_button.pressed.connect(self._button_down)
        self.talk_button.released.connect(self._button_up)
        self.hotkey_name = "Space"
        self.talk_hint = QLabel(self._hint_text(False))
        self.talk_hint.setObjectName("TalkHint")
        self.talk_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stop_button = QPushButton("Stop speaking")
        self.stop_button.setAccessibleName("Stop speaking")
        self.stop_button.setToolTip("Cut the answer; only what you heard is kept (Esc)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_requested)
        self.new_button = QPushButton("New")
        self.new_button.setAccessibleName("New conversation")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(self.new_conversation_requested)

        talk_col = QVBoxLayout()
        talk_col.setSpacing(2)
        talk_col.addWidget(self.talk_button, 0, Qt.AlignmentFlag.AlignHCenter)
        talk_col.addWidget(self.talk_hint)
        left = QHBoxLayout()
        left.setSpacing(8)
        left.addWidget(self.hands_free_button)
        left.addWidget(self.mute_button)
        left.addStretch(1)
        right = QHBoxLayout()
        right.setSpacing(8)
        right.addStretch(1)
        right.addWidget(self.stop_button)
        right.addWidget(self.new_button)
        row2 = QHBoxLayout()
        row2.addLayout(left, 1)
        row2.addLayout(talk_col, 0)
        row2.addLayout(right, 1)
        cl = QVBoxLayout(controls)
        cl.setContentsMargins(16, 10, 16, 10)
        cl.setSpacing(8)
        cl.addLayout(row2)
        cl.addLayout(row1)

        center = QWidget()
        col = QVBoxLayout(center)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        col.addWidget(top)
        col.addWidget(self.chat, 1)
        col.addWidget(controls)

        self.metrics_panel = MetricsPanel()
        self.metrics_panel.hide()

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("MainSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setHandleWidth(1)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(center)
        self.splitter.addWidget(self.metrics_panel)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([230, 700, 280])
        self.setCentralWidget(self.splitter)

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)
        self.progress.setAccessibleName("Loading progress")
        self.progress.hide()
        self.status_label = QLabel()
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().setSizeGripEnabled(True)

        self.setTabOrder(self.talk_button, self.composer)
        self.setTabOrder(self.composer, self.send_button)
        self.composer.setFocus()

    def _build_menus(self) -> None:
        mb = self.menuBar()
        conv = mb.addMenu("&Conversation")
        self.new_action = self._action("&New conversation", QKeySequence.StandardKey.New, self.new_conversation_requested.emit)
        conv.addAction(self.new_action)
        self.focus_composer_action = self._action("&Type a message", "Ctrl+L", self.composer.setFocus)
        conv.addAction(self.focus_composer_action)
        conv.addSeparator()
        self.settings_action = self._action("&Settings…", QKeySequence.StandardKey.Preferences, self.settings_requested.emit)
        if self.settings_action.shortcut().isEmpty():
            self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        conv.addAction(self.settings_action)
        conv.addSeparator()
        self.quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit, self.quit_requested.emit)
        if self.quit_action.shortcut().isEmpty():
            self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        conv.addAction(self.quit_action)

        voice = mb.addMenu("&Voice")
        self.hands_free_action = self._action("&Hands-free", "Ctrl+H", None, checkable=True)
        self.hands_free_action.toggled.connect(self.hands_free_button.setChecked)
        self.hands_free_button.toggled.connect(self.hands_free_action.setChecked)
        self.mute_action = self._action("&Mute microphone", "Ctrl+M", None, checkable=True)
        self.mute_action.toggled.connect(self.mute_button.setChecked)
        self.mute_button.toggled.connect(self.mute_action.setChecked)
        self.stop_action = self._action("&Stop speaking", "Esc", self.stop_requested.emit)
        self.stop_action.setEnabled(False)
        voice.addActions([self.hands_free_action, self.mute_action, self.stop_action])

        view = mb.addMenu("&View")
        self.sidebar_action = self._action("&Conversations", "Ctrl+B", None, checkable=True)
        self.sidebar_action.setChecked(True)
        self.sidebar_action.toggled.connect(self.sidebar.setVisible)
        self.metrics_action = self._action("&Metrics panel", "Ctrl+I", None, checkable=True)
        self.metrics_action.toggled.connect(self.metrics_panel.setVisible)
        view.addActions([self.sidebar_action, self.metrics_action])
        view.addSeparator()
        self.memory_action = self._action("What Parley &remembers…", None, self.memory_requested.emit)
        view.addAction(self.memory_action)

        help_ = mb.addMenu("&Help")
        self.logs_action = self._action("Open &log folder", None, self.open_logs_requested.emit)
        self.about_action = self._action("&About Parley", None, self.about_requested.emit)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        help_.addActions([self.logs_action, self.about_action])

    def _action(self, text: str, shortcut: object, slot: object, *, checkable: bool = False) -> QAction:
        a = QAction(text, self)
        if isinstance(shortcut, QKeySequence.StandardKey):
            a.setShortcut(QKeySequence(shortcut))
        elif isinstance(shortcut, str):
            a.setShortcut(QKeySequence(shortcut))
        a.setCheckable(checkable)
        if callable(slot):
            a.triggered.connect(lambda *_: slot())
        self.addAction(a)
        return a

    # -- intents -----------------------------------------------------------------------------------------------
    def _submit(self) -> None:
        text = self.composer.text().strip()
        if not text:
            return
        self.composer.clear()
        self.text_submitted.emit(text)

    def _on_hands_free(self, on: bool) -> None:
        self.talk_hint.setText(self._hint_text(on))
        self.hands_free_toggled.emit(on)

    def _on_mute(self, muted: bool) -> None:
        self.mute_button.setText("Unmute" if muted else "Mute")
        self.state_indicator.meter.set_active(not muted)
        self.mute_toggled.emit(muted)

    def _button_down(self) -> None:
        self._talk_down()

    def _button_up(self) -> None:
        self._talk_up()

    def hotkey_down(self) -> None:
        self.talk_button.set_held(True)
        self._talk_down()

    def hotkey_up(self) -> None:
        self.talk_button.set_held(False)
        self._talk_up()

    def _talk_down(self) -> None:
        if self._talk_held or not self.talk_button.isEnabled():
            return
        self._talk_held = True
        self.talk_pressed.emit()

    def _talk_up(self) -> None:
        if not self._talk_held:
            return
        self._talk_held = False
        self.talk_released.emit()

    @property
    def talk_held(self) -> bool:
        return self._talk_held

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ActivationChange and not self.isActiveWindow():
            self.ptt_filter.release()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.allow_close and self.hide_on_close():
            event.ignore()
            self.ptt_filter.release()
            self.hide()
            return
        if not self.allow_close:
            event.ignore()
            self.quit_requested.emit()
            return
        self.save_geometry()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.ptt_filter)
        super().closeEvent(event)
