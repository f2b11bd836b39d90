"""ConfigError and the readable rendering of pydantic / TOML failures."""

from __future__ import annotations

import json
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from genx.errors import GenxError

# Keys whose values may be credentials: never echo what the user wrote there.
_SENSITIVE = ("api_key", "headers", "key", "token", "secret", "password")


#: pydantic error type raised by model-level cross-reference checks (see ``reference_error``).
REFERENCE_ERROR = "config_reference"


class ConfigError(GenxError, ValueError):
    """A configuration the user must fix: names the file, the key path and what is expected.

    ``problems`` lists every ``"<key>: <what is wrong>"`` line when validation
    found several at once.
    """

    def __init__(self, message: str, *, source: str | Path | None = None, key: str | None = None, problems: Sequence[str] = ()) -> None:
        self.source = str(source) if source is not None else None
        self.key = key
        self.detail = message
        self.problems = list(problems) if problems else [f"{key}: {message}" if key else message]
        where = f"{self.source}: " if self.source else ""
        at = f"{key}: " if key else ""
        super().__init__(f"{where}{at}{message}")


def key_path(loc: Sequence[int | str]) -> str:
    """``("generators", 0, "params", "top_p")`` → ``generators[0].params.top_p``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.replace("_", "").replace("-", "").isalnum():
            out += f".{part}" if out else part
        else:  # a quoted key, escaped as a TOML basic string: "a.b", "\"", ""
            quoted = json.dumps(part, ensure_ascii=False)
            out += f".{quoted}" if out else quoted
    return out


def from_validation_error(exc: ValidationError, *, source: str | Path | None, root: type[BaseModel] | None = None) -> ConfigError:
    """One ConfigError listing every problem, each with its key path and what is expected."""
    problems: list[str] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        key = key_path(loc) or "(top level)"
        etype = err["type"]
        ctx = err.get("ctx") or {}
        if etype == REFERENCE_ERROR and isinstance(ctx.get("problems"), list):
            # Cross-reference checks of a whole model carry their own key paths.
            prefix = f"{key_path(loc)}." if loc else ""
            problems.extend(f"{prefix}{p}" for p in ctx["problems"])
        elif etype == "extra_forbidden":
            allowed = _fields_at(root, loc[:-1]) if root is not None else None
            hint = f"; expected one of: {', '.join(allowed)}" if allowed else "; check the spelling"
            problems.append(f"{key}: unknown key{hint}")
        elif etype == "missing":
            problems.append(f"{key}: required key is missing")
        else:
            msg = str(err["msg"])
            problems.append(f"{key}: {msg}{_got(loc, err.get('input'))}")
    if len(problems) == 1:
        key, _, what = problems[0].partition(": ")
        return ConfigError(what, source=source, key=key, problems=problems)
    return ConfigError(f"{len(problems)} problems:\n  " + "\n  ".join(problems), source=source, problems=problems)


def reference_error(problems: Sequence[str]) -> PydanticCustomError:
    """A model-validator error carrying ``"<key path>: <what>"`` lines (rendered one per line)."""
    return PydanticCustomError(REFERENCE_ERROR, "{detail}", {"detail": "; ".join(problems), "problems": list(problems)})


def _got(loc: Sequence[int | str], value: Any) -> str:
    if any(isinstance(p, str) and any(s in p.lower() for s in _SENSITIVE) for p in loc):
        return ""
    if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= 40):
        return f" (got {value!r})"
    if isinstance(value, dict | list):
        return f" (got a {'table' if isinstance(value, dict) else 'list'})"
    return ""


def _fields_at(root: type[BaseModel], loc: Sequence[int | str]) -> list[str] | None:
    """Best effort: the keys allowed at ``loc`` (None when the type there is ambiguous)."""
    tp: Any = root
    for part in loc:
        tp = _unwrap(tp)
        if tp is None:
            return None
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if not isinstance(part, str) or part not in tp.model_fields:
                return None
            tp = tp.model_fields[part].annotation
            continue
        origin = get_origin(tp)
        args = get_args(tp)
        if origin in (list, tuple, Sequence) and isinstance(part, int) and args:
            tp = args[0]
        elif origin is dict and len(args) == 2:
            tp = args[1]
        else:
            return None
    tp = _unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return list(tp.model_fields)
    return None


def _unwrap(tp: Any) -> Any:
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp = get_args(tp)[0]
        elif origin is Union or origin is types.UnionType:
            members = [a for a in get_args(tp) if a is not type(None)]
            models = [a for a in members if isinstance(a, type) and issubclass(a, BaseModel)]
            # A model beside scalars (e.g. `str | SecretRef`) is still the only place keys live.
            if len(models) == 1:
                tp = models[0]
            elif len(members) == 1:
                tp = members[0]
            else:
                return None
        else:
            return tp


__all__ = ["REFERENCE_ERROR", "ConfigError", "from_validation_error", "key_path", "reference_error"]
