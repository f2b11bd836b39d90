"""The Q/A prompt format for base (non-instruct) GGUF models, as a llama.cpp chat format.

A base model such as Gemma-3-270m has no chat template: llama-cpp-python would
fall back to Llama-2's ``[INST]`` markers, which such a model never saw. With
``options = { chat_format = "parley-qa" }`` the conversation is written as a
transcript the model continues::

    <system prompt>

    Q: What is the capital of Italy?
    A: The capital of Italy is Rome.

    Q: <the user's message>
    A:

and decoding stops where the model would start the next question. The few-shot
pairs come from the context policy (:data:`genx.prompts.SMALL_MODEL_EXAMPLES`,
added as user/assistant turns for every small model), so this module adds no
examples of its own. :func:`qa_prompt` is pure; :func:`register_qa_format`
registers it with llama-cpp-python (idempotent), done when a model with this
format is loaded (:func:`genx.generators.llamacpp_model.llama_model`).

Does not own: the chat messages themselves (:mod:`genx.generators.llamacpp_prompt`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

QA_CHAT_FORMAT = "parley-qa"

#: Where the answer ends: the model starting the next question (or a blank line before it).
QA_STOP = ("\nQ:", "\n\n", "<end_of_turn>")

_LABELS = {"user": "Q", "assistant": "A"}
_registered = threading.Lock()
_done: list[bool] = []


def _oneline(text: str) -> str:
    """A turn's text on one line: a blank line inside it would read as the end of the answer."""
    return " ".join(text.split())


def qa_prompt(messages: Iterable[Mapping[str, Any]]) -> str:
    """The transcript of ``messages`` (OpenAI-style roles), ending with ``A:`` for the model to continue.

    System messages lead (in order, as plain text); user and assistant turns become
    ``Q:`` / ``A:`` lines (consecutive turns of one role joined, a blank line before
    each question); when the last turn is a question, an open ``A:`` follows it.
    """
    system: list[str] = []
    turns: list[tuple[str, str]] = []
    for m in messages:
        role = str(m.get("role", "user"))
        content = m.get("content") or ""
        text = _oneline(content if isinstance(content, str) else " ".join(str(p.get("text", "")) for p in content))
        if not text:
            continue
        if role == "system":
            system.append(text)
            continue
        label = _LABELS.get(role, "Q")
        if turns and turns[-1][0] == label:
            turns[-1] = (label, turns[-1][1] + " " + text)
        else:
            turns.append((label, text))
    lines: list[str] = []
    for label, text in turns:
        if label == "Q" and lines:
            lines.append("")
        lines.append(f"{label}: {text}")
    if not turns or turns[-1][0] == "Q":
        lines.append("A:")
    head = "\n".join(system)
    return (head + "\n\n" if head else "") + "\n".join(lines)


def register_qa_format() -> None:
    """Make ``chat_format = "parley-qa"`` known to llama-cpp-python (once per process)."""
    with _registered:
        if _done:
            return
        from llama_cpp import llama_chat_format

        def formatter(messages: list[Mapping[str, Any]], **_: Any) -> Any:
            return llama_chat_format.ChatFormatterResponse(prompt=qa_prompt(messages), stop=list(QA_STOP))

        llama_chat_format.register_chat_format(QA_CHAT_FORMAT)(formatter)
        _done.append(True)


__all__ = ["QA_CHAT_FORMAT", "QA_STOP", "qa_prompt", "register_qa_format"]
