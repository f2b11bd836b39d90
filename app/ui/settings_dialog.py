"""The settings dialog: devices (with test tone and mic check), turn taking, model and voice, providers and keys, looks.

Saving validates everything first (:func:`app.ui.settings_form.build_settings`); on a problem the dialog stays
open, names the problem next to the field and focuses it. Keys go to the keyring, the rest to the TOML file,
and ``saved(Settings)`` lets the app apply the change without a restart.

Nothing that may block runs on the GUI thread: the device lists are read on a worker thread when the dialog is
shown (:meth:`SettingsDialog.load_devices`; PortAudio may take seconds), and the keyring calls and the fsync'd
file write of :meth:`SettingsDialog.save` run on one too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
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
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import settings as settings_file
from app.settings import Settings
from app.ui.hotkey import hotkey_ok
from app.ui.settings_form import (
    PROVIDER_KINDS,
    FormValues,
    Keyring,
    KeyringUnavailable,
    ProviderForm,
    SettingsInvalid,
    build_settings,
    forget_key,
    form_from_settings,
    key_status,
    store_keys,
)
from app.ui.theme import state_color
from app.ui.widgets.state_indicator import LevelMeter
from genx.modelloader import ConfigError

log = logging.getLogger(__name__)

PROVIDER_CHOICE = "__provider__"
VAD_WORDS = ("Lets most sound through", "Relaxed", "Balanced", "Only clear speech")


class AudioTools(Protocol):
    """What the Audio page needs from the audio edge (faked in tests)."""

    def list_devices(self, direction: str) -> list[str]:
        """Names of the devices for ``"input"`` or ``"output"``; raises an AudioError when there is no audio."""
        ...

    async def test_tone(self, device: str | None) -> None: ...

    async def mic_check(self, device: str | None, on_level: Callable[[float], None], seconds: float) -> float:
        """Listen ``seconds`` on ``device`` reporting levels (0..1); returns the peak level."""
        ...


class SettingsDialog(QDialog):
    saved = Signal(object)  # the new Settings
    notice = Signal(str)  # after a save: something the user must be told (the old file kept aside, keys removed)

    def __init__(
        self,
        settings: Settings,
        *,
        config_path: Path,
        audio: AudioTools | None = None,
        keyring: Keyring | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Parley settings")
        self.setAccessibleName("Settings")
        self.setModal(True)
        self.base = settings
        self.config_path = config_path
        self.audio = audio
        self.keyring = keyring
        self.result_settings: Settings | None = None
        self._providers: list[ProviderForm] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._field_widgets: dict[str, QWidget] = {}
        self._device_names: dict[str, list[str] | None] = {"input": None, "output": None}  # None: not listed (yet)
        self._devices_requested = False
        self._audio_error = ""
        self._save_task: asyncio.Task[None] | None = None

        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._audio_page(), "&Audio")
        self.tabs.addTab(self._conversation_page(), "&Conversation")
        self.tabs.addTab(self._model_page(), "&Model && voice")
        self.tabs.addTab(self._providers_page(), "&Providers")
        self.tabs.addTab(self._appearance_page(), "A&ppearance")

        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setObjectName("SettingsErrors")
        self.error_label.setAccessibleName("Problems")
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setStyleSheet(f"color: {state_color('error', self.palette()).name()};")
        self.error_label.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        where = QLabel(f"Saved to {config_path}", self)
        where.setObjectName("EmptyHint")
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(16, 16, 16, 12)
        lay.setSpacing(10)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.error_label)
        bottom = QHBoxLayout()
        bottom.addWidget(where, 1)
        bottom.addWidget(self.buttons)
        lay.addLayout(bottom)
        self.resize(640, 560)
        self.load(form_from_settings(settings))

    # -- pages -------------------------------------------------------------------------------------------------
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
        self.mic_button.clicked.connect(self.start_mic_check)
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
        self.tone_button.clicked.connect(self.start_test_tone)
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
        self.duck_check = QCheckBox("\"Mm-hm\", \"okay\" or a cough only &lower Parley's voice for a moment")
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
        self.generator_combo.currentIndexChanged.connect(self._generator_changed)
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
        self.provider_list.currentRowChanged.connect(self._provider_selected)
        self.add_provider_button = QPushButton("Add")
        self.add_provider_button.setAccessibleName("Add provider")
        self.add_provider_button.clicked.connect(self._add_provider)
        self.remove_provider_button = QPushButton("Remove")
        self.remove_provider_button.setAccessibleName("Remove provider")
        self.remove_provider_button.clicked.connect(self._remove_provider)
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
        for w in (self.p_name, self.p_url, self.p_key):
            w.textEdited.connect(self._provider_edited)
        self.p_kind.currentTextChanged.connect(self._provider_edited)
        self.p_forget.toggled.connect(self._provider_edited)
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
        from genx.local.wakeword import BUILTIN

        model = self.base.loop.wake_word_model
        return BUILTIN.get(model, model)

    # -- load / read -------------------------------------------------------------------------------------------
    def load(self, f: FormValues) -> None:
        self._fill_devices("input", self.input_combo, f.input_device)
        self._fill_devices("output", self.output_combo, f.output_device)
        (self.hands_free_radio if f.mode == "hands-free" else self.ptt_radio).setChecked(True)
        self.vad_slider.setValue(f.vad_aggressiveness)
        self.vad_words.setText(VAD_WORDS[max(0, min(3, f.vad_aggressiveness))])
        self.silence_spin.setValue(max(0, f.end_of_turn_silence_ms))
        self.turn_combo.setCurrentIndex(max(0, self.turn_combo.findData(f.turn_detection)))
        self.max_wait_spin.setValue(f.max_end_of_turn_ms)
        self.turn_threshold_spin.setValue(f.turn_text_complete)
        self.duck_check.setChecked(f.backchannel_ducking)
        self.wake_check.setChecked(f.wake_word)
        self.barge_check.setChecked(f.barge_in)
        self.aec_check.setChecked(f.echo_cancellation)
        self._providers = [ProviderForm(p.name, p.kind, p.base_url) for p in f.providers]
        self._refresh_provider_list()
        self.generator_combo.blockSignals(True)
        self.generator_combo.clear()
        for g in self.base.generators:
            self.generator_combo.addItem(_generator_label(g.name, g.effective_kind), g.name)
        self.generator_combo.addItem("A model from a provider…", PROVIDER_CHOICE)
        i = self.generator_combo.findData(f.generator)
        self.generator_combo.setCurrentIndex(max(0, i))
        self.generator_combo.blockSignals(False)
        self.model_edit.setText(f.model)
        self._generator_changed()
        self.voice_combo.clear()
        for v in self.base.voices:
            self.voice_combo.addItem(v.name, v.name)
        self.voice_combo.setCurrentIndex(max(0, self.voice_combo.findData(f.voice)))
        self.realtime_combo.clear()
        self.realtime_combo.addItem("Off (speech recognition, model, voice)", "")
        for r in self.base.realtime:
            self.realtime_combo.addItem(r.name, r.name)
        self.realtime_combo.setCurrentIndex(max(0, self.realtime_combo.findData(f.realtime)))
        self.realtime_combo.setEnabled(bool(self.base.realtime))
        self.prompt_edit.setPlainText(f.system_prompt)
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(f.theme)))
        self.hotkey_edit.setKeySequence(QKeySequence(f.hotkey))
        self.tray_check.setChecked(f.tray)
        self.global_check.setChecked(f.global_hotkey)
        self.close_to_tray_check.setChecked(f.close_to_tray)
        self.close_to_tray_check.setEnabled(f.tray)
        self._global_status()

    def _fill_devices(self, direction: str, combo: QComboBox, current: str | None) -> None:
        combo.clear()
        combo.addItem("System default", None)
        names = self._device_names[direction]
        for n in names or []:
            combo.addItem(n, n)
        if current is not None:
            i = combo.findData(current)
            if i < 0:
                combo.addItem(f"{current} (not connected)" if names is not None else current, current)
                i = combo.count() - 1
            combo.setCurrentIndex(i)
        has_devices = names is not None
        (self.mic_button if direction == "input" else self.tone_button).setEnabled(has_devices)

    def _list_devices(self, direction: str) -> list[str] | None:
        """Blocking (PortAudio): call it on a worker thread."""
        assert self.audio is not None
        try:
            return self.audio.list_devices(direction)
        except Exception as e:  # AudioError (no PortAudio, no devices): say so, keep the dialog usable
            log.info("no %s devices to offer: %s", direction, e)
            self._audio_error = str(e)
            return None

    def _show_devices(self, found: dict[str, list[str] | None]) -> None:
        for direction, combo in (("input", self.input_combo), ("output", self.output_combo)):
            self._device_names[direction] = found[direction]
            self._fill_devices(direction, combo, combo.currentData())
        if self._audio_error:
            self.audio_problem.setText(self._audio_error)
            self.audio_problem.show()

    async def load_devices(self) -> None:
        """Read the input and output device lists on a worker thread and fill the device lists with them."""
        if self.audio is None:
            return
        self._audio_error = ""
        found = {d: await asyncio.to_thread(self._list_devices, d) for d in ("input", "output")}
        self._show_devices(found)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._devices_requested or self.audio is None:
            return
        self._devices_requested = True
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no asyncio loop (a script such as app.ui.screenshots): no loop to keep responsive
            self._show_devices({d: self._list_devices(d) for d in ("input", "output")})
            return
        self._run(self.load_devices())

    def values(self) -> FormValues:
        self._provider_edited()
        gen = self.generator_combo.currentData()
        is_provider = gen == PROVIDER_CHOICE
        seq = self.hotkey_edit.keySequence()
        return FormValues(
            input_device=self.input_combo.currentData(),
            output_device=self.output_combo.currentData(),
            mode="hands-free" if self.hands_free_radio.isChecked() else "push-to-talk",
            vad_aggressiveness=self.vad_slider.value(),
            end_of_turn_silence_ms=self.silence_spin.value(),
            turn_detection=str(self.turn_combo.currentData() or "smart-turn"),
            max_end_of_turn_ms=self.max_wait_spin.value(),
            turn_text_complete=round(self.turn_threshold_spin.value(), 3),
            backchannel_ducking=self.duck_check.isChecked(),
            wake_word=self.wake_check.isChecked(),
            barge_in=self.barge_check.isChecked(),
            echo_cancellation=self.aec_check.isChecked(),
            generator="" if is_provider else str(gen or ""),
            model=self.model_edit.text(),
            provider=(self.provider_combo.currentText() or "<none>") if is_provider else "",
            voice=str(self.voice_combo.currentData() or ""),
            realtime=str(self.realtime_combo.currentData() or ""),
            system_prompt=self.prompt_edit.toPlainText().strip(),
            theme=str(self.theme_combo.currentData()),
            hotkey=seq.toString(QKeySequence.SequenceFormat.PortableText) or "Space",
            tray=self.tray_check.isChecked(),
            global_hotkey=self.global_check.isChecked(),
            close_to_tray=self.close_to_tray_check.isChecked(),
            providers=[ProviderForm(p.name, p.kind, p.base_url, p.api_key, p.forget_key) for p in self._providers],
        )

    # -- model page behaviour ----------------------------------------------------------------------------------
    def _generator_changed(self, *_: object) -> None:
        gen = self.generator_combo.currentData()
        is_provider = gen == PROVIDER_CHOICE
        needs_model = is_provider or (isinstance(gen, str) and (gen.endswith("#") or "+" in gen.split("/")))
        self.provider_combo.clear()
        self.provider_combo.addItems([p.name for p in self._providers])
        self.provider_combo.setVisible(is_provider)
        self.provider_label.setVisible(is_provider)
        self.model_edit.setVisible(needs_model)
        self.model_label.setVisible(needs_model)
        kinds = {g.name: g.effective_kind for g in self.base.generators}
        self.remote_notice.setVisible(is_provider or (isinstance(gen, str) and kinds.get(gen, "llamacpp") != "llamacpp"))

    # -- providers page behaviour ------------------------------------------------------------------------------
    def _refresh_provider_list(self, select: int = 0) -> None:
        self.provider_list.blockSignals(True)
        self.provider_list.clear()
        for p in self._providers:
            self.provider_list.addItem(f"{p.name}  ·  {p.kind}")
        self.provider_list.blockSignals(False)
        self.provider_form.setEnabled(bool(self._providers))
        self.remove_provider_button.setEnabled(bool(self._providers))
        if self._providers:
            self.provider_list.setCurrentRow(min(select, len(self._providers) - 1))
            self._provider_selected(self.provider_list.currentRow())
        else:
            for w in (self.p_name, self.p_url, self.p_key):
                w.clear()

    def _provider_selected(self, row: int) -> None:
        if not 0 <= row < len(self._providers):
            return
        p = self._providers[row]
        self._editing = row
        self.p_name.setText(p.name)
        self.p_kind.blockSignals(True)
        self.p_kind.setCurrentText(p.kind)
        self.p_kind.blockSignals(False)
        self.p_url.setText(p.base_url)
        self.p_key.setText(p.api_key)
        stored = self.base.providers.get(p.name)
        self.p_key.setPlaceholderText(key_status(stored.api_key if stored else None) + " — type to replace")
        self.p_forget.blockSignals(True)
        self.p_forget.setChecked(p.forget_key)
        self.p_forget.setEnabled(stored is not None and stored.api_key is not None and stored.api_key.keyring is not None)
        self.p_forget.blockSignals(False)

    def _provider_edited(self, *_: object) -> None:
        row = getattr(self, "_editing", -1)
        if not 0 <= row < len(self._providers):
            return
        p = self._providers[row]
        p.name, p.kind, p.base_url, p.api_key = (
            self.p_name.text().strip(),
            self.p_kind.currentText(),
            self.p_url.text().strip(),
            self.p_key.text(),
        )
        p.forget_key = self.p_forget.isChecked()
        item = self.provider_list.item(row)
        if item is not None:
            item.setText(f"{p.name}  ·  {p.kind}")

    def _add_provider(self) -> None:
        taken = {p.name for p in self._providers}
        name = next(n for n in ("openai", "anthropic", "gemini", "ollama", *(f"provider{i}" for i in range(1, 100))) if n not in taken)
        kind = {"openai": "openai-chat"}.get(name, name if name in PROVIDER_KINDS else "openai-compatible")
        self._providers.append(ProviderForm(name, kind))
        self._refresh_provider_list(len(self._providers) - 1)
        self.p_name.setFocus()
        self.p_name.selectAll()

    def _remove_provider(self) -> None:
        row = self.provider_list.currentRow()
        if 0 <= row < len(self._providers):
            del self._providers[row]
            self._editing = -1
            self._refresh_provider_list(max(0, row - 1))

    # -- test tone / mic check ---------------------------------------------------------------------------------
    def start_test_tone(self) -> None:
        if self.audio is None:
            return
        self.tone_button.setEnabled(False)
        self.tone_status.setText("Playing a short tone…")
        self._run(self._tone(self.output_combo.currentData()))

    async def _tone(self, device: str | None) -> None:
        assert self.audio is not None
        try:
            await self.audio.test_tone(device)
            self.tone_status.setText("Did you hear a tone? If not, pick another speaker.")
        except Exception as e:
            self.tone_status.setText(f"Could not play: {e}")
        finally:
            self.tone_button.setEnabled(True)

    def start_mic_check(self) -> None:
        if self.audio is None:
            return
        self.mic_button.setEnabled(False)
        self.mic_status.setText("Listening for 3 seconds — say something…")
        self._run(self._mic(self.input_combo.currentData()))

    async def _mic(self, device: str | None) -> None:
        assert self.audio is not None
        try:
            peak = await self.audio.mic_check(device, self.mic_meter.set_level, 3.0)
            if peak < 0.05:
                self.mic_status.setText("Heard almost nothing. Check that the microphone is connected and not muted.")
            else:
                self.mic_status.setText("The microphone works.")
        except Exception as e:
            self.mic_status.setText(f"Could not open the microphone: {e}")
        finally:
            self.mic_button.setEnabled(True)
            self.mic_meter.set_level(0.0)

    def _run(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- save --------------------------------------------------------------------------------------------------
    def validate(self) -> tuple[Settings, dict[str, str]] | None:
        """The settings to save, or None after showing the problems."""
        try:
            result = build_settings(
                self.base,
                self.values(),
                input_devices=self._device_names["input"],
                output_devices=self._device_names["output"],
                hotkey_ok=hotkey_ok,
            )
        except SettingsInvalid as e:
            self.show_problems(e.problems)
            return None
        self.error_label.hide()
        return result

    def show_problems(self, problems: list[tuple[str, str]]) -> None:
        self.error_label.setText("\n".join(f"• {m}" for _, m in problems))
        self.error_label.show()
        for fld, _ in problems:
            w: QWidget | None = self._field_widgets.get(fld)
            if fld.startswith("provider:"):
                name = fld.split(":")[1]
                rows = [i for i, p in enumerate(self._providers) if p.name == name]
                self.tabs.setCurrentIndex(3)
                if rows:
                    self.provider_list.setCurrentRow(rows[0])
                w = {"base_url": self.p_url, "name": self.p_name, "kind": self.p_kind}.get(fld.split(":")[2], self.p_name)
            if w is not None:
                page: QWidget | None = w
                while page is not None and self.tabs.indexOf(page) < 0:
                    page = page.parentWidget()
                if page is not None:
                    self.tabs.setCurrentWidget(page)
                w.setFocus()
                break

    def save(self) -> asyncio.Task[None] | None:
        """Validate, then store the keys and write the file on a worker thread; the task that does it (None: invalid)."""
        if self._save_task is not None and not self._save_task.done():
            return self._save_task
        result = self.validate()
        if result is None:
            return None
        self.buttons.setEnabled(False)
        self._save_task = asyncio.ensure_future(self._persist(*result))
        return self._save_task

    def _write(self, new: Settings, keys: dict[str, str]) -> settings_file.Saved:
        """Blocking (keyring, fsync): runs on a worker thread."""
        if keys:
            store_keys(keys, self.keyring)
        for p in self._providers:
            if p.forget_key and not p.api_key:
                forget_key(p.name, self.keyring)
        # base: what the dialog showed, so only the user's changes are written (never one-off CLI overrides)
        return settings_file.save(new, self.config_path, base=self.base)

    async def _persist(self, new: Settings, keys: dict[str, str]) -> None:
        try:
            written = await asyncio.to_thread(self._write, new, keys)
        except KeyringUnavailable as e:
            self.show_problems([("", str(e))])
            return
        except OSError as e:
            self.show_problems([("", f"Could not write {self.config_path}: {e.strerror or e}. Check the folder's permissions.")])
            return
        except ConfigError as e:  # the file changed meanwhile into something these settings cannot merge with
            self.show_problems([("", f"Could not save: {e}")])
            return
        finally:
            self.buttons.setEnabled(True)
        log.info("settings saved to %s", self.config_path)
        self.result_settings = new
        self.saved.emit(new)
        if written.message:
            self.notice.emit(written.message)
        self.accept()

    def reject(self) -> None:
        if self._save_task is not None and not self._save_task.done():
            return  # the file is being written: closing now would lose the outcome
        super().reject()

    def done(self, result: int) -> None:
        for t in list(self._tasks):
            t.cancel()
        super().done(result)


REMOTE_NOTICE = (
    "This model answers on its provider's computers: what you say, and the facts Parley remembers about you "
    "that fit the question, are sent to it. Memory can be paused in View > What Parley remembers."
)


def _generator_label(name: str, kind: str) -> str:
    if kind == "llamacpp":
        return f"{name} (offline, on this computer)"
    if name.endswith("#") or "+" in name.split("/"):
        return f"{name.rstrip('#')}… (enter a model)"
    return name
