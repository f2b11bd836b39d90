"""Cloud speech transformers over HTTP: OpenAI transcription (ASR) and OpenAI speech (TTS).

Owns: :class:`OpenAISpeechSynthesizer` (``POST /v1/audio/speech``, ``pcm`` or
``mp3``; plugged into the streamkit TTS pipeline, which segments sentences and
runs MP3 through the normaliser), :class:`OpenAITranscriber` (``POST
/v1/audio/transcriptions`` per utterance, streamed transcript events for the
models that offer them) and their model-loader factories (kinds
``openai-speech`` for ``[[voices]]``, ``openai-transcribe`` for ``[asr]``).

Does not own: the HTTP transport and typed errors (``genx.generators.providers``),
defaults and key rules (the kinds table), utterance cutting (the VAD), the
TTS pipeline (``streamkit``).
"""

from genx.transformers.cloud.openai_speech import OpenAISpeechSynthesizer
from genx.transformers.cloud.openai_transcribe import OpenAITranscriber

__all__ = ["OpenAISpeechSynthesizer", "OpenAITranscriber"]
