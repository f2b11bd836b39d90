"""The settings dialog's data: form values ↔ :class:`app.settings.Settings`, validation and API keys in the keyring.

Kept free of widgets so every rule is testable on its own. Invariants:
* :func:`build_settings` either returns a fully valid ``Settings`` or raises :class:`SettingsInvalid` listing every
  problem as ``(field, message)``; the message names the value and what to do;
* API keys never enter ``Settings``: only ``{keyring = "parley", username = <provider>}`` references do; the keys
  themselves are returned separately for :func:`store_keys` to put in the keyring.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from app.model_catalogue import with_generator
from app.settings import Settings
from genx.modelloader import ConfigError, GeneratorSpec, ProviderSpec, SecretRef

log = logging.getLogger(__name__)

KEYRING_SERVICE = "parley"
PROVIDER_KINDS = ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "openai-compatible", "llamacpp-server")
# Kinds whose default endpoint needs no base URL.
_KIND_HAS_DEFAULT_URL = frozenset({"openai-chat", "openai-responses", "anthropic", "gemini", "ollama"})
_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)
_PROVIDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class SettingsInvalid(ValueError):
    """The form cannot be saved; ``problems`` is a list of ``(field, message)``."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(m for _, m in problems))


@dataclass(slots=True)
class ProviderForm:
    """One provider as edited: ``api_key`` is a newly typed key ("" = keep what is stored)."""

    name: str
    kind: str
    base_url: str = ""
    api_key: str = ""
    forget_key: bool = False


@dataclass(slots=True)
class FormValues:
    input_device: str | None = None  # None = system default
    output_device: str | None = None
    mode: str = "hands-free"
    vad_aggressiveness: int = 2
    end_of_turn_silence_ms: int = 500
    turn_detection: str = "smart-turn"  # or "silence"
    max_end_of_turn_ms: int = 2500
    turn_text_complete: float = 0.03
    backchannel_ducking: bool = True
    wake_word: bool = False
    barge_in: bool = True
    echo_cancellation: bool = True
    generator: str = "offline/smollm2"  # a configured generator name (pattern) …
    model: str = ""  # … and the model, required when that name is a pattern (openai/#) or a provider is picked
    provider: str = ""  # non-empty: answer with this provider's ``model`` (a new generator row is added)
    voice: str = "tts/joe"
    realtime: str = ""  # a [[realtime]] name: [loop] pipeline = "realtime" with it; "" = the cascade
    system_prompt: str = ""
    theme: str = "system"
    hotkey: str = "Space"
    tray: bool = True
    global_hotkey: bool = False
    close_to_tray: bool = False
    providers: list[ProviderForm] = field(default_factory=list)


def form_from_settings(s: Settings) -> FormValues:
    generator, model = s.loop.generator, ""
    serving = next((g for g in s.generators if g.name == s.loop.generator), None)
    if serving is None:  # the loop names a concrete model served by a pattern row (openai/# → openai/gpt-4o)
        for g in s.generators:
            prefix = _pattern_prefix(g.name)
            if prefix and s.loop.generator.startswith(prefix):
                generator, model = g.name, s.loop.generator[len(prefix) :]
                break
    return FormValues(
        input_device=None if s.audio.input_device is None else str(s.audio.input_device),
        output_device=None if s.audio.output_device is None else str(s.audio.output_device),
        mode=s.loop.mode,
        vad_aggressiveness=s.vad[i].aggressiveness if (i := s.loop_vad_index()) is not None else 2,
        end_of_turn_silence_ms=s.loop.end_of_turn_silence_ms,
        turn_detection=s.loop.turn_detection,
        max_end_of_turn_ms=s.loop.max_end_of_turn_ms,
        turn_text_complete=s.loop.turn_text_complete,
        backchannel_ducking=s.loop.backchannel_ducking,
        wake_word=s.loop.wake_word,
        barge_in=s.loop.barge_in,
        echo_cancellation=s.loop.echo_cancellation,
        generator=generator,
        model=model,
        voice=s.loop.voice,
        realtime=s.loop.realtime if s.loop.pipeline == "realtime" else "",
        system_prompt=s.loop.system_prompt,
        theme=s.ui.theme,
        hotkey=s.ui.hotkey,
        tray=s.ui.tray,
        global_hotkey=s.ui.global_hotkey,
        close_to_tray=s.ui.close_to_tray,
        providers=[ProviderForm(name, p.kind, p.base_url or "") for name, p in s.providers.items()],
    )


def _is_pattern(name: str) -> bool:
    return "+" in name.split("/") or name.endswith("#")


def _pattern_prefix(name: str) -> str:
    """``openai/#`` → ``openai/`` (the part a concrete model name is appended to)."""
    return name[:-1] if name.endswith("/#") else ""


def build_settings(
    base: Settings,
    form: FormValues,
    *,
    input_devices: Iterable[str] | None = None,
    output_devices: Iterable[str] | None = None,
    hotkey_ok: Callable[[str], bool] | None = None,
) -> tuple[Settings, dict[str, str]]:
    """A new ``Settings`` from ``base`` with the form applied, and ``{provider: new api key}`` to store.

    ``input_devices``/``output_devices``: names of the devices present (None = cannot check, e.g. no PortAudio).
    """
    problems: list[tuple[str, str]] = []
    for fld, value, names, what in (
        ("input_device", form.input_device, input_devices, "input"),
        ("output_device", form.output_device, output_devices, "output"),
    ):
        if value is not None and names is not None and not _device_known(value, list(names)):
            problems.append((fld, f"The {what} device {value!r} is not connected. Pick one from the list, or 'System default'."))
    if form.end_of_turn_silence_ms <= 0:
        problems.append(("end_of_turn_silence_ms", f"End-of-turn silence must be more than 0 ms (got {form.end_of_turn_silence_ms})."))
    elif form.end_of_turn_silence_ms > 10_000:
        problems.append(("end_of_turn_silence_ms", f"End-of-turn silence must be at most 10000 ms (got {form.end_of_turn_silence_ms})."))
    if not 0 <= form.vad_aggressiveness <= 3:
        problems.append(("vad_aggressiveness", "Voice detection sensitivity must be between 0 and 3."))
    if hotkey_ok is not None and not hotkey_ok(form.hotkey):
        problems.append(("hotkey", f"{form.hotkey!r} is not a single key Parley can use for push-to-talk; try Space or F9."))

    providers: dict[str, ProviderSpec] = {}
    keys: dict[str, str] = {}
    seen: set[str] = set()
    for p in form.providers:
        name = p.name.strip()
        if not _PROVIDER_NAME.fullmatch(name):
            problems.append((f"provider:{p.name}:name", f"Provider name {p.name!r} must use letters, digits, '_', '-' or '.'."))
            continue
        if name in seen:
            problems.append((f"provider:{name}:name", f"There are two providers named {name!r}."))
            continue
        seen.add(name)
        url = p.base_url.strip()
        if url and not _URL.fullmatch(url):
            problems.append((f"provider:{name}:base_url", f"Base URL {url!r} of provider {name!r} must start with http:// or https://."))
            continue
        if not url and p.kind not in _KIND_HAS_DEFAULT_URL:
            problems.append((f"provider:{name}:base_url", f"Provider {name!r} ({p.kind}) needs a base URL, e.g. http://127.0.0.1:8080/v1."))
            continue
        old = base.providers.get(name)
        api_key: SecretRef | None = None if old is None else old.api_key
        if p.forget_key:
            api_key = None
        if p.api_key.strip():
            keys[name] = p.api_key.strip()
            api_key = SecretRef.from_keyring(KEYRING_SERVICE, name)
        try:
            providers[name] = ProviderSpec(
                kind=p.kind,
                base_url=url or None,
                api_key=api_key,
                headers=dict(old.headers) if old else {},
                options=dict(old.options) if old else {},
            )
        except ValidationError as e:
            problems.append((f"provider:{name}:kind", f"Provider {name!r}: {_first_message(e)}"))

    generators = list(base.generators)
    generator_name = form.generator
    model = form.model.strip()
    if form.provider:
        if form.provider not in seen:
            problems.append(("provider", f"Provider {form.provider!r} is not configured; add it on the Providers page first."))
        elif not model:
            problems.append(("model", f"Enter the model name to use with provider {form.provider!r} (e.g. gpt-4o-mini)."))
        else:
            generator_name = f"{form.provider}/{model}"
            if not any(g.name == generator_name for g in generators):
                generators.append(GeneratorSpec(name=generator_name, provider=form.provider, model=model))
    elif _is_pattern(form.generator):
        prefix = _pattern_prefix(form.generator)
        if not model:
            problems.append(("model", f"{form.generator!r} serves many models: enter the model name (e.g. {prefix or ''}gpt-4o-mini)."))
        elif not prefix:
            problems.append(("generator", f"Pick a concrete generator instead of the pattern {form.generator!r}."))
        else:
            generator_name = prefix + model
    elif not generator_name.strip():
        problems.append(("generator", "Choose which model answers."))
    else:
        try:  # an optional offline model the dialog offered (installed, not configured yet) gets its row
            generators = with_generator(generators, generator_name)
        except ConfigError as e:
            problems.append(("generator", e.detail))

    if problems:
        raise SettingsInvalid(problems)

    data: dict[str, Any] = base.model_dump(mode="python")
    data["providers"] = {n: p.model_dump(mode="python") for n, p in providers.items()}
    data["generators"] = [g.model_dump(mode="python") for g in generators]
    data["audio"].update(
        input_device=_device_value(form.input_device, base.audio.input_device),
        output_device=_device_value(form.output_device, base.audio.output_device),
    )
    vad = base.loop_vad_index()
    if vad is not None:  # the sensitivity of the VAD the loop uses ([vad] aggressiveness)
        data["vad"][vad]["aggressiveness"] = form.vad_aggressiveness
    data["loop"].update(
        mode=form.mode,
        end_of_turn_silence_ms=form.end_of_turn_silence_ms,
        turn_detection=form.turn_detection,
        max_end_of_turn_ms=form.max_end_of_turn_ms,
        turn_text_complete=form.turn_text_complete,
        backchannel_ducking=form.backchannel_ducking,
        wake_word=form.wake_word,
        barge_in=form.barge_in,
        echo_cancellation=form.echo_cancellation,
        generator=generator_name,
        voice=form.voice,
        pipeline="realtime" if form.realtime else "cascade",
        realtime=form.realtime or base.loop.realtime,  # switching it off keeps the name for next time
        system_prompt=form.system_prompt,
    )
    data["ui"].update(
        theme=form.theme, hotkey=form.hotkey, tray=form.tray, global_hotkey=form.global_hotkey, close_to_tray=form.close_to_tray
    )
    try:
        return Settings.model_validate(data, strict=False), keys
    except ConfigError as e:
        raise SettingsInvalid([("", p) for p in e.problems]) from e
    except ValidationError as e:
        raise SettingsInvalid([("", _first_message(e))]) from e


def _device_value(value: str | None, before: str | int | None) -> str | int | None:
    """The form shows devices as text: an index the file gave as a number stays a number."""
    return before if value is not None and value == str(before) else value


def _device_known(value: str, names: list[str]) -> bool:
    v = value.strip().lower()
    if v in ("", "default") or v.isdigit():
        return True  # indexes are checked when the device opens
    return any(v == n.lower() for n in names) or sum(v in n.lower() for n in names) == 1


def _first_message(e: ValidationError) -> str:
    errs = e.errors(include_url=False)
    if not errs:
        return str(e)
    err = errs[0]
    loc = ".".join(str(x) for x in err["loc"])
    return f"{loc}: {err['msg']}" if loc else str(err["msg"])


class Keyring(Protocol):
    def get_password(self, service: str, username: str) -> str | None: ...

    def set_password(self, service: str, username: str, password: str) -> None: ...

    def delete_password(self, service: str, username: str) -> None: ...


def default_keyring() -> Keyring:
    import keyring

    return keyring  # type: ignore[return-value]


class KeyringUnavailable(RuntimeError):
    """The system keyring refused or is missing; the message says how to fix it."""


def store_keys(keys: dict[str, str], kr: Keyring | None = None) -> None:
    """Put each provider's new API key in the keyring (service ``parley``, user = provider name)."""
    kr = kr or default_keyring()
    for provider, secret in keys.items():
        try:
            kr.set_password(KEYRING_SERVICE, provider, secret)
        except Exception as e:  # keyring backends raise their own types (KeyringError, dbus errors …)
            raise KeyringUnavailable(
                f"Could not store the API key of {provider!r} in the system keyring ({type(e).__name__}). "
                "Unlock or install a keyring (e.g. gnome-keyring or KWallet), or set the key in an environment variable "
                f'and write api_key = {{ env = "..." }} for [providers.{provider}] in the settings file.'
            ) from e
        log.info("stored the API key of provider %r in the keyring", provider)


def forget_key(provider: str, kr: Keyring | None = None) -> None:
    kr = kr or default_keyring()
    try:
        kr.delete_password(KEYRING_SERVICE, provider)
    except Exception:  # absent already, or no keyring: nothing to forget
        log.debug("no keyring entry to delete for %r", provider)


def key_status(ref: SecretRef | None) -> str:
    """What the masked key field says about a stored key, without reading it."""
    if ref is None:
        return "No key"
    if ref.env is not None:
        return f"From environment variable {ref.env}"
    return "•••••••• stored in the keyring"
