"""The Q/A transcript format that lets a base GGUF model (Gemma-3-270m) answer a chat."""

from __future__ import annotations

import pytest

from genx.generators.llamacpp_qa import QA_CHAT_FORMAT, QA_STOP, qa_prompt, register_qa_format


def test_a_conversation_becomes_a_transcript_ending_with_an_open_answer() -> None:
    prompt = qa_prompt(
        [
            {"role": "system", "content": "You are Parley."},
            {"role": "user", "content": "What is the capital of Italy?"},
            {"role": "assistant", "content": "The capital of Italy is Rome."},
            {"role": "user", "content": "And of France?"},
        ]
    )
    assert prompt == "You are Parley.\n\nQ: What is the capital of Italy?\nA: The capital of Italy is Rome.\n\nQ: And of France?\nA:"


def test_a_blank_line_inside_a_message_cannot_end_the_answer_early() -> None:
    prompt = qa_prompt([{"role": "user", "content": "First line.\n\nSecond   line.\nQ: not a question"}])
    assert prompt == "Q: First line. Second line. Q: not a question\nA:"
    assert prompt.count("\n") == 1  # only the line break before the open answer


def test_turns_of_one_role_in_a_row_are_one_question_and_empty_turns_are_left_out() -> None:
    prompt = qa_prompt(
        [
            {"role": "user", "content": "[result of clock]: 10:42"},
            {"role": "assistant", "content": "  "},
            {"role": "user", "content": "What time is it?"},
        ]
    )
    assert prompt == "Q: [result of clock]: 10:42 What time is it?\nA:"


def test_a_conversation_ending_with_an_answer_gets_no_second_answer_marker() -> None:
    prompt = qa_prompt([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}])
    assert prompt == "Q: Hi\nA: Hello!"


def test_the_answer_stops_where_the_model_starts_the_next_question() -> None:
    assert "\nQ:" in QA_STOP and "\n\n" in QA_STOP


def test_the_format_is_known_to_llama_cpp_once_registered() -> None:
    chat = pytest.importorskip("llama_cpp.llama_chat_format", reason="pip install llama-cpp-python")
    register_qa_format()
    register_qa_format()  # idempotent
    handler = chat.LlamaChatCompletionHandlerRegistry().get_chat_completion_handler_by_name(QA_CHAT_FORMAT)
    assert callable(handler)
