"""Parley's long-term memory from the settings: the one :class:`genx.memory.Memory` the loop, ``parley ask`` and the window use.

* :func:`memory_path`: the database beside the conversations (the user data dir
  by default; a test's or bench's own conversation store keeps its memory with it).
* :func:`build_memory`: ``[memory] enabled`` (off: nothing recalled, extracted
  or written, no file created), ``token_budget``, and with
  ``extract_with_model`` a segmentor + profiler over the answer generator.
* :func:`remote_generator`: the provider a recalled fact is sent to when the
  answer generator is not in-process (the window and the settings dialog say so).

Does not own: the store, recall or extraction (``genx.memory``), the loop's hooks (``genx.agentkit.memory_link``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genx.agentkit.store import ConversationStore, default_root
from genx.memory import Memory, ModelExtractor, default_path

EXTRACTION_TIMEOUT_S = 60.0  # a model extraction runs in the background; a slower one is given up (memory unchanged)

__all__ = ["build_memory", "memory_path", "remote_generator"]


def memory_path(store: ConversationStore | None = None) -> Path:
    """Where the memory lives: the user data dir, or inside a conversation store that is not the default one."""
    if store is None or store.root == default_root():
        return default_path()
    return store.root / "memory.sqlite3"


def build_memory(settings: Any, generators: Any = None, *, path: Path | None = None, generator: str | None = None) -> Memory:
    """The memory ``settings.memory`` asks for; ``generators`` (a GeneratorMux) serves model extraction when it is on."""
    m = settings.memory
    extractor: ModelExtractor | None = None
    if m.enabled and m.extract_with_model and generators is not None:
        from genx.memory.extract import MODEL_ATTRIBUTES
        from genx.profilers.generator import GeneratorProfiler
        from genx.segmentors.generator import GeneratorSegmentor
        from genx.structured import GeneratorRef

        ref = GeneratorRef(generators, generator or settings.loop.generator, timeout_s=EXTRACTION_TIMEOUT_S)
        extractor = ModelExtractor(GeneratorSegmentor(ref), GeneratorProfiler(ref, MODEL_ATTRIBUTES))
    return Memory(path if path is not None else default_path(), enabled=m.enabled, extractor=extractor, token_budget=m.token_budget)


def remote_generator(settings: Any, generator: str | None = None) -> str:
    """Who the answer generator sends its context (recalled facts included) to: the provider's name and
    address (e.g. ``"openai (https://api.openai.com/v1)"``); "" when it runs in-process (kind ``llamacpp``)."""
    name = generator or settings.loop.generator
    for g in settings.generators:
        if g.name != name:
            continue
        kind = g.effective_kind or g.kind or ""
        if kind == "llamacpp":
            return ""
        provider = settings.providers.get(g.provider) if g.provider else None
        url = getattr(provider, "base_url", None) or ""
        who = g.provider or kind or "a model server"
        return f"{who} ({url})" if url else who
    return ""
