"""Secret references in the configuration and their resolution at use time.

A configuration never holds an API key in clear; it holds a reference::

    api_key = { env = "OPENAI_API_KEY" }            # an environment variable
    api_key = { keyring = "parley/openai" }         # keyring service "parley", user "openai"
    api_key = { keyring = "parley", username = "openai" }

:class:`SecretStore` resolves a reference when a component needs it (the first
request of a provider), returning a :class:`pydantic.SecretStr` that never
shows its value in ``repr`` or logs. Saving a configuration writes only the
references.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, SecretStr, model_validator
from pydantic_core import PydanticCustomError

from genx.modelloader.errors import ConfigError

if TYPE_CHECKING:
    from genx.modelloader.specs import ProviderSpec

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SecretRef(BaseModel):
    """Where a secret lives: exactly one of ``env`` or ``keyring``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    env: str | None = None
    keyring: str | None = None
    username: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_clear_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise PydanticCustomError(
                "secret_in_clear",
                'secrets are never stored in the config file: write { env = "VARIABLE" } or { keyring = "service/user" }',
            )
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> SecretRef:
        if (self.env is None) == (self.keyring is None):
            raise PydanticCustomError("secret_ref", 'write exactly one of { env = "VARIABLE" } or { keyring = "service/user" }')
        if self.env is not None and not _ENV_NAME.fullmatch(self.env):
            raise PydanticCustomError("secret_ref", "env must be an environment variable name like OPENAI_API_KEY")
        if self.keyring is not None:
            if self.username is None and (self.keyring.count("/") < 1 or self.keyring.startswith("/") or self.keyring.endswith("/")):
                raise PydanticCustomError("secret_ref", 'keyring must be "service/user" (or give username = "...")')
            if self.username == "" or self.keyring == "":
                raise PydanticCustomError("secret_ref", "keyring service and username must not be empty")
        elif self.username is not None:
            raise PydanticCustomError("secret_ref", "username only goes with keyring")
        return self

    @classmethod
    def from_env(cls, name: str) -> SecretRef:
        return cls(env=name)

    @classmethod
    def from_keyring(cls, service: str, username: str) -> SecretRef:
        return cls(keyring=service, username=username)

    @property
    def keyring_entry(self) -> tuple[str, str]:
        """``(service, username)`` of a keyring reference."""
        if self.keyring is None:
            raise ValueError("not a keyring reference")
        if self.username is not None:
            return self.keyring, self.username
        service, _, user = self.keyring.rpartition("/")
        return service, user

    def describe(self) -> str:
        if self.env is not None:
            return f"environment variable {self.env}"
        service, user = self.keyring_entry
        return f"keyring entry service={service!r} username={user!r}"


class KeyringBackend(Protocol):
    def get_password(self, service: str, username: str) -> str | None: ...

    def set_password(self, service: str, username: str, password: str) -> None: ...


class SecretStore:
    """Resolves :class:`SecretRef` s from the environment and the system keyring.

    ``environ`` defaults to the live ``os.environ``; ``keyring`` to the
    ``keyring`` package (imported on first use). Keyring answers are cached in
    memory for the life of the store; environment variables are read each time.
    """

    __slots__ = ("_cache", "_environ", "_keyring")

    def __init__(self, environ: Mapping[str, str] | None = None, keyring: KeyringBackend | None = None) -> None:
        self._environ = environ
        self._keyring = keyring
        self._cache: dict[tuple[str, str], SecretStr] = {}

    def resolve(self, ref: SecretRef, *, needed_by: str) -> SecretStr:
        """The secret's value; ``needed_by`` (e.g. "provider 'openai'") appears in errors.

        Keyring lookups may block (D-Bus, unlock prompts): from the event loop use :meth:`aresolve`.
        """
        if ref.env is not None:
            env = self._environ if self._environ is not None else os.environ
            value = env.get(ref.env)
            if value is None:
                raise ConfigError(f"environment variable {ref.env} is not set; {needed_by} needs it (export {ref.env}=...)")
            if value.strip() == "":
                raise ConfigError(f"environment variable {ref.env} is empty; {needed_by} needs it")
            return SecretStr(value)
        service, user = ref.keyring_entry
        cached = self._cache.get((service, user))
        if cached is not None:
            return cached
        backend = self._backend()
        try:
            value = backend.get_password(service, user)
        except Exception as e:  # keyring backends raise their own error types
            raise ConfigError(f"cannot read {ref.describe()} for {needed_by}: the keyring is unavailable ({type(e).__name__}: {e})") from e
        if not value:
            raise ConfigError(
                f"{ref.describe()} is not set; {needed_by} needs it (store it with: keyring set {service} {user}, or in Parley's settings)"
            )
        secret = SecretStr(value)
        self._cache[(service, user)] = secret
        return secret

    async def aresolve(self, ref: SecretRef, *, needed_by: str) -> SecretStr:
        if ref.env is not None:
            return self.resolve(ref, needed_by=needed_by)
        return await asyncio.to_thread(self.resolve, ref, needed_by=needed_by)

    def store(self, ref: SecretRef, value: SecretStr | str) -> None:
        """Save a secret into the keyring entry ``ref`` points at (env references cannot be written)."""
        if ref.keyring is None:
            raise ConfigError(f"cannot store a secret into {ref.describe()}: set the variable in your environment instead")
        service, user = ref.keyring_entry
        secret = value if isinstance(value, SecretStr) else SecretStr(value)
        try:
            self._backend().set_password(service, user, secret.get_secret_value())
        except Exception as e:
            raise ConfigError(f"cannot write {ref.describe()}: the keyring is unavailable ({type(e).__name__}: {e})") from e
        self._cache[(service, user)] = secret

    def api_key(self, provider: ProviderSpec) -> SecretStr | None:
        """The provider's API key, or None when it declares none (local servers)."""
        if provider.api_key is None:
            return None
        return self.resolve(provider.api_key, needed_by=f"provider {provider.name!r} (providers.{provider.name}.api_key)")

    def headers(self, provider: ProviderSpec) -> dict[str, str]:
        """Extra HTTP headers with secret references resolved (for the HTTP client only; never log them)."""
        out: dict[str, str] = {}
        for name, value in provider.headers.items():
            if isinstance(value, SecretRef):
                out[name] = self.resolve(
                    value, needed_by=f"provider {provider.name!r} (providers.{provider.name}.headers.{name})"
                ).get_secret_value()
            else:
                out[name] = value
        return out

    def _backend(self) -> KeyringBackend:
        if self._keyring is None:
            try:
                import keyring
            except ImportError as e:
                raise ConfigError("the keyring package is not installed: pip install keyring") from e
            self._keyring = keyring
        return self._keyring

    def __repr__(self) -> str:
        return f"SecretStore(cached={len(self._cache)})"


__all__ = ["KeyringBackend", "SecretRef", "SecretStore"]
