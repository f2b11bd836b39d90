"""faster-whisper decoding of one clip: the :class:`Decoder` protocol, its options and :class:`WhisperDecoder`.

Owns: how a Whisper model (a CTranslate2 directory: the packaged tiny.en, the
joined multilingual base of :mod:`genx.local.joined`, or any configured path) is
loaded once per process and how one clip is decoded (short encoder windows,
greedy partials, beam search and a context prompt on finals only).

Does not own: utterance routes, partials' scheduling and finals' order
(:mod:`genx.local.asr`), where the context prompt comes from (the voice loop
puts the conversation's last turn on each utterance route's BOS, see
:mod:`genx.agentkit.asr_feed`).
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from genx.local.models import DEFAULT_WHISPER, ModelLoadError, SharedModel, find_model, require_module
from genx.local.whisper_verify import forced_scores, should_check, verdict

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

log = logging.getLogger("genx.local.asr")

_WORD_STRIP = re.compile(r"[^\w']+")

Audio = npt.NDArray[np.float32]


class Decoder(Protocol):
    """Speech to text for one clip of 16 kHz mono float32 audio. Blocking; thread-safe.

    ``prompt`` (finals only) is text said just before the clip, e.g. the
    conversation's last turn; a decoder may use it as context or ignore it.
    ``over_answer``: the clip was spoken over the assistant's answer and its words
    decide whether the answer stops; a decoder leaves out any fixed initial prompt.
    ``listen_for`` (with ``over_answer``): phrases the speaker may be saying there (the
    stop phrases); a decoder may check a short reading against them.
    """

    def decode(
        self, audio: Audio, final: bool, prompt: str = "", *, over_answer: bool = False, listen_for: tuple[str, ...] = ()
    ) -> str: ...


@dataclass(frozen=True, slots=True)
class WhisperOptions:
    """How the model is loaded (part of the process-wide cache key) and decoded."""

    path: str | None = None  # model directory; None = the packaged tiny.en
    compute_type: str = "int8"
    cpu_threads: int = 0  # 0 = all cores
    num_workers: int = 2
    language: str | None = "en"
    beam_size: int = 1  # partials (and finals unless final_beam_size is set)
    final_beam_size: int | None = None  # None = beam_size
    initial_prompt: str | None = None  # fixed text before every clip (vocabulary hints)
    final_initial_prompt: str | None = None  # finals: this fixed text instead (None = initial_prompt); partials never see
    # it, nor speech over the answer (its conversational words prime listener talk there: "Hold on." read "Got it.")
    context_prompt: bool = False  # finals: the route's prompt (the conversation's last turn) as Whisper's previous text
    prompt_words: int = 40  # at most this many of its last words
    # finals over the answer: a reading of at most listen_max_words words holding none of the route's listen_for
    # phrases is replaced by the best phrase scoring within listen_margin of it (genx.local.whisper_verify)
    listen_max_words: int = 4
    listen_margin: float = 1.0  # log-probability; 0 = off
    listen_floor: float = -8.0  # ... and only a phrase scoring at least this (a murmur read as nonsense is no stop)
    # beam search (both the short-window and the 30 s path; CTranslate2's ``generate`` options)
    patience: float = 1.0  # a beam stops after patience x beam finished hypotheses
    length_penalty: float = 1.0  # a hypothesis scores its log-probability over length**length_penalty
    repetition_penalty: float = 1.0  # > 1 makes tokens already generated less likely
    no_repeat_ngram_size: int = 0  # > 0: no n-gram of this size is generated twice
    no_speech_threshold: float | None = 0.6
    log_prob_threshold: float | None = -1.0
    # encoder window (s) for clips that fit it with window_margin_s to spare; None = always 30 s (see WhisperDecoder)
    window_s: float | None = 10.0
    window_margin_s: float = 4.0
    # a clip this short whose short-window reading only loops ("Stop. Stop. Stop. Stop.") is read as the looped words
    # once, not decoded again in 30 s (5x the cost: a stop over the answer is such a clip); 0 = always again in 30 s
    loop_once_max_s: float = 2.0

    def threads(self) -> int:
        return self.cpu_threads if self.cpu_threads > 0 else max(1, os.cpu_count() or 1)

    def beam(self, final: bool) -> int:
        return (self.final_beam_size or self.beam_size) if final else self.beam_size

    def search(self, final: bool) -> dict[str, Any]:
        """The search options of one decode, by the names CTranslate2's ``generate`` and faster-whisper's ``transcribe`` share."""
        return {
            "beam_size": self.beam(final),
            "patience": self.patience,
            "length_penalty": self.length_penalty,
            "repetition_penalty": self.repetition_penalty,
            "no_repeat_ngram_size": self.no_repeat_ngram_size,
        }

    def previous_text(self, final: bool, prompt: str, *, over_answer: bool = False) -> str:
        """What Whisper is told came before the clip: the fixed prompt, then (finals) the context's last words.

        Speech over the answer (``over_answer``) gets ``initial_prompt`` (vocabulary hints), never the finals' fixed text.
        """
        use_final = final and self.final_initial_prompt is not None and not over_answer
        fixed = self.final_initial_prompt if use_final else self.initial_prompt
        parts = [fixed.strip()] if fixed and fixed.strip() else []
        if final and self.context_prompt and prompt.strip():
            parts.append(" ".join(prompt.split()[-max(1, self.prompt_words) :]))
        return " ".join(parts)


def whisper_model(options: WhisperOptions) -> SharedModel[WhisperModel]:
    """The shared, lazily loaded ``WhisperModel`` for these load options."""
    require_module("faster_whisper", "faster-whisper", "the local ASR")
    path = find_model(options.path, DEFAULT_WHISPER)
    threads, workers, compute = options.threads(), max(1, options.num_workers), options.compute_type

    def load() -> WhisperModel:
        import tqdm
        from faster_whisper import WhisperModel

        # faster-whisper makes a (disabled) tqdm bar per 30 s transcription, and tqdm starts a monitor thread for
        # the first bar that then lives as long as the process: no bar here is ever shown, so no monitor either
        tqdm.tqdm.monitor_interval = 0

        from genx.local.joined import require_joined

        require_joined(path)  # a split model whose parts were never joined: say how to join them
        if not (path / "model.bin").exists():
            raise ModelLoadError("Whisper model (CTranslate2 directory with model.bin)", path, "model.bin is missing")
        try:
            return WhisperModel(
                str(path), device="cpu", compute_type=compute, cpu_threads=threads, num_workers=workers, local_files_only=True
            )
        except Exception as exc:
            raise ModelLoadError("Whisper model (CTranslate2)", path, exc) from exc

    return SharedModel(("whisper", str(path.resolve()), compute, threads, workers), load, f"Whisper model {path}")


WHISPER_WINDOW_S = 30.0


def encoder_window_s(duration_s: float, window_s: float | None, margin_s: float) -> float:
    """The encoder window for a clip: ``window_s`` while the clip fits it with ``margin_s`` to spare, else longer (≤ 30 s)."""
    if window_s is None:
        return WHISPER_WINDOW_S
    return min(WHISPER_WINDOW_S, max(window_s, math.ceil(duration_s + margin_s)))


def _words(text: str) -> list[str]:
    return [x for x in (_WORD_STRIP.sub("", t.lower()) for t in text.split()) if x]


def plausible_transcript(text: str, duration_s: float) -> bool:
    """False for what a shortened encoder window tends to hallucinate: the start said again, or too many words for the audio."""
    w = _words(text)
    if len(w) > 5.0 * duration_s + 4:
        return False
    if any(w[i] == w[i + 1] == w[i + 2] == w[i + 3] for i in range(len(w) - 3)):
        return False  # one word looping ("clean, clean, clean, clean")
    # the first k words said again (or at least their first three) right after them
    return not any(w[k : k + min(k, 3)] == w[: min(k, 3)] for k in range(2, len(w) - 1) if len(w) - k >= min(k, 3))


def said_once(text: str) -> str | None:
    """The words ``text`` loops, said once ("Stop. Stop. Stop. Stop." → "Stop.", "Tell me. Tell me. Tell" → "Tell
    me."), or None when ``text`` does not only repeat its first words. Punctuation is the first time's."""
    said = [(t, bare) for t in text.split() if (bare := _WORD_STRIP.sub("", t.lower()))]  # as written, and as _words has it
    w = [bare for _, bare in said]
    for k in range(1, len(w)):
        if len(w) - k >= min(k, 3) and all(w[i] == w[i % k] for i in range(k, len(w))):
            return " ".join(t for t, _ in said[:k])
    return None


def echoes(text: str, context: str) -> bool:
    """True when ``text`` (2 words or more) is only a run of the context's words: what noise decodes to with the
    context as Whisper's previous text ("The capital of Australia is" after "… The capital of Australia is Canberra")."""
    w, c = _words(text), _words(context)
    return len(w) >= 2 and any(c[i : i + len(w)] == w for i in range(len(c) - len(w) + 1))


def _encode(model: WhisperModel, audio: Audio, window_s: float, *, to_cpu: bool) -> Any:
    """Whisper's encoder output for ``audio`` in a ``window_s`` window (features cut or zero-padded to it)."""
    from faster_whisper.transcribe import get_ctranslate2_storage

    frames = int(window_s * 100)
    feats = model.feature_extractor(audio)[:, :frames]
    feats = np.pad(feats, ((0, 0), (0, frames - feats.shape[-1])))
    return model.model.encode(get_ctranslate2_storage(np.ascontiguousarray(feats[None])), to_cpu=to_cpu)


def _tokenizer(model: WhisperModel, language: str | None) -> Any:
    from faster_whisper.tokenizer import Tokenizer

    return Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language or "en")


class WhisperDecoder:
    """faster-whisper tuned for short utterances: English, no timestamps, no VAD filter.

    Short windows: Whisper's encoder is trained on 30 s windows, and faster-whisper
    always pads a clip's features to 30 s; the encoder is most of a short clip's
    cost (~310 of ~400 ms for 2 s of speech on 2 cores). CTranslate2 (≥ 4) also
    encodes shorter feature windows, so a clip that fits ``window_s`` with
    ``window_margin_s`` to spare is decoded in a ``window_s`` window with the same
    prompt, token suppression and no-speech rule as faster-whisper's greedy
    pass. Measured on 63 short English clips (piper and espeak-ng voices): 10 s
    windows gave WER 0.131 vs 0.145 at 30 s, 3.1x faster (median 166 vs 519 ms);
    8 s or less made the model repeat the sentence. A transcript that still looks
    hallucinated (:func:`plausible_transcript`), or a CTranslate2 that refuses the
    window, falls back to the full 30 s decode; but a clip of at most ``loop_once_max_s``
    whose reading only loops its first words is read as those words once
    (:func:`said_once`): a "Stop." over the answer, 0.5-0.6 s, loops that way in a
    10 s window, and its 30 s decode took 900 ms on an idle machine (170 ms in 10 s), 2-5 s
    while the answer was being synthesized, long enough for the answer to end before the
    stop was understood.

    Finals may decode with a beam (``final_beam_size``), a fixed prompt of their own
    (``final_initial_prompt``) and the route's context as Whisper's previous text
    (``context_prompt``); partials stay greedy and without them (they are
    re-decoded often and only shown). A final that only
    repeats a run of its previous text's words (:func:`echoes`: what noise decodes to with
    the context, or the fixed prompt, as previous text) is decoded again without previous text. See
    ``bench/asr_wer.py`` for what each costs and gains.
    """

    def __init__(self, options: WhisperOptions | None = None) -> None:
        self.options = options or WhisperOptions()
        self.model = whisper_model(self.options)
        self._short: tuple[Any, list[int]] | None = None  # tokenizer, suppressed tokens
        self._short_ok = self.options.window_s is not None
        self.short_decodes = 0
        self.full_decodes = 0
        self.echo_decodes = 0  # finals that only repeated the context, decoded again without previous text
        self.listened = 0  # finals over the answer taken as one of the phrases listened for

    async def warm(self) -> None:
        await self.model.warm()

    def decode(self, audio: Audio, final: bool, prompt: str = "", *, over_answer: bool = False, listen_for: tuple[str, ...] = ()) -> str:
        o = self.options
        model = self.model.get()
        previous = o.previous_text(final, prompt, over_answer=over_answer)
        text, encoded = self._decode(model, audio, final, previous)
        # the fixed prompt counts too: a route without context (speech over the answer) has only it to echo
        if previous and echoes(text, previous):
            self.echo_decodes += 1
            log.debug("Whisper final %r only repeats the context; decoding again without previous text", text)
            text, _ = self._decode(model, audio, final, "", encoded)  # a fixed prompt alone makes such noise read "Okay."
        if final and over_answer and o.listen_margin > 0 and encoded is not None and should_check(text, listen_for, o.listen_max_words):
            heard = self._listen(model, encoded, text, listen_for)
            if heard is not None:
                self.listened += 1
                log.debug("Whisper read %r over the answer; %r scores as well: taken", text, heard)
                return heard
        return text

    def _listen(self, model: WhisperModel, encoded: Any, text: str, phrases: tuple[str, ...]) -> str | None:
        """The phrase of ``phrases`` to take instead of the free reading ``text``, or None (whisper_verify); only
        where the short window decodes (``encoded``: its encoder output; a long clip is no misheard stop)."""
        o = self.options
        assert self._short is not None  # set by the short-window decode that made ``encoded``
        scores = forced_scores(model, self._short[0], np.asarray(encoded), [text, *phrases])
        return verdict(scores[0], dict(zip(phrases, scores[1:], strict=True)), o.listen_margin, floor=o.listen_floor)

    def phrase_scores(self, audio: Audio, phrases: Sequence[str]) -> tuple[str, float, float]:
        """A short clip's free (final, prompt-free) reading, its forced-decoding score and the best score of
        ``phrases`` on the same encoded audio (``whisper_verify.forced_scores``)."""
        model = self.model.get()
        text, encoded = self._decode(model, audio, True, "")
        if encoded is None or self._short is None:  # decoded in 30 s only: score in 30 s too
            encoded = _encode(model, audio, WHISPER_WINDOW_S, to_cpu=True)
        tok = self._short[0] if self._short is not None else _tokenizer(model, self.options.language)
        scores = forced_scores(model, tok, np.asarray(encoded), [text, *phrases])
        return text, scores[0], max(scores[1:], default=float("-inf"))

    def _decode(self, model: WhisperModel, audio: Audio, final: bool, previous: str, encoded: Any = None) -> tuple[str, Any]:
        """The clip's text, and its short window's encoder output (None where no short window was encoded);
        ``encoded``: that output from an earlier decode of the same clip, so it is not encoded again."""
        o = self.options
        duration = audio.size / 16000.0
        window = encoder_window_s(duration, o.window_s, o.window_margin_s)
        if self._short_ok and window < WHISPER_WINDOW_S:
            text, encoded = self._decode_window(model, audio, window, final, previous, encoded)
            if text is not None:
                self.short_decodes += 1
                return text, encoded
        self.full_decodes += 1
        return self._transcribe(model, audio, final, previous), encoded

    def _decode_window(
        self, model: WhisperModel, audio: Audio, window_s: float, final: bool, previous: str, enc: Any
    ) -> tuple[str | None, Any]:
        o = self.options
        try:
            if self._short is None:
                from faster_whisper.transcribe import get_suppressed_tokens

                tok = _tokenizer(model, o.language)
                self._short = (tok, list(get_suppressed_tokens(tok, (-1,))))
            tok, suppressed = self._short
            before = tok.encode(" " + previous) if previous else []
            prompt = model.get_prompt(tok, before, without_timestamps=True)
            if enc is None:
                enc = _encode(model, audio, window_s, to_cpu=False)  # on the CPU: the model's only device here
            duration = audio.size / 16000.0
            max_length = len(prompt) + min(440 - len(prompt), int(8 * duration) + 16)
            res = model.model.generate(
                enc,
                [prompt],
                **o.search(final),
                max_length=max_length,
                return_scores=True,
                return_no_speech_prob=True,
                suppress_blank=True,
                suppress_tokens=suppressed,
            )[0]
        except Exception as exc:  # an older CTranslate2 (30 s windows only) or changed faster-whisper internals
            self._short_ok = False
            log.warning("Whisper short-window decoding unavailable (%s); using 30 s windows", exc)
            return None, None
        tokens = res.sequences_ids[0]
        avg_logprob = res.scores[0] * len(tokens) ** o.length_penalty / (len(tokens) + 1)  # as faster-whisper recovers it
        if o.no_speech_threshold is not None and res.no_speech_prob > o.no_speech_threshold:
            if o.log_prob_threshold is None or avg_logprob <= o.log_prob_threshold:
                return "", enc
        text = str(tok.decode(tokens)).strip()
        if not plausible_transcript(text, duration):
            once = said_once(text) if duration <= o.loop_once_max_s else None
            if once is not None and plausible_transcript(once, duration):
                log.debug("Whisper %.0f s window: %r only loops; read as %r", window_s, text, once)
                return once, enc
            log.debug("Whisper %.0f s window: implausible transcript %r; decoding again in 30 s", window_s, text)
            return None, enc
        return text, enc

    def _transcribe(self, model: WhisperModel, audio: Audio, final: bool, previous: str) -> str:
        o = self.options
        segments, _info = model.transcribe(
            audio,
            language=o.language,
            **o.search(final),
            without_timestamps=True,
            condition_on_previous_text=False,
            vad_filter=False,
            temperature=0.0,
            initial_prompt=previous or None,
            no_speech_threshold=o.no_speech_threshold,
            log_prob_threshold=o.log_prob_threshold,
        )
        return " ".join(s.text.strip() for s in segments).strip()


__all__ = [
    "WHISPER_WINDOW_S",
    "Audio",
    "Decoder",
    "WhisperDecoder",
    "WhisperOptions",
    "echoes",
    "encoder_window_s",
    "plausible_transcript",
    "said_once",
    "whisper_model",
]
