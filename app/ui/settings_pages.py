"""The settings dialog's pages: the widgets of Audio, Conversation, Model & voice, Providers and Appearance.

Layout only, plus what a page shows by itself (the wake phrase, the global talk key's status);
the pages' behaviour (devices, provider list, test tone, mic check) is
:mod:`app.ui.settings_editors`, loading and saving :mod:`app.ui.settings_dialog`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.settings import Settings
from app.ui.settings_form import PROVIDER_KINDS
from app.ui.theme import state_color
from app.ui.widgets.state_indicator import LevelMeter

VAD_WORDS = ("Lets most sound through", "Relaxed", "Balanced", "Only clear speech")

REMOTE_NOTICE = (
    "This model answers on its provider's computers: what you say, and the facts Parley remembers about you "
    "that fit the question, are sent to it. Memory can be paused in View > What Parley remembers."
)


class SettingsPages(QDialog):
    """The pages' widgets (attributes of the dialog, as the tests and the dialog's behaviour address them)."""

    base: Settings
    _field_widgets: dict[str, QWidget]

    @staticmethod
    def _form(page: QWidget) -> QFormLayout:
        form = QFormLayout(page)
        form.setContentsMargins(18, 18, 18, 18)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(12)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        return form

    @staticmethod
    def _hint(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("EmptyHint")
        label.setWordWrap(True)
        return label

    def _audio_page(self) -> QWidget:
        page = QWidget()
        form = self._form(page)
        self.input_combo = QComboBox()
        self.input_combo.setAccessibleName("Microphone")
        self.mic_button = QPushButton("Check microphone")
        self.mic_button.setAccessibleName("Check microphone")
        self.mic_meter = LevelMeter()
        self.mic_meter.setAccessibleName("Microphone check level")
        self.mic_status = self._hint("Speak after pressing “Check microphone”: the bar should move.")
        mic_row = QHBoxLayout()
        mic_row.addWidget(self.mic_button)
        mic_row.addWidget(self.mic_meter, 1)
        self.output_combo = QComboBox()
        self.output_combo.setAccessibleName("Speaker")
        self.tone_button = QPushButton("Play test tone")
        self.tone_button.setAccessibleName("Play test tone")
        self.tone_status = self._hint("")
        tone_row = QHBoxLayout()
        tone_row.addWidget(self.tone_button)
        tone_row.addWidget(self.tone_status, 1)
        self.audio_problem = self._hint("")
        self.audio_problem.setStyleSheet(f"color: {state_color('error', self.palette()).name()};")
        self.audio_problem.hide()
        form.addRow(self.audio_problem)
        form.addRow("&Microphone:", self.input_combo)
        form.addRow("", mic_row)
        form.addRow("", self.mic_status)
        form.addRow("&Speaker:", self.output_combo)
        form.addRow("", tone_row)
        self._field_widgets.update(input_device=self.input_combo, output_device=self.output_combo)
        return page

    def _conversation_page(self) -> QWidget:
        page = QWidget()
        form = self._form(page)
        self.hands_free_radio = QRadioButton("&Hands-free: answer when I pause")
        self.ptt_radio = QRadioButton("&Push-to-talk: answer when I release the key")
        self.mode_group = QButtonGroup(self)
        self.mode_group.addButton(self.hands_free_radio)
        self.mode_group.addButton(self.ptt_radio)
        mode_box = QVBoxLayout()
        mode_box.addWidget(self.hands_free_radio)
        mode_box.addWidget(self.ptt_radio)
        self.vad_slider = QSlider(Qt.Orientation.Horizontal)
        self.vad_slider.setRange(0, 3)
        self.vad_slider.setPageStep(1)
        self.vad_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.vad_slider.setAccessibleName("Voice detection strictness")
        self.vad_words = self._hint("")
        self.vad_slider.valueChanged.connect(lambda v: self.vad_words.setText(VAD_WORDS[v]))
        vad_row = QHBoxLayout()
        vad_row.addWidget(self.vad_slider, 1)
        vad_row.addWidget(self.vad_words)
        self.silence_spin = QSpinBox()
        self.silence_spin.setRange(0, 10_000)
        self.silence_spin.setSingleStep(50)
        self.silence_spin.setSuffix(" ms")
        self.silence_spin.setAccessibleName("End-of-turn silence")
        self.turn_combo = QComboBox()
        self.turn_combo.setAccessibleName("End of turn")
        self.turn_combo.addItem("When you sound finished (smart)", "smart-turn")
        self.turn_combo.addItem("After a fixed silence", "silence")
        self.max_wait_spin = QSpinBox()
        self.max_wait_spin.setRange(300, 10_000)
        self.max_wait_spin.setSingleStep(100)
        self.max_wait_spin.setSuffix(" ms")
        self.max_wait_spin.setAccessibleName("Longest wait after an unfinished sentence")
        self.turn_threshold_spin = QDoubleSpinBox()
        self.turn_threshold_spin.setRange(0.01, 0.9)  # at least [loop] turn_text_incomplete (0.01)
        self.turn_threshold_spin.setDecimals(3)
        self.turn_threshold_spin.setSingleStep(0.01)
        self.turn_threshold_spin.setAccessibleName("How sure Parley must be that you finished")
        self.duck_check = QCheckBox('"Mm-hm", "okay" or a cough only &lower Parley\'s voice for a moment')
        self.barge_check = QCheckBox("Speaking while Parley talks &interrupts it (barge-in)")
        self.wake_check = QCheckBox(f"Hands-free: listen only after “{self._wake_phrase()}” (wake wor&d)")
        self.aec_check = QCheckBox("&Echo cancellation (remove Parley's own voice from the microphone)")
        form.addRow("Turn taking:", mode_box)
        form.addRow("&Voice detection:", vad_row)
        form.addRow("", self._hint("Stricter ignores more background noise but may miss quiet speech."))
        form.addRow("&End of turn:", self.turn_combo)
        form.addRow("Longest &wait:", self.max_wait_spin)
        form.addRow("", self._hint("Smart: a small model judges at each pause whether you finished; it waits this long at most."))
        form.addRow("Finished &when sure:", self.turn_threshold_spin)
        form.addRow("", self._hint("Higher waits for clearer endings; lower answers sooner (end-of-message probability)."))
        form.addRow("End-of-turn &silence:", self.silence_spin)
        form.addRow("", self._hint("With a fixed silence: how long you pause before Parley answers (hands-free)."))
        form.addRow("", self.barge_check)
        form.addRow("", self.duck_check)
        form.addRow("", self.wake_check)
        form.addRow("", self._hint(f"Then no wake word is needed for {self.base.loop.follow_up_s:g} s after each answer."))
        form.addRow("", self.aec_check)
        self._field_widgets.update(
            end_of_turn_silence_ms=self.silence_spin,
            vad_aggressiveness=self.vad_slider,
            mode=self.hands_free_radio,
            turn_detection=self.turn_combo,
            max_end_of_turn_ms=self.max_wait_spin,
            turn_text_complete=self.turn_threshold_spin,
        )
        return page

    def _model_page(self) -> QWidget:
        page = QWidget()
        form = self._form(page)
        self.generator_combo = QComboBox()
        self.generator_combo.setAccessibleName("Answering model")
        self.provider_combo = QComboBox()
        self.provider_combo.setAccessibleName("Provider")
        self.model_edit = QLineEdit()
        self.model_edit.setAccessibleName("Model name")
        self.model_edit.setPlaceholderText("e.g. gpt-4o-mini")
        self.voice_combo = QComboBox()
        self.voice_combo.setAccessibleName("Voice")
        self.realtime_combo = QComboBox()
        self.realtime_combo.setAccessibleName("Speech-to-speech model")
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setAccessibleName("System prompt")
        self.prompt_edit.setTabChangesFocus(True)
        self.prompt_edit.setMinimumHeight(110)
        form.addRow("&Answer with:", self.generator_combo)
        self.provider_label = QLabel("P&rovider:")
        self.provider_label.setBuddy(self.provider_combo)
        form.addRow(self.provider_label, self.provider_combo)
        self.model_label = QLabel("M&odel:")
        self.model_label.setBuddy(self.model_edit)
        form.addRow(self.model_label, self.model_edit)
        form.addRow("&Voice:", self.voice_combo)
        form.addRow("&Speech to speech:", self.realtime_combo)
        form.addRow("", self._hint("A speech-to-speech model ([[realtime]] in the settings file) hears and answers by itself."))
        form.addRow("System &prompt:", self.prompt_edit)
        form.addRow("", self._hint("The offline model runs on this computer; provider models need a key on the Providers page."))
        self.remote_notice = self._hint(REMOTE_NOTICE)
        self.remote_notice.setObjectName("RemoteModelNotice")
        form.addRow("", self.remote_notice)
        self._field_widgets.update(generator=self.generator_combo, model=self.model_edit, provider=self.provider_combo)
        return page

    def _providers_page(self) -> QWidget:
        page = QWidget()
        outer = QHBoxLayout(page)
        outer.setContentsMargins(18, 18, 18, 18)
        outer.setSpacing(14)
        left = QVBoxLayout()
        self.provider_list = QListWidget()
        self.provider_list.setAccessibleName("Providers")
        self.add_provider_button = QPushButton("Add")
        self.add_provider_button.setAccessibleName("Add provider")
        self.remove_provider_button = QPushButton("Remove")
        self.remove_provider_button.setAccessibleName("Remove provider")
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_provider_button)
        buttons.addWidget(self.remove_provider_button)
        left.addWidget(self.provider_list, 1)
        left.addLayout(buttons)
        right = QWidget()
        form = QFormLayout(right)
        form.setContentsMargins(0, 0, 0, 0)
        form.setVerticalSpacing(12)
        self.p_name = QLineEdit()
        self.p_name.setAccessibleName("Provider name")
        self.p_kind = QComboBox()
        self.p_kind.addItems(PROVIDER_KINDS)
        self.p_kind.setAccessibleName("Provider kind")
        self.p_url = QLineEdit()
        self.p_url.setAccessibleName("Base URL")
        self.p_url.setPlaceholderText("default endpoint of this kind")
        self.p_key = QLineEdit()
        self.p_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.p_key.setAccessibleName("API key")
        self.p_forget = QCheckBox("Forget the stored key")
        form.addRow("&Name:", self.p_name)
        form.addRow("&Kind:", self.p_kind)
        form.addRow("&Base URL:", self.p_url)
        form.addRow("API &key:", self.p_key)
        form.addRow("", self.p_forget)
        form.addRow("", self._hint("Keys are kept in the system keyring, never in the settings file."))
        self.provider_form = right
        outer.addLayout(left, 2)
        outer.addWidget(right, 3)
        return page

    def _appearance_page(self) -> QWidget:
        page = QWidget()
        form = self._form(page)
        self.theme_combo = QComboBox()
        self.theme_combo.addItem("Follow the system", "system")
        self.theme_combo.addItem("Light", "light")
        self.theme_combo.addItem("Dark", "dark")
        self.theme_combo.setAccessibleName("Theme")
        self.hotkey_edit = QKeySequenceEdit()
        self.hotkey_edit.setMaximumSequenceLength(1)
        self.hotkey_edit.setAccessibleName("Push-to-talk key")
        self.tray_check = QCheckBox("Show an icon in the system &tray")
        self.global_check = QCheckBox("The key works in &every window, not only Parley's")
        self.global_status = self._hint("")
        self.global_check.toggled.connect(self._global_status)
        self.hotkey_edit.keySequenceChanged.connect(self._global_status)
        form.addRow("&Theme:", self.theme_combo)
        form.addRow("Push-to-talk &key:", self.hotkey_edit)
        form.addRow("", self._hint("Hold this key while the window is active to talk. It types normally in text fields."))
        form.addRow("", self.global_check)
        form.addRow("", self.global_status)
        form.addRow("", self.tray_check)
        self.close_to_tray_check = QCheckBox("Keep r&unning in the tray when the window is closed")
        self.tray_check.toggled.connect(self.close_to_tray_check.setEnabled)
        form.addRow("", self.close_to_tray_check)
        self._field_widgets.update(hotkey=self.hotkey_edit)
        return page

    def _global_status(self, *_: object) -> None:
        """What the global talk key will do here: works (X11), or why it stays window-only."""
        from app.ui.global_hotkey import global_key_problem, global_support

        key = self.hotkey_edit.keySequence().toString(QKeySequence.SequenceFormat.PortableText) or "Space"
        if not self.global_check.isChecked():
            self.global_status.setText("Off: the key works while Parley's window is active.")
            return
        support = global_support()
        if support.backend == "portal":
            self.global_status.setText(
                "Wayland: Parley asks the desktop's global shortcuts portal for the key (the desktop may ask you to "
                "confirm it); where there is none, it works while Parley's window is active."
            )
            return
        why_not = support.why_not or global_key_problem(key)
        self.global_status.setText(f"Window only: {why_not}." if why_not else f"Active: {key} works in every window (X11).")

    def _wake_phrase(self) -> str:
        from genx.local.openwakeword import phrase_of
        from genx.local.wakeword import BUILTIN

        model = self.base.loop.wake_word_model
        return BUILTIN.get(model) or phrase_of(model)  # openWakeWord's names, or one read from a file name


__all__ = ["REMOTE_NOTICE", "VAD_WORDS", "SettingsPages"]
