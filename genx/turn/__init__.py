"""End-of-turn detection: is the user's utterance finished at this pause?

Owns the :class:`~genx.turn.detector.TurnDetector` protocol and its verdict
(:mod:`genx.turn.detector`, with the silence rule and the typed errors), the
Smart Turn v3.2 audio model (:mod:`genx.turn.smart_turn`: ONNX weights from the
``pipecat-ai`` wheel, Whisper log-mel input from faster-whisper's feature
extractor), the text signal of the in-process SmolLM2 (:mod:`genx.turn.text`:
the probability that the user message ends after the provisional transcript)
and the rule that combines the two (:mod:`genx.turn.combined`).

Every detector scores on a worker thread (never on the event loop) and every
call owns its state, so checks of overlapping pauses do not wait for each
other except where a model demands it (the llama.cpp context has one lock).

Does not own: when a check runs or what a verdict does to the turn (the voice
loop's turn manager: pause timers, ``max_end_of_turn_ms``, held answers), voice
activity detection (:mod:`genx.local.vad`), or the ASR that makes the
transcript. Importing this package imports no model runtime (onnxruntime,
faster-whisper, llama.cpp): each loads when a detector is first warmed or used.
"""

from genx.turn.detector import SilenceRule, TurnDetector, TurnModelError, TurnVerdict

__all__ = ["SilenceRule", "TurnDetector", "TurnModelError", "TurnVerdict"]
