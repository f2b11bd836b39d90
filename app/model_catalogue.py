"""Optional offline models: generators Parley knows how to configure but does not install by default.

The default list (:func:`app.settings.default_generators`) holds only what
``./dev setup`` always installs (SmolLM2-135M-Instruct). An optional model, such
as Gemma-3-270m (a base model, Gemma Terms of Use; ``pip install -e ".[gemma]"``
or ``PARLEY_GEMMA=1 ./dev setup`` installs and joins it), is offered once its
file is in place: the settings dialog lists it (:func:`installed_optional`), and
choosing it, or naming it (``parley --generator offline/gemma3-270m``, the
answer-quality bench), adds its ``[[generators]]`` row (:func:`with_generator`).
A settings file can also declare the row itself (README, "Offline models").

Does not own: joining split model files (:mod:`genx.local.joined`), the Q/A
prompt format of base models (:mod:`genx.generators.llamacpp_qa`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from genx.generators.llamacpp_qa import QA_CHAT_FORMAT
from genx.local.joined import GEMMA3_270M
from genx.modelloader.errors import ConfigError
from genx.modelloader.files import ModelFile
from genx.modelloader.specs import GeneratorSpec, ParamsSpec


@dataclass(frozen=True, slots=True)
class OptionalModel:
    spec: GeneratorSpec
    installed: Callable[[], bool]
    install: str  # what to run to install it


GEMMA3_270M_NAME = "offline/gemma3-270m"

OPTIONAL_MODELS: tuple[OptionalModel, ...] = (
    OptionalModel(
        GeneratorSpec(
            name=GEMMA3_270M_NAME,
            kind="llamacpp",
            model_file=ModelFile(package=GEMMA3_270M.package, path=GEMMA3_270M.target),
            # the SmolLM2 row's sampling; a base model has no chat template: a few-shot Q/A transcript instead
            params=ParamsSpec(max_tokens=200, temperature=0.3, top_p=0.9, repeat_penalty=1.1),
            options={"n_ctx": 4096, "chat_format": QA_CHAT_FORMAT},
        ),
        GEMMA3_270M.installed,
        'pip install -e ".[gemma]" && python -m genx.local.joined   (or: PARLEY_GEMMA=1 ./dev setup)',
    ),
)


def optional_model(name: str) -> OptionalModel | None:
    return next((m for m in OPTIONAL_MODELS if m.spec.name == name), None)


def installed_optional(configured: Iterable[str]) -> list[GeneratorSpec]:
    """The optional generators whose model is installed, leaving out names already ``configured``."""
    have = set(configured)
    return [m.spec for m in OPTIONAL_MODELS if m.spec.name not in have and m.installed()]


def with_generator(generators: list[GeneratorSpec], name: str) -> list[GeneratorSpec]:
    """``generators`` with the optional model ``name`` added when it is one and is not configured yet.

    Not installed: a :class:`ConfigError` saying how to install it (nothing is downloaded here).
    """
    model = optional_model(name)
    if model is None or any(g.name == name for g in generators):
        return generators
    if not model.installed():
        raise ConfigError(f"the optional model {name!r} is not installed; install it with: {model.install}", key="loop.generator")
    return [*generators, model.spec]


def with_optional(settings: Any, *names: str | None) -> Any:
    """``settings`` (an :class:`app.settings.Settings`) with the rows of the optional models it or ``names`` ask for.

    ``[loop] generator`` and each of ``names`` (e.g. ``--generator``) that name an
    optional model not configured get its row. Speech recognisers and voices that
    ``[loop]`` does not choose and whose model files this install lacks (the release
    bundle leaves Whisper tiny.en out) are left out; a chosen one stays, so its load
    says what is missing. Anything else is left as it is.
    """
    generators = list(settings.generators)
    for name in (settings.loop.generator, *names):
        if name:
            generators = with_generator(generators, name)
    asr = [a for a in settings.asr if a.name == settings.loop.asr or _file_present(a.model_file)]
    voices = [v for v in settings.voices if v.name == settings.loop.voice or _file_present(v.model_file)]
    update = {
        key: rows
        for key, rows, before in (
            ("generators", generators, settings.generators),
            ("asr", asr, settings.asr),
            ("voices", voices, settings.voices),
        )
        if len(rows) != len(before)
    }
    return settings.model_copy(update=update) if update else settings


def _file_present(model_file: ModelFile | None) -> bool:
    if model_file is None:
        return True
    try:
        model_file.require()
    except ConfigError:  # its package is not installed, or the file is not in it
        return False
    return True


__all__ = [
    "GEMMA3_270M_NAME",
    "OPTIONAL_MODELS",
    "OptionalModel",
    "installed_optional",
    "optional_model",
    "with_generator",
    "with_optional",
]
