"""streamkit: the transformer runtime (internal to ``genx.transformers``).

Owns: the per-call output queue with byte limit and pull observers
(:mod:`.output`), the invocation / response lifecycle with interrupt, cancel,
fail and close (:mod:`.invocation`, :mod:`.response`), fresh local StreamIDs
for model responses (:mod:`.response_ids`), spoken-text filtering and sentence
segmentation for TTS (:mod:`.spoken_text`, :mod:`.segmenter`) and the TTS
pipeline (:mod:`.tts_pipeline`).

Does not own: providers, synthesizers or models (they plug in through small
protocols such as :class:`genx.transformers.tts.Synthesizer`), audio container
parsing (:mod:`genx.transformers.audiostream`), devices, agents. streamkit never
supplies a role or label: producers give route metadata and streamkit keeps it
on the terminal chunks it generates.
"""

from genx.transformers.streamkit.errors import InactiveResponseError, InvocationClosedError, OutputLimitError, ResponseActiveError
from genx.transformers.streamkit.invocation import CANCELED_TEXT, INTERRUPTED_TEXT, Invocation, InvocationStream
from genx.transformers.streamkit.output import Entry, OutputQueue, PullObserver
from genx.transformers.streamkit.response import Response, ResponseConfig
from genx.transformers.streamkit.response_ids import ResponseIDs, ResponseStream
from genx.transformers.streamkit.segmenter import SentenceSegmenter, has_speakable
from genx.transformers.streamkit.spoken_text import SpokenTextFilter
from genx.transformers.streamkit.tts_pipeline import TTSPipeline, TTSStream

__all__ = [
    "CANCELED_TEXT",
    "INTERRUPTED_TEXT",
    "Entry",
    "InactiveResponseError",
    "Invocation",
    "InvocationClosedError",
    "InvocationStream",
    "OutputLimitError",
    "OutputQueue",
    "PullObserver",
    "Response",
    "ResponseActiveError",
    "ResponseConfig",
    "ResponseIDs",
    "ResponseStream",
    "SentenceSegmenter",
    "SpokenTextFilter",
    "TTSPipeline",
    "TTSStream",
    "has_speakable",
]
