"""The final decode's options reach the decoder: the conversation's last turn as a prompt, a beam on finals only."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from genx.agentkit.asr_feed import last_turn_text
from genx.agentkit.history import History
from genx.agentkit.testing import Reply, Rig
from genx.chunk import MessageChunk
from genx.local.asr import FINAL, LISTEN_FOR, OVER_ANSWER, PROMPT, AsrTransformer, from_config
from genx.local.whisper import WhisperDecoder, WhisperOptions, echoes
from genx.stream import collect, stream_of
from tests.unit.test_local_asr import FakeDecoder, chunks_of, fast, speech

# -- the transformer: the route's prompt goes to final decodes only ---------------------------


async def test_the_routes_prompt_reaches_the_final_decode_and_never_a_partial() -> None:
    dec = FakeDecoder()
    bos = MessageChunk.bos("u1", label="utterance")
    bos.meta = {PROMPT: "  A leap year has 366 days.  "}
    chunks = [bos, *chunks_of(speech(1500), "u1"), MessageChunk.eos("u1")]
    got = await asyncio.wait_for(collect(await AsrTransformer(dec, fast()).transform(stream_of(*chunks))), 10)
    assert any(c.label == FINAL for c in got)
    finals = [p for final, p in dec.prompts if final]
    partials = [p for final, p in dec.prompts if not final]
    assert finals == ["A leap year has 366 days."]
    assert partials and set(partials) == {""}


async def test_a_route_spoken_over_the_answer_says_so_to_every_decode_and_other_routes_do_not() -> None:
    dec = FakeDecoder()
    over = MessageChunk.bos("u1", label="utterance")
    over.meta = {PROMPT: "Hello.", OVER_ANSWER: True}
    chunks = [over, *chunks_of(speech(1500), "u1"), MessageChunk.eos("u1")]
    await asyncio.wait_for(collect(await AsrTransformer(dec, fast()).transform(stream_of(*chunks))), 10)
    assert dec.over_answer and all(dec.over_answer)
    assert not any(dec.listen_for)  # no phrases on the BOS: none to listen for
    dec2 = FakeDecoder()
    plain = [MessageChunk.bos("u2", label="utterance"), *chunks_of(speech(800), "u2"), MessageChunk.eos("u2")]
    await asyncio.wait_for(collect(await AsrTransformer(dec2, fast()).transform(stream_of(*plain))), 10)
    assert dec2.over_answer and not any(dec2.over_answer)


async def test_the_phrases_a_route_over_the_answer_listens_for_reach_its_decodes_and_without_over_answer_they_do_not() -> None:
    dec = FakeDecoder()
    over = MessageChunk.bos("u1", label="utterance")
    over.meta = {OVER_ANSWER: True, LISTEN_FOR: [" Hold on. ", "Stop.", 3, ""]}
    chunks = [over, *chunks_of(speech(1500), "u1"), MessageChunk.eos("u1")]
    await asyncio.wait_for(collect(await AsrTransformer(dec, fast()).transform(stream_of(*chunks))), 10)
    assert dec.listen_for and set(dec.listen_for) == {("Hold on.", "Stop.")}  # trimmed; what is not a phrase is dropped
    dec2 = FakeDecoder()
    plain = MessageChunk.bos("u2", label="utterance")
    plain.meta = {LISTEN_FOR: ["Hold on."]}  # without OVER_ANSWER it means nothing
    chunks = [plain, *chunks_of(speech(800), "u2"), MessageChunk.eos("u2")]
    await asyncio.wait_for(collect(await AsrTransformer(dec2, fast()).transform(stream_of(*chunks))), 10)
    assert dec2.listen_for and not any(dec2.listen_for)


async def test_a_route_without_a_prompt_decodes_its_final_with_none() -> None:
    dec = FakeDecoder()
    chunks = [MessageChunk.bos("u1", label="utterance"), *chunks_of(speech(800), "u1"), MessageChunk.eos("u1")]
    await asyncio.wait_for(collect(await AsrTransformer(dec, fast(partials=False)).transform(stream_of(*chunks))), 10)
    assert dec.prompts == [(True, "")]


# -- WhisperDecoder: beam and previous text per decode, on a fake CTranslate2 model -----------


class FakeTokenizer:
    """One token per word: 1000 + the word's length (enough to tell prompts apart)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        pass

    def encode(self, text: str) -> list[int]:
        return [1000 + len(w) for w in text.split()]

    def decode(self, tokens: list[int]) -> str:
        return " heard words"


@dataclass
class FakeResult:
    sequences_ids: list[list[int]]
    scores: list[float]
    no_speech_prob: float = 0.0


@dataclass
class FakeCt2:
    is_multilingual: bool = False
    generated: list[dict[str, Any]] = field(default_factory=list)
    encodes: int = 0

    def encode(self, features: Any, to_cpu: bool = False) -> np.ndarray:  # type: ignore[type-arg]
        self.encodes += 1
        return np.zeros((1, 4, 8), dtype=np.float32)

    def generate(self, enc: Any, prompts: list[list[int]], **kw: Any) -> list[FakeResult]:
        self.generated.append({"prompt": prompts[0], **kw})
        return [FakeResult([[1, 2]], [-0.1])]


@dataclass
class FakeWhisperModel:
    model: FakeCt2 = field(default_factory=FakeCt2)
    hf_tokenizer: object = None
    transcribed: list[dict[str, Any]] = field(default_factory=list)

    def get_prompt(self, tok: Any, previous: list[int], without_timestamps: bool = True) -> list[int]:
        return ([50361, *previous] if previous else []) + [50258, 50363]

    def feature_extractor(self, audio: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
        return np.zeros((80, audio.size // 160), dtype=np.float32)

    def transcribe(self, audio: Any, **kw: Any) -> tuple[list[Any], None]:
        self.transcribed.append(kw)
        return [], None


@dataclass
class Held:
    value: FakeWhisperModel

    def get(self) -> FakeWhisperModel:
        return self.value


def fake_decoder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **options: Any) -> tuple[WhisperDecoder, FakeWhisperModel]:
    import faster_whisper.tokenizer
    import faster_whisper.transcribe

    monkeypatch.setattr(faster_whisper.tokenizer, "Tokenizer", FakeTokenizer)
    monkeypatch.setattr(faster_whisper.transcribe, "get_suppressed_tokens", lambda tok, ids: [])
    monkeypatch.setattr(faster_whisper.transcribe, "get_ctranslate2_storage", lambda x: x)
    dec = WhisperDecoder(WhisperOptions(path=str(tmp_path), **options))
    model = FakeWhisperModel()
    dec.model = Held(model)  # type: ignore[assignment]
    return dec, model


AUDIO = np.zeros(16000 * 3, dtype=np.float32)
LAST_TURN = "The moon is about three hundred eighty four thousand kilometers away."


def test_finals_decode_with_the_final_beam_and_the_last_turn_while_partials_stay_greedy_and_bare(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, final_beam_size=4, context_prompt=True)
    assert dec.decode(AUDIO, True, LAST_TURN) == "heard words"
    dec.decode(AUDIO, False, LAST_TURN)
    final, partial = model.model.generated
    # the previous-text marker, one token per word of the last turn, then the start of the transcript
    assert final["prompt"] == [50361, *[1000 + len(w) for w in LAST_TURN.split()], 50258, 50363]
    assert final["beam_size"] == 4
    assert partial["prompt"] == [50258, 50363]
    assert partial["beam_size"] == 1


def test_without_context_prompt_the_last_turn_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path)
    dec.decode(AUDIO, True, LAST_TURN)
    assert model.model.generated[0]["prompt"] == [50258, 50363]
    assert model.model.generated[0]["beam_size"] == 1


def test_only_the_last_prompt_words_of_a_long_turn_are_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, context_prompt=True, prompt_words=3)
    dec.decode(AUDIO, True, "one two three four fives")
    assert model.model.generated[0]["prompt"] == [50361, 1005, 1004, 1005, 50258, 50363]  # "three four fives"


def test_the_30_s_fallback_gets_the_same_beam_and_prompt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, final_beam_size=3, context_prompt=True, window_s=None, initial_prompt="Parley.")
    dec.decode(AUDIO, True, "Hello there.")
    dec.decode(AUDIO, False, "Hello there.")
    final, partial = model.transcribed
    assert (final["beam_size"], final["initial_prompt"]) == (3, "Parley. Hello there.")
    assert (partial["beam_size"], partial["initial_prompt"]) == (1, "Parley.")


@pytest.mark.parametrize("window_s", [10.0, None])
def test_a_final_initial_prompt_precedes_the_last_turn_on_finals_and_partials_keep_the_initial_prompt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, window_s: float | None
) -> None:
    opts = {"context_prompt": True, "initial_prompt": "Parley.", "final_initial_prompt": "Okay, please.", "window_s": window_s}
    dec, model = fake_decoder(monkeypatch, tmp_path, **opts)
    dec.decode(AUDIO, True, "Hello there.")
    dec.decode(AUDIO, False, "Hello there.")
    if window_s is None:
        assert [c["initial_prompt"] for c in model.transcribed] == ["Okay, please. Hello there.", "Parley."]
    else:  # one token per word: 1000 + its length
        final, partial = (c["prompt"] for c in model.model.generated)
        assert final == [50361, 1005, 1007, 1005, 1006, 50258, 50363]  # "Okay," "please." "Hello" "there."
        assert partial == [50361, 1007, 50258, 50363]  # "Parley."


def test_speech_over_the_answer_is_decoded_without_the_finals_fixed_prompt_but_keeps_the_context(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    opts = {"context_prompt": True, "initial_prompt": "Parley.", "final_initial_prompt": "Okay, please.", "window_s": None}
    dec, model = fake_decoder(monkeypatch, tmp_path, **opts)
    dec.decode(AUDIO, True, "Hello there.", over_answer=True)
    dec.decode(AUDIO, True, "Hello there.")
    assert [c["initial_prompt"] for c in model.transcribed] == ["Parley. Hello there.", "Okay, please. Hello there."]


def test_without_an_initial_prompt_partials_get_no_previous_text(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, final_initial_prompt="Okay, please.")
    dec.decode(AUDIO, False, "Hello there.")
    assert model.model.generated[0]["prompt"] == [50258, 50363]


@pytest.mark.parametrize(
    ("text", "echo"),
    [
        ("The capital of Australia is", True),
        ("capital, of Australia.", True),
        ("Canberra.", False),  # one word: a follow-up may well be one word of the answer
        ("Why Canberra and not Sydney?", False),
        ("", False),
    ],
)
def test_a_transcript_echoes_the_context_when_it_is_only_a_run_of_its_words(text: str, echo: bool) -> None:
    assert echoes(text, "what is the capital of Australia The capital of Australia is Canberra, not Sydney.") is echo


def test_a_final_that_only_repeats_the_context_is_decoded_again_without_previous_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, context_prompt=True, final_initial_prompt="Okay.")
    dec.decode(AUDIO, True, "I only heard words.")  # the fake transcript, "heard words", is a run of it
    first, again = (c["prompt"] for c in model.model.generated)
    assert first == [50361, 1005, 1001, 1004, 1005, 1006, 50258, 50363]  # "Okay." + the last turn
    assert again == [50258, 50363]  # no previous text: the fixed prompt alone made noise read "Okay."
    assert dec.echo_decodes == 1


def test_a_final_that_only_repeats_the_fixed_prompt_is_decoded_again_without_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # speech over the answer has no context: a cough read as the fixed prompt's words would be an interruption
    dec, model = fake_decoder(monkeypatch, tmp_path, context_prompt=True, final_initial_prompt="Could you say the heard words?")
    dec.decode(AUDIO, True, "")
    first, again = (c["prompt"] for c in model.model.generated)
    assert first[0] == 50361 and again == [50258, 50363]
    assert dec.echo_decodes == 1


def test_a_final_that_says_something_else_is_decoded_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, context_prompt=True)
    dec.decode(AUDIO, True, "The words I heard.")  # "heard words" is not a run of it
    dec.decode(AUDIO, False, "I only heard words.")  # partials have no context to echo
    assert len(model.model.generated) == 2
    assert dec.echo_decodes == 0


SEARCH = {"patience": 2.0, "length_penalty": 0.8, "repetition_penalty": 1.1, "no_repeat_ngram_size": 3}


def test_the_search_options_reach_the_short_window_decode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, final_beam_size=5, **SEARCH)
    dec.decode(AUDIO, True)
    (call,) = model.model.generated
    assert {k: call[k] for k in SEARCH} == SEARCH
    assert call["beam_size"] == 5
    assert model.transcribed == []


def test_the_search_options_reach_the_30_s_decode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, final_beam_size=5, window_s=None, **SEARCH)
    dec.decode(AUDIO, True)
    (call,) = model.transcribed
    assert {k: call[k] for k in SEARCH} == SEARCH
    assert call["beam_size"] == 5


def test_the_search_options_are_keywords_faster_whisper_and_ctranslate2_accept() -> None:
    import inspect

    import ctranslate2
    from faster_whisper import WhisperModel

    names = set(WhisperOptions().search(True))
    assert names <= set(inspect.signature(WhisperModel.transcribe).parameters)
    assert all(f"{n}:" in (ctranslate2.models.Whisper.generate.__doc__ or "") for n in names)


def test_a_length_penalty_is_undone_before_the_no_speech_rule(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """CTranslate2 scores a hypothesis as sum(logprob) / len**length_penalty; the rule reads sum(logprob) / (len + 1)."""
    dec, model = fake_decoder(monkeypatch, tmp_path, length_penalty=0.5)
    # two tokens: a sum of -3.3 averages -1.1 over 3 (below the -1.0 threshold: silence), -2.7 averages -0.9 (speech)
    monkeypatch.setattr(model.model, "generate", lambda *a, **k: [FakeResult([[1, 2]], [-3.3 / 2**0.5], no_speech_prob=0.9)])
    assert dec.decode(AUDIO, True) == ""
    monkeypatch.setattr(model.model, "generate", lambda *a, **k: [FakeResult([[1, 2]], [-2.7 / 2**0.5], no_speech_prob=0.9)])
    assert dec.decode(AUDIO, True) == "heard words"


def test_asr_settings_options_reach_the_whisper_options(tmp_path: Path) -> None:
    from genx.modelloader.specs import AsrSpec

    spec = AsrSpec(name="asr/base", model_file=str(tmp_path), options={"final_beam_size": 4, "context_prompt": True, "prompt_words": 20})
    t = from_config(spec)
    assert isinstance(t.decoder, WhisperDecoder)
    o = t.decoder.options
    assert (o.final_beam_size, o.context_prompt, o.prompt_words, o.beam_size) == (4, True, 20, 1)


# -- the voice loop: each utterance route carries the conversation's last turn ---------------


def test_the_last_turn_is_the_last_user_and_assistant_words() -> None:
    h = History()
    h.add("what is the capital of France", "Paris.")
    h.add("and of Spain", "Madrid is the capital of Spain.")
    assert last_turn_text(h.context("")) == "and of Spain Madrid is the capital of Spain."
    assert last_turn_text(History().context("")) == ""


async def test_the_loop_sends_the_previous_turn_with_the_next_utterance() -> None:
    rig = Rig(
        speech=[(0.5, 1.5), (6.0, 7.0)],
        transcripts=["how many days are in a leap year", "why"],
        replies=[Reply([(0.1, "A leap year has 366 days.")]), Reply([(0.1, "To keep up with the sun.")])],
    )
    await rig.start()
    await rig.run_until(12.0)
    await rig.stop()
    assert rig.asr.prompts == ["", "how many days are in a leap year A leap year has 366 days."]


# -- each clip goes through Whisper's encoder once, however many readings are made of it -------------


def test_a_final_decoded_again_without_its_context_reuses_the_clips_encoding(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dec, model = fake_decoder(monkeypatch, tmp_path, context_prompt=True)
    dec.decode(AUDIO, True, "I only heard words.")  # an echo of the context: a second generate
    assert dec.echo_decodes == 1 and len(model.model.generated) == 2
    assert model.model.encodes == 1


def test_a_reading_over_the_answer_checked_against_the_stop_phrases_encodes_the_clip_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import genx.local.whisper as whisper

    scored: list[list[str]] = []

    def forced(model: Any, tok: Any, encoded: np.ndarray, texts: list[str]) -> list[float]:  # type: ignore[type-arg]
        scored.append(texts)
        return [-6.0, -5.5]  # "Hold on." within the margin of the free reading and above the floor

    monkeypatch.setattr(whisper, "forced_scores", forced)
    dec, model = fake_decoder(monkeypatch, tmp_path)
    assert dec.decode(AUDIO, True, over_answer=True, listen_for=("Hold on.",)) == "Hold on."
    assert scored == [["heard words", "Hold on."]]
    assert model.model.encodes == 1


def test_scoring_a_wake_phrase_reads_and_scores_the_clip_on_one_encoding(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import genx.local.whisper as whisper

    monkeypatch.setattr(whisper, "forced_scores", lambda model, tok, encoded, texts: [-2.0, -3.0, -9.0])
    dec, model = fake_decoder(monkeypatch, tmp_path)
    assert dec.phrase_scores(AUDIO, ["Hey Jarvis.", "Hey, Jarvis."]) == ("heard words", -2.0, -3.0)
    assert model.model.encodes == 1


def test_a_wake_phrase_of_a_clip_decoded_in_30_s_is_scored_in_30_s(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import genx.local.whisper as whisper

    frames: list[int] = []
    monkeypatch.setattr(whisper, "forced_scores", lambda model, tok, encoded, texts: [-2.0, -3.0])
    dec, model = fake_decoder(monkeypatch, tmp_path, window_s=None)
    real_encode = model.model.encode

    def encode(features: Any, to_cpu: bool = False) -> np.ndarray:  # type: ignore[type-arg]
        frames.append(features.shape[-1])
        return real_encode(features, to_cpu)

    monkeypatch.setattr(model.model, "encode", encode)
    dec.phrase_scores(AUDIO, ["Hey Jarvis."])
    assert model.transcribed and frames == [3000]  # 30 s of 10 ms feature frames
