"""Fuzzing the config loaders (app.settings and genx.modelloader): random TOML → a valid config or a ConfigError naming the key."""

from __future__ import annotations

import copy
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.settings import Settings, load_settings
from genx.modelloader import ConfigError, ModelConfig, check_model_files, load_config

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

SECTIONS = ["providers", "generators", "voices", "asr", "vad", "audio", "loop", "ui"]
FIELDS = [
    "name", "kind", "provider", "model", "model_file", "params", "system_prompt", "options", "base_url", "api_key", "headers",
    "env", "keyring", "username", "path", "package", "max_tokens", "temperature", "top_p", "top_k", "stop", "seed", "extra",
    "speaker_id", "length_scale", "language", "device", "compute_type", "beam_size", "aggressiveness", "frame_ms",
    "input_device", "output_device", "capture_rate", "mode", "barge_in", "echo_cancellation", "end_of_turn_silence_ms",
    "generator", "voice", "vad_aggressiveness", "theme", "hotkey", "tray", "openai", "local",
]  # fmt: skip
# Strings that reach file-system and pattern code: home of an unknown user, NUL bytes, mux wildcards, URLs.
STRINGS = ["~nobody-here/x.gguf", "a\x00b", "offline/#", "a/+/b", "#", "", "http://127.0.0.1:1", "no_such_pkg_xyz", "../x", "tts/joe"]

toml_scalar = (
    st.text(max_size=12)
    | st.sampled_from(STRINGS)
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True)
    | st.booleans()
)
toml_value = st.recursive(
    toml_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
documents = st.dictionaries(st.sampled_from(SECTIONS) | st.text(max_size=6), toml_value, max_size=5)


def default_document() -> dict[str, Any]:
    return Settings().model_dump(mode="json", exclude_none=True)


@st.composite
def mutated_defaults(draw: st.DrawFn) -> dict[str, Any]:
    """The default settings with a few random edits: near-valid documents that reach the cross-checks."""
    doc = default_document()
    for _ in range(draw(st.integers(1, 4))):
        node: Any = doc
        path: list[Any] = []
        while isinstance(node, dict | list) and node and draw(st.booleans()):
            k = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
            path.append(k)
            node = node[k]
        parent: Any = doc
        for k in path[:-1]:
            parent = parent[k]
        op = draw(st.sampled_from(["set", "delete", "add"]))
        if not path or op == "add":
            target = node if isinstance(node, dict) else parent if isinstance(parent, dict) else doc
            target[draw(st.sampled_from(FIELDS))] = draw(toml_value)
        elif op == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(toml_value)
    return doc


def write(doc: dict[str, Any], directory: Path) -> Path:
    p = directory / "config.toml"
    p.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return p


# "<key path>: <what>"; a key path is segments (bare or "quoted"), [indexes] and dots.
PROBLEM = re.compile(r'^(\(top level\)|(?:"(?:[^"\\]|\\.)*"|[^\s":.\[\]]+|\[\d+\]|\.)+): \S')


def check_named(e: ConfigError, p: Path, doc: dict[str, Any] | None) -> None:
    """The error names the file and, for each problem, the key it is about (present in the document for unknown keys)."""
    assert str(e).startswith(str(p)), str(e)
    for problem in e.problems:
        if doc is None or problem.startswith("invalid TOML") or "not UTF-8" in problem:
            continue
        assert PROBLEM.match(problem), problem
        if "unknown key" in problem:
            starts = [(json.dumps(k, ensure_ascii=False), f"{k}.", f"{k}[", f"{k}:") for k in doc]
            assert any(problem.startswith(s) for s in starts), (problem, sorted(doc))


def load_both(doc: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = write(doc, Path(d))
        for load in (load_settings, load_config):
            try:
                cfg = load(p)
            except ConfigError as e:
                check_named(e, p, doc)
                continue
            assert isinstance(cfg, ModelConfig)
            try:
                check_model_files(cfg, source=p)
            except ConfigError as e:
                assert str(e).startswith(f"{p}: "), str(e)
                assert e.key is not None and e.key.endswith(".model_file"), e.key


@FUZZ
@given(doc=documents)
@example(doc={"loop": {"generator": "a/#/b"}})
@example(doc={'"': [], "": 1})  # found by this test: the key '"' was named """ (quotes in keys are escaped now)
def test_random_toml_documents_load_or_raise_a_config_error_naming_the_key(doc: dict[str, Any]) -> None:
    load_both(doc)


@FUZZ
@given(doc=mutated_defaults())
# Found by this test: a model file under an unknown user's home (~nobody/…) crashed the model-file check with a
# RuntimeError instead of a ConfigError naming voices[0].model_file. (A NUL byte in a path is only a missing file.)
@example(doc={**default_document(), "generators": [{**default_document()["generators"][0], "model_file": "a\x00b"}]})
@example(doc={**default_document(), "voices": [{**default_document()["voices"][0], "model_file": "~nobody-here/x.onnx"}]})
def test_near_valid_settings_load_or_raise_a_config_error_naming_the_key(doc: dict[str, Any]) -> None:
    load_both(copy.deepcopy(doc))


@FUZZ
@given(raw=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
@example(raw=b"[loop]\nmode = 'hands-free'\n[loop]\n")  # a table declared twice
@example(raw=b"\xff\xfe[ui]")
def test_random_bytes_are_a_config_error_naming_the_file_never_another_exception(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "config.toml"
        p.write_bytes(raw)
        for load in (load_settings, load_config):
            try:
                load(p)
            except ConfigError as e:
                check_named(e, p, None)
