"""One llama.cpp decoding run on a thread of its own: the run's shared state, decoding, prefill, the stream it fills.

Does not own: building the run's messages and arguments (:mod:`genx.generators.llamacpp_prompt`),
the generator that starts runs (:mod:`genx.generators.llamacpp`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from genx.generators.llamacpp_model import LoadedLlama
from genx.generators.llamacpp_prompt import fit_messages
from genx.local.models import SharedModel
from genx.model import Usage
from genx.stream import BuiltStream, StreamBuilder
from genx.threads import start_thread

log = logging.getLogger("genx.generators.llamacpp")

CONTEXT_MARGIN_TOKENS = 16


@dataclass(slots=True)
class Run:
    """What one decoding run shares between its worker thread and the event loop."""

    stop: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    prompt_tokens: int = 0
    generated_tokens: int = 0
    tokens_after_stop: int = 0  # tokens decoded after stop was set (cancellation latency, in tokens)
    finish_reason: str = ""
    note: str = ""


def decode(
    model: SharedModel[LoadedLlama], messages: list[dict[str, str]], kwargs: dict[str, Any], run: Run, on_text: Callable[[str], None]
) -> None:
    """Blocking: wait for the model, decode, call ``on_text`` per delta. Sets ``run.finished``."""
    try:
        loaded = model.get()
        while not loaded.lock.acquire(timeout=0.05):
            if run.stop.is_set():
                run.finish_reason = "cancelled"
                return
        try:
            if run.stop.is_set():
                run.finish_reason = "cancelled"
                return
            llm = loaded.llm
            budget = llm.n_ctx() - int(kwargs.get("max_tokens") or 0) - CONTEXT_MARGIN_TOKENS
            fitted, run.note = fit_messages(messages, lambda s: len(llm.tokenize(s.encode("utf-8"), add_bos=False, special=True)), budget)
            if run.note:
                log.warning("llama.cpp: the conversation does not fit n_ctx=%d: %s", llm.n_ctx(), run.note)
            if kwargs.get("seed") is not None:
                # A reused KV-cache prefix changes the logits slightly (other batch shapes): a seeded
                # call evaluates the whole prompt so the same seed gives the same answer.
                llm.reset()  # type: ignore[no-untyped-call]
            stream: Iterator[Any] = iter(llm.create_chat_completion(fitted, stream=True, **kwargs))  # type: ignore[arg-type]
            try:
                for chunk in stream:
                    if run.stop.is_set():
                        run.tokens_after_stop += 1
                        run.finish_reason = "cancelled"
                        break
                    choice = chunk["choices"][0]
                    text = choice["delta"].get("content") or ""
                    if text:
                        if run.generated_tokens == 0:
                            run.prompt_tokens = llm.n_tokens
                        run.generated_tokens += 1
                        on_text(text)
                    reason = choice.get("finish_reason")
                    if reason:
                        run.finish_reason = str(reason)
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
        finally:
            loaded.lock.release()
    finally:
        run.finished.set()


def prefill(model: SharedModel[LoadedLlama], messages: list[dict[str, str]], result: list[bool]) -> None:
    """Blocking: evaluate ``messages`` (ending with an empty user message) into the KV cache, unless the model is busy."""
    loaded = model.get()
    if not loaded.lock.acquire(timeout=0.2):
        result.append(False)
        return
    try:
        llm = loaded.llm
        budget = llm.n_ctx() - 256 - CONTEXT_MARGIN_TOKENS
        fitted, note = fit_messages(messages, lambda s: len(llm.tokenize(s.encode("utf-8"), add_bos=False, special=True)), budget)
        if note:  # the real prompt will be trimmed its own way: nothing to gain
            result.append(False)
            return
        # the same formatting path as a real answer; llama.cpp reuses the longest common token prefix, so
        # the next prompt evaluates only from where the new user message starts
        llm.create_chat_completion(fitted, max_tokens=1, temperature=0.0)  # type: ignore[arg-type]
        result.append(True)
    finally:
        loaded.lock.release()


def run_in_own_thread(loop: asyncio.AbstractEventLoop, nice: int, fn: Callable[..., None], *args: Any) -> asyncio.Future[None]:
    """Run ``fn(*args)`` in a new thread at ``nice`` (Linux; a pool thread could not get its priority back).

    Not a daemon: the interpreter waits for it at exit (a daemon still inside llama.cpp while Python
    finalizes crashed the app on quit); decoding stops within a token once its stream is closed.
    ``loop`` must be the running loop (the future settles there).
    """
    return start_thread(lambda: fn(*args), name="llama.cpp-decode", daemon=False, nice=nice)


class LlamaStream(BuiltStream):
    """The stream of :meth:`LlamaCppGenerator.generate_stream`; ``usage`` / ``finish_reason`` once ended.

    ``run_finished`` is a ``threading.Event`` set when the worker thread has stopped
    decoding (after the end, or after a close).
    """

    __slots__ = ("_run", "finish_reason", "stream_id", "usage")

    def __init__(self, builder: StreamBuilder, run: Run, stream_id: str) -> None:
        super().__init__(builder)
        self._run = run
        self.stream_id = stream_id
        self.usage: Usage | None = None
        self.finish_reason = ""

    @property
    def run_finished(self) -> threading.Event:
        return self._run.finished

    @property
    def tokens_after_stop(self) -> int:
        return self._run.tokens_after_stop


__all__ = ["LlamaStream", "Run", "decode", "prefill", "run_in_own_thread"]
