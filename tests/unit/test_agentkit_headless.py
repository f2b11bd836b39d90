"""``parley --headless`` without real devices: device errors, the terminal view."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from audio_fakes import FakeBackend

from app.headless import EXIT_NO_DEVICE, TerminalView, run_headless
from genx.agentkit.events import (
    AssistantDone,
    AssistantSpoken,
    BargeIn,
    ErrorKind,
    LoopError,
    TurnMetrics,
    UserFinal,
    UserPartial,
)

pytestmark = pytest.mark.timeout(60)


def _args(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = {
        "config": None,
        "input_device": None,
        "output_device": None,
        "mode": None,
        "generator": None,
        "quit_after": 1,
    }
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_CONFIG", str(tmp_path / "none.toml"))


async def test_no_audio_device_at_all_exits_2_with_a_clear_message_and_no_traceback() -> None:
    out, err = io.StringIO(), io.StringIO()
    rc = await run_headless(_args(), out=out, err=err, backend=FakeBackend(devices=[], default_in=-1, default_out=-1))
    assert rc == EXIT_NO_DEVICE
    msg = err.getvalue()
    assert "no audio input device" in msg and "--list-devices" in msg
    assert "Traceback" not in msg + out.getvalue()


async def test_a_device_that_refuses_every_rate_exits_2_naming_the_problem() -> None:
    err = io.StringIO()
    backend = FakeBackend(accept=lambda req: False)
    rc = await run_headless(_args(), out=io.StringIO(), err=err, backend=backend)
    assert rc == EXIT_NO_DEVICE
    assert "Fake Mic" in err.getvalue() or "rate" in err.getvalue()
    assert backend.open_stream_count() == 0


async def test_an_unknown_device_name_exits_2() -> None:
    err = io.StringIO()
    rc = await run_headless(_args(input_device="No Such Mic"), out=io.StringIO(), err=err, backend=FakeBackend())
    assert rc == EXIT_NO_DEVICE
    assert "No Such Mic" in err.getvalue()


def test_terminal_view_prints_finals_spoken_answers_barge_ins_metrics_and_errors() -> None:
    out = io.StringIO()
    view = TerminalView(out)
    view(UserPartial(turn_id="t1", text="what is"))  # not a terminal: partials are not printed
    view(UserFinal(turn_id="t1", text="what is the time"))
    view(AssistantSpoken(turn_id="t1", spoken_text="It is"))
    view(BargeIn(turn_id="t1", latency_ms=84.2))
    view(AssistantDone(turn_id="t1", text="It is noon.", interrupted=True, spoken_text="It is"))
    view(TurnMetrics(turn_id="t1", v2v_ms=512.0))
    view(LoopError(kind=ErrorKind.INPUT, message="heard something but no words"))
    lines = out.getvalue().splitlines()
    assert lines == [
        "you: what is the time",
        "  (barge-in: playback stopped in 84 ms)",
        "parley: It is [interrupted]",
        "  (turn t1: v2v 512 ms (asr -, llm -, tts -, out -))",
        "  ! input: heard something but no words",
    ]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_partials_update_one_line_that_the_final_replaces() -> None:
    out = _Tty()
    view = TerminalView(out)
    view(UserPartial(turn_id="t1", text="what is the"))
    view(UserPartial(turn_id="t1", text="what"))
    view(UserFinal(turn_id="t1", text="what is the time"))
    text = out.getvalue()
    assert "\rwhat" not in text
    assert "\ryou: what is the …" in text
    assert text.endswith("you: what is the time\n")
    assert text.count("\n") == 1


async def test_the_greeting_names_the_opened_microphone_and_speaker(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.headless import EXIT_CONFIG, Session

    def no_models(self: Session) -> None:
        return None

    async def models_fail(self: Session, on_event: object = None) -> None:
        raise OSError("model files missing")

    monkeypatch.setattr(Session, "build", no_models)
    monkeypatch.setattr(Session, "start", models_fail)
    out, err = io.StringIO(), io.StringIO()
    backend = FakeBackend()
    rc = await run_headless(_args(), out=out, err=err, backend=backend)
    assert rc == EXIT_CONFIG and "model files missing" in err.getvalue()
    first = out.getvalue().splitlines()[0]
    assert first == (
        "parley: microphone [0] Fake Mic (FakeAPI, 2 in / 0 out, 16000 Hz, default input), "
        "speaker [1] Fake Speaker (FakeAPI, 0 in / 2 out, 48000 Hz, default output)"
    )
    assert backend.open_stream_count() == 0


def test_underruns_are_told_once_in_parleys_words_and_device_loss_every_time() -> None:
    from app.audio.link import AudioEvent
    from app.terminal import AudioNotices

    out = io.StringIO()
    notices = AudioNotices(TerminalView(out))
    notices(AudioEvent("opened", "output", "Speaker", "opened [1] Speaker at 48000 Hz mono"))
    for n in (1, 2, 3):
        notices(AudioEvent("underrun", "output", "Speaker", "the device ran dry; silence inserted", count=n))
    notices(AudioEvent("device_lost", "output", "Speaker", "the stream is no longer active"))
    notices(AudioEvent("underrun", "output", "Speaker", "the device ran dry; silence inserted", count=4))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("  ~ audio output Speaker: playback stuttered")
    assert "ALSA" not in lines[0] and "snd_pcm" not in lines[0]
    assert lines[1] == "  ~ audio output Speaker: the stream is no longer active"
