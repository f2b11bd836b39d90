"""What llama.cpp is given: the conversation as chat messages (fitted to ``n_ctx``) and the sampling arguments.

Pure (no model): :func:`chat_messages`, :func:`fit_messages`,
:func:`sampling_kwargs` and :func:`constrained_decoding` (the one place grammar
arguments are built). Does not own: decoding (:mod:`genx.generators.llamacpp_decode`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from genx.chunk import Message, Role, Text
from genx.generators.llamacpp_model import LlamaError
from genx.model import ModelContext, ModelParams

#: ModelParams.extra keys passed to llama.cpp as they are; any other key is rejected.
EXTRA_KEYS = frozenset({"min_p", "typical_p", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta", "logit_bias"})
#: ModelParams.extra keys that constrain decoding (see :func:`constrained_decoding`).
CONSTRAINT_KEYS = frozenset({"grammar", "json_schema"})

MESSAGE_OVERHEAD_TOKENS = 8  # role markers of one turn in the chat template


class UnsupportedLlamaSettingError(LlamaError, ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"ModelParams.extra[{key!r}] is not a llama.cpp sampling setting; "
            f"supported extras: {', '.join(sorted(EXTRA_KEYS | CONSTRAINT_KEYS))}"
        )


def chat_messages(ctx: ModelContext, default_system: str) -> list[dict[str, str]]:
    """OpenAI-style messages for the chat template. Tool traffic becomes plain text turns."""
    system = "\n\n".join(p.text for p in ctx.prompts() if p.text.strip()) or default_system
    cots = [c for c in ctx.cots() if c.strip()]
    if cots:
        system += "\n\n" + "\n".join(cots)
    out: list[dict[str, str]] = [{"role": "system", "content": system}] if system else []
    for m in ctx.messages():
        role, content = _message_text(m)
        if not content.strip():
            continue
        if out and out[-1]["role"] == role and role != "system":
            out[-1]["content"] += "\n" + content
        else:
            out.append({"role": role, "content": content})
    return out


def _message_text(m: Message) -> tuple[str, str]:
    text = "".join(p.text for p in m.parts if isinstance(p, Text))
    if m.role == Role.TOOL or m.tool_result is not None:
        r = m.tool_result
        name = r.name if r is not None else m.name
        content = r.content if r is not None else text
        return "user", f"[result of {name}{' (error)' if r is not None and r.is_error else ''}]: {content}"
    if m.role == Role.ASSISTANT:
        calls = "".join(f"\n[called {c.name}({c.arguments})]" for c in m.tool_calls)
        return "assistant", text + calls
    if m.role == Role.SYSTEM:
        return "system", text
    return "user", text


def fit_messages(messages: list[dict[str, str]], count: Callable[[str], int], budget: int) -> tuple[list[dict[str, str]], str]:
    """Drop the oldest non-system turns, then shorten the longest message, until ``budget`` tokens fit.

    Returns the messages and a note of what was cut ("" when nothing was).
    """
    msgs = [dict(m) for m in messages]
    sizes = [count(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in msgs]
    total = sum(sizes)
    if total <= budget:
        return msgs, ""
    notes: list[str] = []
    dropped = 0
    while total > budget:
        first = next((i for i, m in enumerate(msgs) if m["role"] != "system"), None)
        last_user = max((i for i, m in enumerate(msgs) if m["role"] != "system"), default=None)
        if first is None or first == last_user:
            break
        total -= sizes.pop(first)
        msgs.pop(first)
        dropped += 1
    if dropped:
        notes.append(f"dropped the {dropped} oldest message(s)")
    for _ in range(6):
        if total <= budget:
            break
        i = max(range(len(msgs)), key=lambda k: sizes[k])
        content = msgs[i]["content"]
        over = total - budget
        keep_tokens = max(8, sizes[i] - MESSAGE_OVERHEAD_TOKENS - over)
        keep_chars = max(16, int(len(content) * keep_tokens / max(1, sizes[i] - MESSAGE_OVERHEAD_TOKENS) * 0.95))
        head = keep_chars // 3
        short = content[:head] + " … " + content[len(content) - (keep_chars - head) :]
        msgs[i]["content"] = short
        new_size = count(short) + MESSAGE_OVERHEAD_TOKENS
        notes.append(f"shortened a {msgs[i]['role']} message from {len(content)} to {len(short)} characters")
        total += new_size - sizes[i]
        sizes[i] = new_size
    return msgs, "; ".join(notes)


def sampling_kwargs(params: ModelParams) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if params.max_tokens is not None:
        kw["max_tokens"] = params.max_tokens
    if params.temperature is not None:
        kw["temperature"] = params.temperature
    if params.top_p is not None:
        kw["top_p"] = params.top_p
    if params.top_k is not None:
        kw["top_k"] = params.top_k
    if params.stop:
        kw["stop"] = list(params.stop)
    if params.frequency_penalty is not None:
        kw["frequency_penalty"] = params.frequency_penalty
    if params.presence_penalty is not None:
        kw["presence_penalty"] = params.presence_penalty
    if params.repeat_penalty is not None:
        kw["repeat_penalty"] = params.repeat_penalty
    if params.seed is not None:
        kw["seed"] = params.seed
    for key, value in params.extra.items():
        if key in CONSTRAINT_KEYS:
            continue
        if key not in EXTRA_KEYS:
            raise UnsupportedLlamaSettingError(key)
        kw[key] = value
    kw.update(constrained_decoding(grammar=params.extra.get("grammar"), json_schema=params.extra.get("json_schema")))
    return kw


def constrained_decoding(*, grammar: str | None = None, json_schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``create_chat_completion`` arguments that constrain decoding: a GBNF grammar, or a JSON Schema; ``{}`` for neither.

    The one place grammar arguments are built (``generate_stream`` through
    :func:`sampling_kwargs`, and ``invoke``). ``grammar`` is GBNF text with a
    ``root`` rule; it is parsed by llama.cpp when decoding starts (a bad grammar
    ends the stream with llama.cpp's error). ``json_schema`` becomes llama.cpp's
    own schema-to-grammar conversion (``response_format``).
    """
    if grammar is not None and json_schema is not None:
        raise LlamaError("constrain decoding with a grammar or a JSON schema, not both")
    if grammar is not None:
        if not isinstance(grammar, str) or "root" not in grammar:
            raise LlamaError("ModelParams.extra['grammar'] must be GBNF text with a 'root' rule")
        from llama_cpp.llama_grammar import LlamaGrammar

        return {"grammar": LlamaGrammar.from_string(grammar, verbose=False)}
    if json_schema is not None:
        if not isinstance(json_schema, Mapping):
            raise LlamaError("ModelParams.extra['json_schema'] must be a JSON Schema object (a dict)")
        return {"response_format": {"type": "json_object", "schema": dict(json_schema)}}
    return {}


__all__ = [
    "CONSTRAINT_KEYS",
    "EXTRA_KEYS",
    "UnsupportedLlamaSettingError",
    "chat_messages",
    "constrained_decoding",
    "fit_messages",
    "sampling_kwargs",
]
