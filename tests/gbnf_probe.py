"""Ask llama.cpp itself whether a GBNF grammar parses and which texts it admits.

``llama_cpp.LlamaGrammar.from_string`` (0.3.x) only stores the text; parsing
happens when a grammar sampler is created for a vocabulary. So this loads the
default GGUF's vocabulary (no weights) and uses the sampler: a text is admitted
when each of its tokens survives the grammar in turn and end-of-generation is
allowed after the last one.
"""

from __future__ import annotations

import ctypes
import math
from functools import cache

import llama_cpp

from genx.local.models import DEFAULT_LLM


@cache
def _vocab_model() -> llama_cpp.Llama:
    return llama_cpp.Llama(str(DEFAULT_LLM.path()), vocab_only=True, verbose=False)


def _sampler(grammar: str) -> ctypes.c_void_p | None:
    vocab = llama_cpp.llama_model_get_vocab(_vocab_model().model)
    return llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")  # type: ignore[no-any-return]


def compiles(grammar: str) -> bool:
    s = _sampler(grammar)
    if not s:
        return False
    llama_cpp.llama_sampler_free(s)
    return True


def admits(grammar: str, text: str) -> bool:
    model = _vocab_model()
    eos = llama_cpp.llama_vocab_eos(llama_cpp.llama_model_get_vocab(model.model))
    s = _sampler(grammar)
    assert s, "the grammar does not compile"
    try:
        for tok in [*model.tokenize(text.encode("utf-8"), add_bos=False, special=False), eos]:
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(tok, 0.0, 0.0))
            arr = llama_cpp.llama_token_data_array(data, 1, -1, False)
            llama_cpp.llama_sampler_apply(s, ctypes.byref(arr))
            if math.isinf(data[0].logit):
                return False
            if tok != eos:
                llama_cpp.llama_sampler_accept(s, tok)
        return True
    finally:
        llama_cpp.llama_sampler_free(s)
