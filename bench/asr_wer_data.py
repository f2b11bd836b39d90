"""The ASR bench's spoken questions, each with the conversation turn said before it (or none), and its voices and noises.

About two thirds follow an answer on the same topic (a follow-up: the context
prompt should help), the rest change the topic or open the conversation (the
prompt must not hurt). Numbers are written as a speaker would say them; the
scorer (:mod:`bench.wer`) reads digits and number words alike.
"""

from __future__ import annotations

#: (the conversation's last turn, or "" for the first question; the question)
QUESTIONS: tuple[tuple[str, str], ...] = (
    ("", "How many days are there in a leap year?"),
    ("A leap year has three hundred sixty six days, one more than a common year.", "Why do we need leap years at all?"),
    ("", "What is the largest planet in our solar system?"),
    ("Jupiter is the largest planet in the solar system, more than eleven times as wide as Earth.", "How many moons does Jupiter have?"),
    ("Jupiter has ninety five known moons, and the four biggest were found by Galileo.", "Which one of them is the biggest?"),
    ("", "Please speak a little more slowly."),
    ("Of course, I will speak more slowly from now on.", "Thank you, that is much better."),
    ("", "Set a timer for twelve minutes for the pasta."),
    ("I set a timer for twelve minutes. I will tell you when it rings.", "And remind me to buy olive oil tomorrow morning."),
    ("", "What's the weather going to be like this weekend?"),
    ("I can't know the weather offline, but I can tell you the time or do some arithmetic.", "Then tell me a fun fact about octopuses."),
    ("Octopuses have three hearts and blue blood, and each arm can taste what it touches.", "Why is their blood blue?"),
    ("", "Convert twenty kilometers to miles."),
    ("Twenty kilometers is about twelve point four miles.", "And how many feet are in a mile?"),
    ("", "Who wrote the novel Pride and Prejudice?"),
    ("Pride and Prejudice was written by Jane Austen and published in eighteen thirteen.", "What other books did she write?"),
    ("", "Give me three ideas for a quick dinner tonight."),
    (
        "You could make a vegetable stir fry, a tomato pasta, or an omelette with cheese and herbs.",
        "How long does the stir fry take to cook?",
    ),
    ("", "Why is the ocean salty?"),
    (
        "Rivers carry minerals from rocks into the sea, and when the water evaporates the salt stays behind.",
        "Is the Dead Sea the saltiest water on Earth?",
    ),
    ("", "Can you help me pick a name for my new puppy?"),
    ("How about Biscuit, Pepper or Maple? They are short and easy to call.", "I like Maple, but she is a black Labrador."),
    ("", "What time is it in Tokyo right now?"),
    ("I can tell you the time here, but I need a tool for other time zones.", "Never mind, what is the capital of Australia?"),
    ("The capital of Australia is Canberra, not Sydney.", "Why did they choose Canberra instead of Sydney?"),
    ("", "How far away is the moon from the Earth?"),
    ("The moon is about three hundred eighty four thousand kilometers from Earth.", "How long would it take to drive there?"),
    ("", "Wait, stop that and tell me something else instead."),
    ("Sure. Did you know that honey never spoils if it is kept sealed?", "That is interesting, why does it never spoil?"),
    ("", "What is the square root of one hundred forty four?"),
    ("The square root of one hundred forty four is twelve.", "And what is twelve times twelve times twelve?"),
    ("", "Turn the volume down a little, please."),
    ("I turned the volume down.", "Actually, make it a bit louder again."),
    ("", "How do frogs breathe under water?"),
    ("Frogs can take in oxygen through their skin, which is why it has to stay moist.", "Do toads breathe the same way?"),
    ("", "Read me the latest news about the football match."),
    ("I can't reach the news offline. I can tell you a story or answer a question instead.", "Okay, tell me a short story about a fox."),
    ("", "What should I pack for a weekend trip to the mountains?"),
    ("Bring warm layers, a rain jacket, good walking shoes, water, snacks and a map.", "Should I also bring a sleeping bag?"),
    ("", "How do I boil an egg so the yolk stays soft?"),
    ("Put the egg in boiling water for six minutes, then cool it in cold water.", "What if I want it hard boiled instead?"),
    ("", "Translate good morning into French."),
    ("Good morning in French is bonjour.", "How do you say thank you very much?"),
    ("", "What is the tallest mountain in Europe?"),
    ("Mount Elbrus in Russia is the tallest mountain in Europe.", "Has anyone skied down from the top?"),
    ("", "Remind me to call my sister tomorrow at nine."),
    ("I will remind you to call your sister tomorrow at nine in the morning.", "Also add milk and bread to my shopping list."),
    ("Your shopping list now has milk and bread on it.", "Read the whole list back to me, please."),
    # longer requests (two clauses, 4–6 s): the "5 s utterance" of the latency goal
    ("", "I am planning a birthday party for my daughter next Saturday, can you suggest a few games for the children?"),
    (
        "You could play musical chairs, a treasure hunt in the garden, or pass the parcel.",
        "The treasure hunt sounds great, how should I hide the clues so the younger ones can find them?",
    ),
    ("", "My laptop has been running very slowly since the last update, what could I try before calling support?"),
    (
        "Restart it, close programs that start on their own, and check that the disk is not almost full.",
        "The disk is nearly full, what is the safest way to free up some space on it?",
    ),
    ("", "Could you explain in simple words how a rainbow forms after the rain has stopped?"),
    (
        "Sunlight bends as it enters raindrops, splits into its colors, and reflects back towards you.",
        "So why do we sometimes see a second, fainter rainbow above the first one?",
    ),
    ("", "I want to start running in the mornings, how far should I go in the first couple of weeks?"),
    (
        "Start with short runs of ten to fifteen minutes, three times a week, and walk when you need to.",
        "What should I eat before a run if I go out early, right after waking up?",
    ),
    ("", "Tell me the difference between a crocodile and an alligator, I can never remember which is which."),
    (
        "Alligators have a wide rounded snout, crocodiles a narrower pointed one, and their lower teeth show.",
        "Which of the two lives in Florida, and is it dangerous to swim in the lakes there?",
    ),
    ("", "Please write down a note that the plumber is coming on Thursday afternoon between two and four."),
    (
        "I noted that the plumber comes on Thursday afternoon between two and four.",
        "Thanks, and remind me on Wednesday evening to clear the space under the kitchen sink.",
    ),
)

#: espeak-ng voices (with speeds in words per minute) that bench.speech's ESPEAK_VOICES and the tests do not use
ESPEAK_VOICES: tuple[tuple[str, int], ...] = (
    ("en-us+f2", 150),
    ("en-029", 160),
    ("en-gb-x-gbclan", 170),
    ("en-us-nyc", 155),
    ("en-gb-x-gbcwmd", 140),
    ("en-us+m3", 190),
    ("en-gb+f4", 130),
)

#: Piper joe at three speaking rates (length_scale: > 1 is slower)
PIPER_RATES: tuple[float, ...] = (1.0, 1.25, 0.85)

#: (noise kind of bench.speech.NOISES, SNR in dB); None = clean
NOISE_CONDITIONS: tuple[tuple[str, float] | None, ...] = (
    None,
    ("fan", 15.0),
    ("keyboard", 12.0),
    ("music", 10.0),
    ("fan", 20.0),
    ("music", 18.0),
    ("keyboard", 20.0),
    ("fan", 10.0),
    ("music", 14.0),
)

__all__ = ["ESPEAK_VOICES", "NOISE_CONDITIONS", "PIPER_RATES", "QUESTIONS"]
