"""genx.toolbox.commands: app commands matched without a model."""

from __future__ import annotations

import pytest

from genx.toolbox.commands import AppCommand, match_command

C = AppCommand
CASES = {
    C.STOP: ["Stop.", "stop talking", "Parley, stop!", "okay stop", "be quiet please", "shut up", "never mind", "Stop it now.",
             "that's enough", "could you please stop"],
    C.MUTE: ["Mute.", "mute the microphone", "mute yourself", "stop listening", "turn off the mic", "microphone off",
             "please mute", "don't listen to me"],
    C.UNMUTE: ["Unmute", "unmute yourself", "start listening again", "turn the microphone back on", "mic on", "un-mute"],
    C.NEW_CONVERSATION: ["New conversation", "start a new conversation", "let's start over", "clear the chat",
                         "Parley, new chat please", "reset the conversation", "begin a fresh conversation"],
    C.SPEAK_SLOWER: ["Speak slower", "could you please speak a bit slower?", "slow down", "talk more slowly please",
                     "not so fast", "speak a little more slowly", "too fast"],
    C.SPEAK_FASTER: ["speak faster", "speed up", "can you talk a little faster", "talk quicker", "hurry up", "faster please"],
    C.PUSH_TO_TALK: ["Switch to push-to-talk", "push to talk mode", "use push to talk", "go to push to talk",
                     "change to push-to-talk mode", "enable push to talk"],
    C.HANDS_FREE: ["switch to hands-free", "hands free mode please", "go hands free", "turn off push to talk",
                   "switch back to hands-free mode", "enable hands free"],
}  # fmt: skip


@pytest.mark.parametrize(("text", "command"), [(t, c) for c, texts in CASES.items() for t in texts])
def test_paraphrases_of_a_command_match_it(text: str, command: AppCommand) -> None:
    assert match_command(text) is command


@pytest.mark.parametrize(
    "text",
    [
        "how do I stop smoking",
        "stop the pasta timer",
        "what is a new conversation",
        "the mute button on my phone is broken",
        "speak to me about slowness",
        "tell me about push to talk radios",
        "set a timer for ten minutes",
        "what time is it",
        "slower than light travel",
        "is it quiet in Tokyo",
        "why do people say never mind",
        "",
    ],
)
def test_questions_and_requests_that_mention_a_command_word_are_not_commands(text: str) -> None:
    assert match_command(text) is None


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("shh", AppCommand.STOP),
        ("Shhh!", AppCommand.STOP),
        ("be silent", AppCommand.STOP),
        ("that is enough", AppCommand.STOP),
        ("okay stop right there", AppCommand.STOP),
        ("let's start fresh", AppCommand.NEW_CONVERSATION),
    ],
)
def test_more_everyday_ways_to_say_a_command_are_recognised(text: str, command: AppCommand) -> None:
    assert match_command(text) == command
