"""The text signal: how likely the in-process SmolLM2 thinks the user's message ends here.

As LiveKit's turn detector does with its fine-tuned SmolLM2, the provisional
transcript (its final punctuation removed) is placed as the user's message in
the model's own chat template, without the end-of-message marker, and the
probability of the next token is read: the template's end-of-message token
(``<|im_end|>`` for SmolLM2) plus ``.``, ``?`` and ``!``. A finished question
("What time is it") puts ~0.05-0.9 there, a fragment ("Can you remind me what
the") ~1e-5-1e-3.

Cost: the prompt is the conversation as the answer will see it (the system
prompt and ``context``), so llama.cpp's prompt cache — filled by the voice
loop's prefill after each answer — already holds everything up to the new user
message: one check evaluates only the transcript's tokens (a few ms per token)
and leaves them cached for the answer that follows. It runs on the generator's
context under its generation lock (:meth:`LlamaCppGenerator.run_exclusive`),
waiting at most ``wait_ms`` for an answer that holds it
(:class:`~genx.turn.detector.TurnModelBusyError`).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from genx.generators.llamacpp import LlamaBusyError, chat_messages
from genx.model import ModelContextBuilder
from genx.turn.detector import NO_TRANSCRIPT, TurnModelBusyError, TurnModelError, TurnVerdict

if TYPE_CHECKING:
    from llama_cpp import Llama

    from genx.generators.llamacpp import LlamaCppGenerator
    from genx.model import ModelContext

END_PUNCTUATION = (".", "?", "!")
#: complete at or above (bench/turn_detect.py: questions >= 0.05, fragments <= 0.009 when heard right)
DEFAULT_THRESHOLD = 0.02
_STRIP = ".?!,;:…\"'”’»)] \t\r\n"
_SENTINEL = "\u2063parley-turn\u2063"  # stands for the user's text while the template is rendered
_MARGIN_TOKENS = 16


def strip_final_punctuation(text: str) -> str:
    """``"What time is it?"`` → ``"What time is it"``: the text a next token is predicted after."""
    return text.rstrip(_STRIP)


@lru_cache(maxsize=4)
def _formatter(template: str, eos: str, bos: str) -> Any:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    return Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)


def _template_around_user_text(llm: Llama, messages: list[dict[str, str]]) -> tuple[str, str]:
    """The rendered prompt up to the new user message's text, and what the template puts right after it."""
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise TurnModelError("the GGUF model", "it has no chat template (tokenizer.chat_template)", "use a chat model for the text signal")
    eos, bos = llm.token_eos(), llm.token_bos()
    special = llm._model.token_get_text  # the model's own spelling of its special tokens
    rendered = _formatter(template, special(eos) if eos >= 0 else "", special(bos) if bos >= 0 else "")(
        messages=[*messages, {"role": "user", "content": _SENTINEL}]
    ).prompt
    before, _, after = str(rendered).partition(_SENTINEL)
    return before, after


def end_token_ids(llm: Llama, after_user_text: str) -> list[int]:
    """The end-of-message token (first token after the user's text in the template) and ``.`` ``?`` ``!``."""
    marker = llm.tokenize(after_user_text.encode("utf-8"), add_bos=False, special=True)[:1]
    punct = [llm.tokenize(p.encode("utf-8"), add_bos=False, special=False) for p in END_PUNCTUATION]
    return sorted(set(marker + [t[0] for t in punct if len(t) == 1]))


def next_token_probabilities(llm: Llama, tokens: list[int], threads: int = 1) -> tuple[np.ndarray, int]:  # type: ignore[type-arg]
    """Softmax of the next token after ``tokens``, evaluating only what the KV cache does not hold.

    Returns the probabilities and how many tokens were evaluated. Leaves the
    context holding ``tokens`` (``n_tokens`` / ``input_ids`` kept as ``Llama.eval`` does).
    The few tokens are evaluated on ``threads`` threads (then the model's own
    counts are restored): llama.cpp's worker threads spin, and two of them on a
    busy 2-core machine made a 6-token check take 250-3,800 ms instead of 35-75 ms.
    """
    import llama_cpp

    n = min(len(tokens), llm.n_tokens)
    same = llm.input_ids[:n] == np.asarray(tokens[:n])
    common = n if bool(same.all()) else int(np.argmin(same))
    common = min(common, len(tokens) - 1)  # at least one token is evaluated, so its logits are fresh
    llm.n_tokens = common
    llama_cpp.llama_set_n_threads(llm.ctx, threads, threads)
    try:
        llm.eval(tokens[common:])
    finally:
        llama_cpp.llama_set_n_threads(llm.ctx, llm.n_threads, llm.n_threads_batch)
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)).astype(np.float64)
    p = np.exp(logits - logits.max())
    return p / p.sum(), len(tokens) - common


def end_of_message_probability(llm: Llama, messages: list[dict[str, str]], text: str, threads: int = 1) -> tuple[float, int]:
    """Blocking (hold the model's lock): P(the user message ends after ``text``) and the tokens evaluated."""
    before, after = _template_around_user_text(llm, messages)
    tokens = llm.tokenize((before + text).encode("utf-8"), special=True)
    if len(tokens) > llm.n_ctx() - _MARGIN_TOKENS:  # a long conversation: the system prompt and this text only
        before, after = _template_around_user_text(llm, [m for m in messages if m["role"] == "system"][:1])
        tokens = llm.tokenize((before + text).encode("utf-8"), special=True)
    probs, evaluated = next_token_probabilities(llm, tokens, threads)
    return float(probs[end_token_ids(llm, after)].sum()), evaluated


class TextTurnDetector:
    """Complete when the end-of-message probability of the transcript is at least ``threshold``.

    No transcript (or only punctuation): incomplete with probability 0 and a note.
    """

    __slots__ = ("generator", "threads", "threshold", "wait_ms")

    def __init__(self, generator: LlamaCppGenerator, *, threshold: float = DEFAULT_THRESHOLD, wait_ms: int = 150, threads: int = 1) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"text end-of-turn threshold {threshold!r} must be between 0 and 1")
        self.generator = generator
        self.threshold = threshold
        self.wait_ms = wait_ms
        self.threads = max(1, threads)

    @property
    def name(self) -> str:
        return "text"

    async def warm(self) -> None:
        await self.generator.warm()

    async def check(self, audio: bytes, transcript: str | None = None, *, context: ModelContext | None = None) -> TurnVerdict:
        text = strip_final_punctuation(transcript or "")
        if not text:
            return TurnVerdict(False, 0.0, self.name, note=NO_TRANSCRIPT)
        messages = chat_messages(context if context is not None else ModelContextBuilder().build(), self.generator.system_prompt)
        t0 = time.perf_counter()

        def score(llm: Llama) -> tuple[float, float, int]:
            t1 = time.perf_counter()
            p, evaluated = end_of_message_probability(llm, messages, text, self.threads)
            return p, (time.perf_counter() - t1) * 1000.0, evaluated

        try:
            p, cost, evaluated = await self.generator.run_exclusive(score, wait_s=self.wait_ms / 1000.0)
        except LlamaBusyError as exc:
            raise TurnModelBusyError("the llama.cpp model", exc.waited_s * 1000.0) from exc
        elapsed = (time.perf_counter() - t0) * 1000.0
        return TurnVerdict(p >= self.threshold, p, self.name, cost, elapsed, note=f"{evaluated} tokens evaluated")


__all__ = [
    "DEFAULT_THRESHOLD",
    "END_PUNCTUATION",
    "TextTurnDetector",
    "end_of_message_probability",
    "end_token_ids",
    "next_token_probabilities",
    "strip_final_punctuation",
]
