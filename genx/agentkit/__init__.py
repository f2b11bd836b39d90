"""agentkit: the device-free, Qt-free voice loop built from genx parts.

Owns: the loop's events and command surface (:mod:`.events`, with
:mod:`.event_bus`'s ``EventBus`` and :mod:`.control`'s ``LoopControl``) and the voice loop in parts, each with one job:
:mod:`.loop` (the ``VoiceLoop`` facade the app uses; switching conversations in :mod:`.loop_conversation`), :mod:`.core` (config,
clocks, events and state every part shares), :mod:`.mic` (level meter, echo
canceller and gate, mute, pre-roll), :mod:`.router` (VAD / push-to-talk routes,
pause flush via :mod:`.pauses`, utterance cap), :mod:`.asr_feed` (utterance
routes to the ASR, transcripts back, ASR timeouts), :mod:`.turn_manager` (a
state machine: turn open/join, barge-in admission, end of turn, held answers),
:mod:`.answers` (generation → TTS → player, watchdog; the ordered cut in :mod:`.answer_cut`),
:mod:`.heard` (player positions → heard text, echo far end), :mod:`.recorder`
(history, store, metrics, prompt prefill), :mod:`.wake` (the wake word gate before the VAD), :mod:`.memory_link` (long-term
memory: recall into each answer's context, recorded turns out to extraction), :mod:`.announce` (fired timers spoken
after a chime when the floor is free), :mod:`.tool_activity` (the answer's tool
calls as events and as history messages, stored in :mod:`.messages`' form); realtime mode, where one
speech-to-speech session replaces ASR + generator + TTS (:mod:`.realtime_mode`:
turns, barge-in, transcripts; :mod:`.realtime_session`: the session, its tool
calls, reopening; :mod:`.realtime_output`: heard text of a response, the player
that truncates the provider's item); plus the turn data (:mod:`.turns`),
the parts' device interfaces (:mod:`.ports`), the player's per-answer
pull-through source (:mod:`.speaker`), per-answer TTS with segment recording
(:mod:`.tts`), the spoken-only history and its word alignment (:mod:`.spoken`, :mod:`.prefix_match`, :mod:`.words`,
:mod:`.history`), the conversation store (:mod:`.store`; its records and turn-id
numbering in :mod:`.records`), per-turn metrics
(:mod:`.metrics`), echo handling (:mod:`.echo`) and deterministic fakes for
tests and UI work (:mod:`.testing`: the ``Rig``; the stand-ins in :mod:`.testing_input`,
:mod:`.testing_asr`, :mod:`.testing_generator`, :mod:`.testing_output`).

Does not own: audio devices (``app.audio``'s Capture / Player fit the ports),
the window (``app.ui``), building the stack from settings (``app.headless``),
the models (``genx.local``, ``genx.generators``, ``genx.transformers``).

Design, and why:

* **The speaker is the clock.** Each answer's TTS stream is handed to the player
  through :class:`.speaker.AnswerAudio`, which forwards every pull straight to the
  TTS output: nothing is prefetched, so what the player has not pulled is still
  in the streamkit queue, where ``TTSStream.interrupt`` drops it. The player
  reports samples handed out and *heard* (from PortAudio's DAC times).
* **Spoken-only history.** A per-answer wrapper around the synthesizer
  (:class:`.tts.RecordingSynthesizer`) records each segment's text and byte span;
  :func:`.spoken.spoken_prefix` maps heard samples to words (proportionally to
  characters over the segment's voiced range, a word counts once its last letter
  was heard; a segment cut mid-synthesis is sized by the measured speaking rate).
  An interrupted turn keeps exactly those words, marked ``interrupted``; an
  answer cut before its first word leaves the user's words to be merged into
  the next question (:class:`.history.History`).
* **Barge-in** (:meth:`.answers.AnswerRunner.cut`): player stop (discard) → streamkit
  interrupt → generation cancelled → TTS stream closed; history is written once
  the player returned the heard position, and a new answer waits for that, so
  rapid or very early barge-ins never leave history out of order.
* **Echo** (:mod:`.echo`): WebRTC AEC3 (``pywebrtc_audio``) fed with the played
  audio on a continuous far-end timeline (PortAudio's reported times jitter by
  ±25 ms over PulseAudio; AEC3 tolerates any steady delay but re-converges for
  seconds after every jump), a GCC-PHAT delay estimator that re-aligns only a
  reference that would lag the echo, then a residual echo gate that learns the
  echo level (not from audio that barged in) and silences frames the far end
  explains, with a raw-capture path because AEC3 may suppress the user's voice
  while the far end plays. A stricter VAD while speaking is the last layer.
* **Threads.** Everything here runs on the event loop; models run in their
  transformers' worker threads. Device callbacks hand over with
  ``call_soon_threadsafe`` (``app.audio``).
"""
