"""The floor under small models: repetition checks, the guard, the context policy, honesty, spoken form on the answer path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from genx.agentkit.events import AssistantDelta, AssistantDone
from genx.agentkit.testing import Reply, Rig
from genx.assistant import AssistantGenerator
from genx.assistant.context_policy import FULL_CONTEXT, SMALL_MODEL_POLICY, ContextPolicy, apply_policy, policy_for
from genx.assistant.generator import FLOOR_OFF, Floor
from genx.assistant.guard import LOST_THREAD, GuardedGenerator, release_point, sentence_end
from genx.assistant.honesty import OFFER, cannot_know, covered_by, unknowable
from genx.assistant.repetition import LOOP, REPEAT, repetition
from genx.chunk import Message, MessageChunk, Role, Text
from genx.errors import Done, State
from genx.model import ModelContext, ModelContextBuilder, ModelParams
from genx.prompts import SMALL_MODEL_EXAMPLES
from genx.stream import Stream, StreamBuilder

pytestmark = pytest.mark.timeout(60)

FOX = "In a small village, there's no such thing as a fox. He is not a creature that exists in this world."


# -- repetition ---------------------------------------------------------------------------------
def test_an_answer_sharing_eight_words_with_an_earlier_one_repeats_it() -> None:
    assert repetition("Well, there's no such thing as a fox. He is here.", [FOX]) == REPEAT


def test_seven_words_in_common_are_not_a_repeat() -> None:
    assert repetition("They say there's no such thing as a free lunch.", [FOX]) == ""


def test_a_short_answer_equal_to_an_earlier_one_repeats_only_once_it_is_complete() -> None:
    assert repetition("Paris, France!", ["paris france"], final=True) == REPEAT
    assert repetition("Paris, France", ["paris france"], final=False) == ""


def test_an_answer_looping_on_itself_is_caught() -> None:
    assert repetition("Aleph-Lamma-Lemma-Lemma-Lemma-Lemma", []) == LOOP
    assert repetition("the cat sat down " * 3, []) == LOOP
    assert repetition("The cat sat down. Then the dog sat down too.", []) == ""


# -- the guard on a stream --------------------------------------------------------------------------
class Texts:
    """A generator answering with the next scripted token list; records the contexts and closes."""

    def __init__(self, *answers: Sequence[str]) -> None:
        self.answers = [list(a) for a in answers]
        self.contexts: list[ModelContext] = []
        self.closed = 0

    async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:
        self.contexts.append(ctx)
        b = StreamBuilder()
        for tok in self.answers.pop(0):
            b.push(MessageChunk(role=Role.ASSISTANT, part=Text(tok)))
        b.push(MessageChunk(role=Role.ASSISTANT, meta={"finish_reason": "stop"}))
        b.done()

        def closed(_e: BaseException | None) -> None:
            self.closed += 1

        b.on_close(closed)
        return b.stream

    async def invoke(self, pattern: str, ctx: ModelContext, tool: Any) -> Any:
        raise NotImplementedError


def conversation(*pairs: tuple[str, str], user: str) -> ModelContext:
    b = ModelContextBuilder()
    for q, a in pairs:
        b.user(q).assistant(a)
    return b.user(user).build()


async def texts_of(stream: Stream) -> list[str]:
    out: list[str] = []
    try:
        while True:
            c = await stream.next()
            if isinstance(c.part, Text):
                out.append(c.part.text)
    except Done:
        return out


async def test_a_repeat_of_an_earlier_answer_is_regenerated_and_none_of_it_leaves() -> None:
    gen = Texts(["In a small village, ", "there's no such thing ", "as a fox. ", "He is not."], ["Octopuses have ", "three hearts."])
    guard = GuardedGenerator(gen)
    ctx = conversation(("tell me a story", FOX), ("hm", "Okay."), user="remind me to call my sister")
    out = await texts_of(await guard.generate_stream("m", ctx))
    assert "".join(out) == "Octopuses have three hearts."
    assert guard.caught == [REPEAT]
    assert gen.closed >= 1
    retry = gen.contexts[1]  # the retry sees no history, only the question, and samples differently
    assert [m.text() for m in retry.messages()] == ["remind me to call my sister"]
    params = retry.params()
    assert params is not None and params.seed is not None and (params.repeat_penalty or 0) > 1.1


async def test_when_every_attempt_repeats_the_guard_says_it_lost_its_thread() -> None:
    gen = Texts([FOX], [FOX], [FOX])
    guard = GuardedGenerator(gen)
    out = await texts_of(await guard.generate_stream("m", conversation(("a story", FOX), user="something else")))
    assert "".join(out) == LOST_THREAD
    assert guard.caught == [REPEAT, REPEAT, REPEAT]


async def test_a_loop_starting_mid_answer_ends_the_answer_at_what_was_released() -> None:
    head = "The moon is far away from the earth and it is bright at night. "
    gen = Texts([head, "Lemma Lemma ", "Lemma Lemma ", "Lemma Lemma"])
    guard = GuardedGenerator(gen)
    said = "".join(await texts_of(await guard.generate_stream("m", conversation(user="how far is the moon"))))
    assert said and head.startswith(said)
    assert "Lemma" not in said
    assert guard.caught == [LOOP]


async def test_an_answer_without_repeats_passes_whole_and_unchanged() -> None:
    text = ["A leap year ", "has 366 days. ", "It comes every ", "four years."]
    guard = GuardedGenerator(Texts(text))
    out = await texts_of(await guard.generate_stream("m", conversation(("a story", FOX), user="leap year?")))
    assert "".join(out) == "".join(text)
    assert guard.caught == []


def test_the_last_eight_words_are_held_back_while_the_answer_streams() -> None:
    text = "one two three four five six seven eight nine ten"
    assert text[: release_point(text, 8)] == "one two "
    assert release_point("one two three", 8) == 0


def test_a_cut_answer_ends_at_its_last_full_sentence() -> None:
    assert sentence_end("It is big. It has many moo", 0) == "It is big."
    assert sentence_end("no sentence end here", 3) == "sentence end here"


# -- the guard in the voice loop: nothing of the repeat is ever synthesized or played ----------------
async def test_in_the_voice_loop_a_repeating_answer_is_replaced_before_any_of_its_audio_plays() -> None:
    first = "A leap year has three hundred and sixty six days in it."
    copy = Reply([(0.05, "A leap year has three "), (0.1, "hundred and sixty six days "), (0.15, "in it. And so on.")])
    rig = Rig(
        speech=[(0.5, 1.5), (7.0, 8.0)],
        transcripts=["how many days in a leap year", "tell me something else"],
        replies=[Reply([(0.1, first)]), copy, Reply([(0.1, "Octopuses have three hearts.")])],
    )
    guard = GuardedGenerator(rig.gen)
    rig.loop.core.generator = guard
    await rig.start()
    await rig.run_until(16.0)
    done = rig.of(AssistantDone)
    assert [d.text for d in done] == [first, "Octopuses have three hearts."]
    assert guard.caught == [REPEAT]
    second_turn = done[1].turn_id
    shown = "".join(e.text for e in rig.of(AssistantDelta) if e.turn_id == second_turn)
    assert shown == "Octopuses have three hearts."
    synthesized = " ".join(rig.synth.segments)
    assert synthesized.count("leap year") == 1  # only the first answer's: the copy never reached the TTS
    assert rig.gen.calls[1].closed
    await rig.stop()


# -- the context policy ----------------------------------------------------------------------------
def test_the_small_model_policy_keeps_the_last_exchange_summarizes_older_questions_and_adds_examples() -> None:
    ctx = conversation(
        ("What is the capital of France?", "Paris."), ("Tell me about leap years please", "They have 366 days."), user="Why?"
    )
    seen = list(apply_policy(ctx, SMALL_MODEL_POLICY).messages())
    texts = [m.text() for m in seen]
    n = 2 * len(SMALL_MODEL_EXAMPLES)
    assert texts[:n] == [t for pair in SMALL_MODEL_EXAMPLES for t in pair]
    assert seen[n].role == Role.SYSTEM and "What is the capital of France" in texts[n]
    assert "Paris." not in texts  # the older answer is gone: nothing to copy
    assert texts[n + 1 :] == ["Tell me about leap years please", "They have 366 days.", "Why?"]


def test_no_history_keeps_only_the_question_and_the_prompts_and_params() -> None:
    ctx = ModelContextBuilder().prompt("Be brief.").params(ModelParams(temperature=0.1)).user("a").assistant("b").user("c").build()
    seen = apply_policy(ctx, ContextPolicy(max_turns=0))
    assert [m.text() for m in seen.messages()] == ["c"]
    assert [p.text for p in seen.prompts()] == ["Be brief."]
    params = seen.params()
    assert params is not None and params.temperature == 0.1


def test_the_small_model_policy_caps_the_answer_unless_the_context_sets_a_length() -> None:
    capped = apply_policy(ModelContextBuilder().user("hi").build(), SMALL_MODEL_POLICY).params()
    assert capped is not None and capped.max_tokens == SMALL_MODEL_POLICY.max_tokens
    own = apply_policy(ModelContextBuilder().params(ModelParams(max_tokens=300)).user("hi").build(), SMALL_MODEL_POLICY).params()
    assert own is not None and own.max_tokens == 300


def test_the_full_context_policy_leaves_the_context_alone() -> None:
    ctx = conversation(("a", "b"), user="c")
    assert apply_policy(ctx, FULL_CONTEXT) is ctx


def test_only_a_small_in_process_model_gets_the_small_model_policy() -> None:
    from genx.generators.llamacpp import LlamaCppGenerator

    class Sized(LlamaCppGenerator):
        def __init__(self, size: int) -> None:  # no model loaded
            self.size = size

        def model_bytes(self) -> int | None:
            return self.size

    assert policy_for(Sized(100_000_000)) == SMALL_MODEL_POLICY
    assert policy_for(Sized(4_000_000_000)) == FULL_CONTEXT
    assert policy_for(Texts()) == FULL_CONTEXT


# -- honesty ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "What's the weather like today?",
        "Will it rain tomorrow?",
        "What are today's headlines?",
        "Who won the game last night?",
        "Do I have any new emails?",
        "What's on my calendar tomorrow?",
        "Is my train delayed?",
        "Who is at the door?",
    ],
)
def test_questions_needing_live_or_personal_data_are_unknowable_offline(question: str) -> None:
    assert unknowable(question) is not None


@pytest.mark.parametrize(
    "question",
    ["Why is the ocean salty?", "What causes rain?", "What is a stock?", "Which planet is nearest the sun?", "What's my name?"],
)
def test_general_knowledge_is_not_mistaken_for_live_data(question: str) -> None:
    assert unknowable(question) is None


def test_a_tool_mentioning_the_topic_takes_the_question_instead() -> None:
    u = unknowable("what's the weather in Paris")
    assert u is not None

    class Tool:
        name, description = "city_weather", "Current weather for a city"

    assert covered_by(u, [Tool()])
    assert cannot_know(u).startswith("I can't know the weather offline.")


# -- the floor on the assistant's answer path ----------------------------------------------------------
def local_assistant(answer: Sequence[str], floor: Floor | None = None) -> tuple[AssistantGenerator, Texts]:
    from genx.generators.llamacpp import LlamaCppGenerator

    texts = Texts(answer, answer, answer)

    class Fake(LlamaCppGenerator):
        def __init__(self) -> None:
            pass

        def model_bytes(self) -> int | None:
            return 100_000_000

        async def generate_stream(self, pattern: str, ctx: ModelContext) -> Stream:  # type: ignore[override]
            return await texts.generate_stream(pattern, ctx)

    return AssistantGenerator(Fake(), [], use_router=False, floor=floor), texts


async def drain_text(stream: Stream) -> str:
    out = ""
    try:
        while True:
            c = await stream.next()
            if isinstance(c.part, Text):
                out += c.part.text
    except State:
        return out


async def test_the_answer_leaves_in_spoken_form_and_history_keeps_the_same_words() -> None:
    gen, _ = local_assistant(["Ideas:\n1. **Pasta**\n", "2. Soup 🍲 for 20 ", "min"])
    stream = await gen.generate_stream("offline/smollm2", ModelContextBuilder().user("dinner ideas").build())
    said = await drain_text(stream)
    assert said == "Ideas: First, Pasta. Second, Soup for twenty minutes."
    assert stream.answer == said


async def test_with_the_floor_off_the_model_text_passes_as_written() -> None:
    gen, _ = local_assistant(["1. **Pasta**"], floor=FLOOR_OFF)
    stream = await gen.generate_stream("offline/smollm2", ModelContextBuilder().user("dinner ideas").build())
    assert await drain_text(stream) == "1. **Pasta**"


async def test_an_unknowable_question_is_answered_honestly_without_the_model_and_the_offer_is_made_once() -> None:
    gen, texts = local_assistant(["It is sunny and 22 degrees."])
    stream = await gen.generate_stream("offline/smollm2", ModelContextBuilder().user("What's the weather like today?").build())
    said = await drain_text(stream)
    assert said == f"I can't know the weather offline. {OFFER}"
    assert stream.decision.path == "offline"
    assert texts.contexts == []
    again = conversation(("What's the weather like today?", said), user="Any news headlines?")
    assert await drain_text(await gen.generate_stream("offline/smollm2", again)) == "I can't know the news offline."


def test_history_messages_survive_the_policy_as_messages() -> None:
    m = Message.assistant("x")
    m.meta["interrupted"] = True
    ctx = ModelContextBuilder().user("q").message(m).user("r").build()
    kept = list(apply_policy(ctx, ContextPolicy(max_turns=1)).messages())
    assert kept[1].meta.get("interrupted") is True


def _small_model_prefilling_into(seen: list[ModelContext]) -> type:
    """A small in-process model (by size) whose prefill records the context it was given."""
    from genx.generators.llamacpp import LlamaCppGenerator

    class Fake(LlamaCppGenerator):
        def __init__(self) -> None:
            pass

        def model_bytes(self) -> int | None:
            return 100_000_000

        async def prefill(self, pattern: str, ctx: ModelContext) -> bool:
            seen.append(ctx)
            return True

    return Fake


async def test_the_prefill_evaluates_the_conversation_as_the_next_answer_will_see_it() -> None:
    seen: list[ModelContext] = []
    Fake = _small_model_prefilling_into(seen)

    gen = AssistantGenerator(Fake(), [], use_router=False)
    b = ModelContextBuilder().user("What is the capital of France?").assistant("Paris.")
    ctx = b.user("And of Spain?").assistant("Madrid.").build()
    assert await gen.prefill("offline/smollm2", ctx)
    texts = [m.text() for m in seen[0].messages()]
    n = 2 * len(SMALL_MODEL_EXAMPLES)
    assert texts[n + 1 :] == ["And of Spain?", "Madrid."]  # examples, the summary line, then the last exchange
    assert "Paris." not in texts


def test_the_memory_note_before_the_question_survives_the_small_model_policy() -> None:
    from genx.memory.context import memory_note, with_memory

    ctx = with_memory(conversation(("a", "b"), ("c", "d"), user="What's my dog called?"), "The user's dog is Biscuit.")
    seen = apply_policy(ctx, SMALL_MODEL_POLICY)
    assert memory_note(seen) == "The user's dog is Biscuit."
    assert [m.text() for m in seen.messages()][-1] == "What's my dog called?"


async def test_the_end_of_turn_text_check_sees_the_conversation_as_the_prefill_evaluated_it() -> None:
    # The text check extends the prefilled prompt only when it renders the same messages: with the raw history
    # (no few-shot examples, every old answer) llama.cpp's cache missed at the first example and the check
    # re-evaluated the whole prompt (turn check ~1 s, then the answer again: bench/turn_taking.py set a).
    from genx.agentkit.core import LoopConfig, LoopCore
    from genx.agentkit.events import EventBus
    from genx.agentkit.recorder import Recorder

    seen: list[ModelContext] = []
    Fake = _small_model_prefilling_into(seen)

    gen = AssistantGenerator(Fake(), [], use_router=False)
    cfg = LoopConfig(generator="offline/smollm2", system_prompt="Be brief.")
    core = LoopCore(cfg, generator=gen, conversation_id="c1", clock=lambda: 0.0, wall_clock=lambda: 0.0, bus=EventBus())
    rec = Recorder(core, None)
    rec.history.add("What is the capital of France?", "Paris.")
    rec.history.add("And of Spain?", "Madrid.")
    assert await gen.prefill("offline/smollm2", rec.context(""))
    checked = rec.check_context()
    assert [(m.role, m.text()) for m in checked.messages()] == [(m.role, m.text()) for m in seen[0].messages()]
    assert "Paris." not in [m.text() for m in checked.messages()]  # the policy's view, not the raw history
