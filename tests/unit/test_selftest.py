"""``parley --self-test``: the runner, the table, the exit code and the checks that need no model (fakes only)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import pytest
from audio_fakes import FakeBackend, device

from app import selftest
from app.selftest import Check, CheckSkipped, CheckWarning, Report, SelfTest, offline_stack, run_checks, word_recall
from app.settings import Settings


def ok(detail: str = "fine") -> Check:
    async def run() -> str:
        return detail

    return Check(f"ok-{detail}", run)


def raising(exc: BaseException, name: str = "bad") -> Check:
    async def run() -> str:
        raise exc

    return Check(name, run)


def args(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = {"config": None, "input_device": None, "output_device": None}
    base.update(kw)
    return argparse.Namespace(**base)


async def test_exception_fails_its_row_with_the_message_and_later_checks_still_run() -> None:
    report = await run_checks([raising(RuntimeError("model exploded")), ok("after")])
    assert [r.status for r in report.results] == ["fail", "pass"]
    assert "RuntimeError: model exploded" in report.results[0].detail
    assert report.exit_code() == 1


async def test_skipped_and_warned_rows_do_not_fail_the_run() -> None:
    report = await run_checks([ok(), raising(CheckSkipped("no device: none here"), "mic"), raising(CheckWarning("bad file"), "cfg")])
    assert [r.status for r in report.results] == ["pass", "skip", "warn"]
    assert report.ok and report.exit_code() == 0


async def test_check_past_its_time_limit_fails_instead_of_hanging() -> None:
    async def forever() -> str:
        await asyncio.sleep(3600)
        return "never"

    report = await asyncio.wait_for(run_checks([Check("stuck", forever, timeout_s=0.05), ok()]), 10)
    assert report.results[0].status == "fail"
    assert "no result within" in report.results[0].detail
    assert report.results[1].status == "pass"


async def test_table_has_one_row_per_check_with_status_time_detail_and_a_verdict() -> None:
    report = await run_checks([ok("loaded"), raising(CheckSkipped("no device: nothing"), "audio input")])
    lines = report.table().splitlines()
    assert lines[0].split()[:2] == ["check", "result"]
    row = next(line for line in lines if line.startswith("audio input"))
    assert "SKIP" in row and " s " in row and "no device: nothing" in row
    assert lines[-1].startswith("self-test PASS: 1 passed, 0 failed, 1 skipped")


def test_failed_report_verdict_and_json_agree() -> None:
    report = Report([selftest.CheckResult("x", "fail", 0.1, "broken"), selftest.CheckResult("y", "pass", 0.2, "")], 0.3)
    assert report.table().splitlines()[-1].startswith("self-test FAIL")
    data = report.to_json()
    assert data["ok"] is False
    assert [c["status"] for c in data["checks"]] == ["fail", "pass"]


def test_word_recall_ignores_case_and_punctuation_and_counts_each_expected_word_once() -> None:
    assert word_recall("Hello, this is the Parley self test.", "hello this is the parley self-test") == 1.0
    assert word_recall("the cat the hat", "the cat") == pytest.approx(0.5)
    assert word_recall("one two three four", "") == 0.0


def test_offline_stack_keeps_configured_offline_components() -> None:
    stack = offline_stack(Settings())
    assert (stack.generator.name, stack.voice.name, stack.asr.name, stack.vad.name) == (
        "offline/smollm2",
        "tts/joe",
        "asr/whisper-base",
        "vad/webrtc",
    )
    assert stack.notes == {}


def test_offline_stack_tests_the_shipped_model_when_the_loop_uses_an_online_generator() -> None:
    settings = Settings.model_validate(
        {
            "providers": {"openai": {"kind": "openai-chat"}},
            "generators": [{"name": "openai/gpt-4o-mini", "provider": "openai", "model": "gpt-4o-mini"}],
            "loop": {"generator": "openai/gpt-4o-mini"},
        },
        strict=False,
    )
    stack = offline_stack(settings)
    assert stack.generator.name == "offline/smollm2"
    assert "openai/gpt-4o-mini" in stack.notes["generator"]


async def test_corrupt_config_is_a_warning_naming_the_file_and_the_defaults_are_used(tmp_path: Path) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text("[loop\nmode = 'sideways'\n", encoding="utf-8")
    st = SelfTest(args(config=str(bad)))
    with pytest.raises(CheckWarning) as e:
        await st.check_settings()
    assert str(bad) in str(e.value)
    assert st.settings == Settings()
    assert bad.read_text(encoding="utf-8") == "[loop\nmode = 'sideways'\n"  # left for the user to fix


async def test_unwritable_log_directory_is_a_warning_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("PARLEY_LOG_DIR", str(blocker / "log"))
    with pytest.raises(CheckWarning, match="PARLEY_LOG_DIR"):
        await SelfTest(args()).check_log_dir()


async def test_no_audio_devices_are_skipped_with_the_reason() -> None:
    st = SelfTest(args(), audio_backend=FakeBackend(devices=[]))
    report = await run_checks([Check("audio input", st.check_audio_input), Check("audio output", st.check_audio_output)])
    assert [r.status for r in report.results] == ["skip", "skip"]
    assert all(r.detail.startswith("no device:") for r in report.results)
    assert report.exit_code() == 0


async def test_a_device_that_exists_but_cannot_be_opened_fails() -> None:
    backend = FakeBackend(devices=[device(0, "Broken Speaker", ins=0)], default_out=0, unavailable=True)
    st = SelfTest(args(), audio_backend=backend)
    report = await run_checks([Check("audio output", st.check_audio_output)])
    assert report.results[0].status == "fail"
    assert "Broken Speaker" in report.results[0].detail


async def test_model_checks_are_skipped_when_their_component_did_not_load() -> None:
    st = SelfTest(args())
    report = await run_checks([Check("synthesize", st.check_synthesize), Check("generate", st.check_generate)])
    assert [r.status for r in report.results] == ["skip", "skip"]
    assert "not run" in report.results[0].detail


def test_main_exit_code_and_json_reflect_a_failed_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "result.json"
    monkeypatch.setenv("PARLEY_SELFTEST_JSON", str(out))
    monkeypatch.setenv("PARLEY_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.setattr(selftest, "_setup_logging", lambda: None)  # keep the root logger of the test process as it is
    monkeypatch.setattr(SelfTest, "checks", lambda self: [ok("a"), raising(RuntimeError("boom"), "load llm")])
    assert selftest.main(args()) == 1
    printed = capsys.readouterr().out
    assert "load llm" in printed and "self-test FAIL" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["ok"] is False and data["checks"][1]["name"] == "load llm"


def test_main_returns_zero_when_everything_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.delenv("PARLEY_SELFTEST_JSON", raising=False)
    monkeypatch.setattr(selftest, "_setup_logging", lambda: None)
    monkeypatch.setattr(SelfTest, "checks", lambda self: [ok("a"), raising(CheckSkipped("no device: x"), "mic")])
    assert selftest.main(args()) == 0
