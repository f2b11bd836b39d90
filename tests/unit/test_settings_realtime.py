"""``[loop] pipeline = "realtime"``: the setting, its check on load, and the stack the app builds for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.headless import build_stack, loop_config
from app.settings import load_settings
from genx.modelloader import ConfigError
from genx.transformers.realtime import RealtimeTransformer

REALTIME = """
[loop]
pipeline = "realtime"
realtime = "realtime/openai"

[[realtime]]
name = "realtime/openai"
kind = "openai-realtime"
model = "gpt-realtime"
voice = "marin"
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_the_realtime_pipeline_without_a_configured_realtime_model_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"loop\.realtime: pipeline = 'realtime' needs the name of a configured \[\[realtime\]\]"):
        load_settings(write(tmp_path, '[loop]\npipeline = "realtime"\n'))
    with pytest.raises(ConfigError, match=r"got 'realtime/nope' \(configured: realtime/openai\)"):
        load_settings(write(tmp_path, REALTIME.replace('realtime = "realtime/openai"', 'realtime = "realtime/nope"')))


def test_the_cascade_is_the_default_and_needs_no_realtime_model(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, "[loop]\nbarge_in = true\n"))
    assert (s.loop.pipeline, s.loop.realtime) == ("cascade", "")


def test_the_realtime_stack_offers_the_assistants_tools_and_loads_only_the_vad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    s = load_settings(write(tmp_path, REALTIME))
    stack = build_stack(s)
    assert isinstance(stack.realtime, RealtimeTransformer)
    assert stack.realtime.settings.model == "gpt-realtime" and stack.realtime.settings.voice == "marin"
    names = [t.name for t in stack.realtime_tools]
    assert {"current_time", "calculate", "set_timer"} <= set(names)
    assert [type(getattr(w, "__self__", None)).__name__ for w in stack.warmers] == ["VadTransformer"]
    assert stack.turn_detector is None
    assert loop_config(s).generator == "realtime/openai"  # the stored turns name the realtime model
