"""The settings dialog's page behaviour: device lists (read off the GUI thread), the model choice, the provider list,
the test tone and the mic check.

Does not own: the widgets (:mod:`app.ui.settings_pages`), loading the form and saving
(:mod:`app.ui.settings_dialog`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox

from app.ui.settings_form import PROVIDER_KINDS, ProviderForm, key_status
from app.ui.settings_pages import SettingsPages

log = logging.getLogger("app.ui.settings_dialog")

PROVIDER_CHOICE = "__provider__"


class AudioTools(Protocol):
    """What the Audio page needs from the audio edge (faked in tests)."""

    def list_devices(self, direction: str) -> list[str]:
        """Names of the devices for ``"input"`` or ``"output"``; raises an AudioError when there is no audio."""
        ...

    async def test_tone(self, device: str | None) -> None: ...

    async def mic_check(self, device: str | None, on_level: Callable[[float], None], seconds: float) -> float:
        """Listen ``seconds`` on ``device`` reporting levels (0..1); returns the peak level."""
        ...


class SettingsEditors(SettingsPages):
    """What the pages do; the dialog (:class:`app.ui.settings_dialog.SettingsDialog`) sets the state declared here."""

    audio: AudioTools | None
    _providers: list[ProviderForm]
    _tasks: set[asyncio.Task[Any]]
    _device_names: dict[str, list[str] | None]
    _devices_requested: bool
    _audio_error: str

    def _connect_pages(self) -> None:
        """Wire the pages' widgets to their behaviour (after the pages are built)."""
        self.mic_button.clicked.connect(self.start_mic_check)
        self.tone_button.clicked.connect(self.start_test_tone)
        self.generator_combo.currentIndexChanged.connect(self._generator_changed)
        self.provider_list.currentRowChanged.connect(self._provider_selected)
        self.add_provider_button.clicked.connect(self._add_provider)
        self.remove_provider_button.clicked.connect(self._remove_provider)
        for w in (self.p_name, self.p_url, self.p_key):
            w.textEdited.connect(self._provider_edited)
        self.p_kind.currentTextChanged.connect(self._provider_edited)
        self.p_forget.toggled.connect(self._provider_edited)

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


__all__ = ["PROVIDER_CHOICE", "AudioTools", "SettingsEditors"]
