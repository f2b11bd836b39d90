"""The settings dialog: devices (with test tone and mic check), turn taking, model and voice, providers and keys, looks.

Saving validates everything first (:func:`app.ui.settings_form.build_settings`); on a problem the dialog stays
open, names the problem next to the field and focuses it. Keys go to the keyring, the rest to the TOML file,
and ``saved(Settings)`` lets the app apply the change without a restart.

Nothing that may block runs on the GUI thread: the device lists are read on a worker thread when the dialog is
shown (:meth:`SettingsDialog.load_devices`; PortAudio may take seconds), and the keyring calls and the fsync'd
file write of :meth:`SettingsDialog.save` run on one too.

The pages' widgets are :mod:`app.ui.settings_pages`, their behaviour :mod:`app.ui.settings_editors`;
this module loads the form, reads it back, validates and saves.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialogButtonBox, QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from app import settings as settings_file
from app.model_catalogue import installed_optional
from app.settings import Settings
from app.ui.hotkey import hotkey_ok
from app.ui.settings_editors import PROVIDER_CHOICE, AudioTools, SettingsEditors
from app.ui.settings_form import (
    FormValues,
    Keyring,
    KeyringUnavailable,
    ProviderForm,
    SettingsInvalid,
    build_settings,
    forget_key,
    form_from_settings,
    store_keys,
)
from app.ui.settings_pages import REMOTE_NOTICE, VAD_WORDS
from app.ui.theme import state_color
from genx.modelloader import ConfigError

log = logging.getLogger(__name__)


class SettingsDialog(SettingsEditors):
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
        self._connect_pages()

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
        for g in [*self.base.generators, *installed_optional(g.name for g in self.base.generators)]:
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


def _generator_label(name: str, kind: str) -> str:
    if kind == "llamacpp":
        return f"{name} (offline, on this computer)"
    if name.endswith("#") or "+" in name.split("/"):
        return f"{name.rstrip('#')}… (enter a model)"
    return name


__all__ = ["PROVIDER_CHOICE", "REMOTE_NOTICE", "VAD_WORDS", "AudioTools", "SettingsDialog"]
