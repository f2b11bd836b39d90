"""The llama.cpp model: its options, loading a GGUF file once per process, and the generator's errors.

Does not own: formatting a conversation (:mod:`genx.generators.llamacpp_prompt`),
decoding (:mod:`genx.generators.llamacpp_decode`), the generator
(:mod:`genx.generators.llamacpp`).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from genx.errors import GenxError
from genx.generators.llamacpp_qa import QA_CHAT_FORMAT, register_qa_format
from genx.local.models import DEFAULT_LLM, ModelLoadError, SharedModel, find_model, require_module

if TYPE_CHECKING:
    from llama_cpp import Llama


class LlamaError(GenxError):
    """Base of the llama.cpp generator's own errors."""


class EmptyPromptError(LlamaError, ValueError):
    def __init__(self) -> None:
        super().__init__("nothing to answer: the model context has no user, assistant or tool message with text; add a user message")


class LlamaBusyError(LlamaError):
    """The model stayed busy (another call held its lock) longer than a short exclusive use may wait."""

    def __init__(self, waited_s: float) -> None:
        self.waited_s = waited_s
        super().__init__(f"the llama.cpp model was busy for {waited_s * 1000:.0f} ms; try again when the current answer has finished")


@dataclass(frozen=True, slots=True)
class LlamaOptions:
    path: str | None = None  # a GGUF file; None = the packaged SmolLM2-135M-Instruct
    n_ctx: int = 2048
    n_threads: int = 0  # token generation; 0 = half the cores (the other half synthesizes the answer's speech)
    n_threads_batch: int = 0  # prompt evaluation; 0 = all cores
    n_batch: int = 256
    chat_format: str | None = None  # None = the template inside the GGUF; "parley-qa": a Q/A transcript (base models)
    nice: int = 0  # Linux: decode at this nice increment (0 = off; see the module docstring before raising it)

    def threads(self) -> int:
        return self.n_threads if self.n_threads > 0 else max(1, (os.cpu_count() or 1) // 2)

    def threads_batch(self) -> int:
        return self.n_threads_batch if self.n_threads_batch > 0 else max(1, os.cpu_count() or 1)


@dataclass(slots=True)
class LoadedLlama:
    llm: Llama
    lock: threading.Lock = field(default_factory=threading.Lock)


def check_gguf(path: Path) -> None:
    """:class:`ModelLoadError` unless ``path`` is a readable file starting with the GGUF magic."""
    if path.is_dir():
        raise ModelLoadError("GGUF model", path, "this is a folder; point to the .gguf file inside it")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelLoadError("GGUF model", path, exc) from exc
    if magic != b"GGUF":
        raise ModelLoadError("GGUF model", path, f"not a GGUF file (starts with {magic!r}, expected b'GGUF')")


def llama_model(options: LlamaOptions) -> SharedModel[LoadedLlama]:
    require_module("llama_cpp", "llama-cpp-python", "the local LLM")
    path = find_model(options.path, DEFAULT_LLM)
    threads, threads_batch = options.threads(), options.threads_batch()

    def load() -> LoadedLlama:
        check_gguf(path)
        from llama_cpp import Llama

        if options.chat_format == QA_CHAT_FORMAT:
            register_qa_format()

        try:
            llm = Llama(
                model_path=str(path),
                n_ctx=options.n_ctx,
                n_threads=threads,
                n_threads_batch=threads_batch,
                n_batch=options.n_batch,
                chat_format=options.chat_format,
                verbose=False,
            )
        except Exception as exc:
            raise ModelLoadError("GGUF model", path, exc) from exc
        return LoadedLlama(llm)

    key = ("llama", str(path.resolve()), options.n_ctx, threads, threads_batch, options.n_batch, options.chat_format)
    return SharedModel(key, load, f"GGUF model {path.name}")


__all__ = ["EmptyPromptError", "LlamaBusyError", "LlamaError", "LlamaOptions", "LoadedLlama", "check_gguf", "llama_model"]
