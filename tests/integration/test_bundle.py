"""The PyInstaller bundle, run the way a user without Python runs it: clean environment, no network.

The session fixture builds ``packaging/dist/parley`` with ``packaging/build.sh --if-stale`` (about two minutes on
two cores; nothing when the bundle is newer than every source), then each test starts the bundle's executable
with ``env -i``-like settings: an empty temporary ``HOME``, ``PATH=/usr/bin:/bin`` (no venv), ``LANG`` only, and
in a new network namespace without interfaces (``unshare -n``, root only; elsewhere the test runs with the
network and says so in its output). The GUI runs on Qt's offscreen platform.

Bad input covered: no audio devices, a home that cannot be written, a corrupt settings file: the bundle
starts, says what is wrong (self-test row, log or stderr) and exits cleanly.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import pytest

pytestmark = [pytest.mark.bundle, pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
BUILD_SH = ROOT / "packaging" / "build.sh"
BUNDLE = ROOT / "packaging" / "dist" / "parley"
EXE = BUNDLE / "parley"
LOG_REL = Path(".local/state/parley/log/parley.log")  # platformdirs' user log dir under HOME on Linux

BAD_CONFIG = '[loop\nmode = "sideways"\n'


def _unshare_net_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


NO_NETWORK = _unshare_net_works()


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The built bundle (built here unless a fresh one exists)."""
    required = os.environ.get("CI") == "true" or os.environ.get("PARLEY_REQUIRE_BUNDLE") == "1"
    if sys.platform != "linux":
        pytest.skip("the bundle build is Linux-only")
    if find_spec("PyInstaller") is None:
        msg = "PyInstaller is not installed in this venv (pip install -e '.[package]', or ./dev setup)"
        pytest.fail(msg) if required else pytest.skip(msg)
    env = dict(os.environ, PARLEY_PYTHON=sys.executable)
    t0 = time.monotonic()
    proc = subprocess.run(["bash", str(BUILD_SH), "--if-stale"], env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, f"build failed after {time.monotonic() - t0:.0f} s:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert EXE.is_file() and os.access(EXE, os.X_OK)
    return BUNDLE


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "PARLEY_INSTANCE_NAME": f"parley-bundle-test-{os.getpid()}-{time.monotonic_ns()}",
    }
    env.update(extra)
    return env


def run_bundle(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    cmd = (["unshare", "-n"] if NO_NETWORK else []) + [str(EXE), *args]
    if not NO_NETWORK:
        print("unshare -n is not available here: the bundle runs with the network (it must not use it)")
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def self_test(home: Path, cwd: Path, **extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, object]]]:
    out = cwd / "selftest.json"
    proc = run_bundle(["--self-test"], clean_env(home, PARLEY_SELFTEST_JSON=str(out), **extra), cwd)
    assert out.exists(), f"no self-test result (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    rows = {c["name"]: c for c in json.loads(out.read_text(encoding="utf-8"))["checks"]}
    return proc, rows


def gui(home: Path, cwd: Path, *, until: str = "voice loop ready", **extra: str) -> subprocess.CompletedProcess[str]:
    """Start the window, wait until the log shows ``until`` (at most 240 s), then SIGTERM it (the app quits cleanly).

    ``until=""``: no log to wait for (e.g. the home cannot be written): the app quits itself after 10 s.
    """
    quit_after = "10" if not until else "300"  # the app's own backstop
    cmd = (["unshare", "-n"] if NO_NETWORK else []) + [str(EXE), "--quit-after", quit_after]
    out_path, err_path = cwd / "gui.out", cwd / "gui.err"
    with out_path.open("w") as out, err_path.open("w") as err:
        proc = subprocess.Popen(cmd, env=clean_env(home, **extra), cwd=cwd, stdout=out, stderr=err)
        try:
            if until:
                logf = home / LOG_REL
                deadline = time.monotonic() + 240
                while time.monotonic() < deadline and proc.poll() is None:
                    if logf.exists() and until in logf.read_text(encoding="utf-8", errors="replace"):
                        break
                    time.sleep(0.1)
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return subprocess.CompletedProcess(cmd, proc.returncode, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"))


def no_sound_cards() -> None:
    if Path("/dev/snd").exists():
        pytest.skip("this machine has sound cards: 'no audio devices' cannot be simulated here")


def explain(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-5000:]}"


# -- the self-test -----------------------------------------------------------------------------------------------


def test_self_test_passes_offline_in_a_clean_environment_with_the_models_inside_the_bundle(bundle: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc, rows = self_test(home, tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert "self-test PASS" in proc.stdout
    for name in ("load vad", "load whisper", "load piper", "load llm", "synthesize", "transcribe", "generate"):
        assert rows[name]["status"] == "pass", rows[name]
    for name in ("load whisper", "load piper", "load llm"):
        assert str(bundle / "_internal") in str(rows[name]["detail"]), f"{name} did not load from the bundle: {rows[name]['detail']}"
    assert rows["portaudio"]["status"] == "pass", rows["portaudio"]
    assert str(bundle / "_internal") in str(rows["portaudio"]["detail"]), "PortAudio was not loaded from the bundle"
    for name in ("audio input", "audio output"):
        assert rows[name]["status"] in ("pass", "skip"), rows[name]


def _unshare_mount_works() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_self_test_passes_on_a_system_without_portaudio_python_or_the_venv(bundle: Path, tmp_path: Path) -> None:
    """In a private mount namespace the system's libportaudio, its Python libraries and the venv are hidden."""
    if not _unshare_mount_works():
        pytest.skip("unshare -m needs root: cannot hide system libraries here")
    empty = tmp_path / "empty"
    empty.mkdir()
    libs = ("/usr/lib/x86_64-linux-gnu/libportaudio.so.2", "/usr/lib/libportaudio.so.2")
    hide = [str(Path(p).resolve()) for p in libs if Path(p).exists()]
    dirs = [str(ROOT / ".venv"), *(str(p) for p in Path("/usr/lib").glob("python3*") if p.is_dir())]
    dirs += [str(p) for p in Path("/usr/local/lib").glob("python3*") if p.is_dir()]
    mounts = [f"mount --bind /dev/null {f}" for f in hide] + [f"mount --bind {empty} {d}" for d in dirs if Path(d).is_dir()]
    home = tmp_path / "home"
    home.mkdir()
    out = tmp_path / "selftest.json"
    script = " && ".join([*mounts, f"exec {EXE} --self-test"])
    cmd = ["unshare", "-m", *(["-n"] if NO_NETWORK else []), "sh", "-c", script]
    env = clean_env(home, PARLEY_SELFTEST_JSON=str(out))
    proc = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, explain(proc)
    rows = {c["name"]: c for c in json.loads(out.read_text(encoding="utf-8"))["checks"]}
    assert rows["portaudio"]["status"] == "pass", rows["portaudio"]
    assert str(bundle / "_internal") in str(rows["portaudio"]["detail"])
    assert rows["transcribe"]["status"] == "pass" and rows["generate"]["status"] == "pass"


def test_self_test_opens_the_default_microphone_and_speaker(bundle: Path, tmp_path: Path, pulse_env: object) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc, rows = self_test(home, tmp_path, **pulse_env.client_env())  # type: ignore[attr-defined]
    assert proc.returncode == 0, explain(proc)
    assert rows["audio input"]["status"] == "pass", rows["audio input"]
    assert rows["audio output"]["status"] == "pass", rows["audio output"]


def test_self_test_without_audio_devices_skips_them_with_the_reason_and_still_passes(bundle: Path, tmp_path: Path) -> None:
    no_sound_cards()
    home = tmp_path / "home"
    home.mkdir()
    proc, rows = self_test(home, tmp_path, PULSE_SERVER=f"unix:{tmp_path}/no-such-pulse-socket")
    assert proc.returncode == 0, explain(proc)
    for name in ("audio input", "audio output"):
        assert rows[name]["status"] == "skip", rows[name]
        assert str(rows[name]["detail"]).startswith("no device:"), rows[name]


def test_self_test_with_a_corrupt_config_warns_naming_the_file_and_tests_the_defaults(bundle: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    cfg = home / ".config" / "parley" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(BAD_CONFIG, encoding="utf-8")
    proc, rows = self_test(home, tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert rows["settings"]["status"] == "warn"
    assert str(cfg) in str(rows["settings"]["detail"])
    assert rows["generate"]["status"] == "pass"
    assert cfg.read_text(encoding="utf-8") == BAD_CONFIG


def test_self_test_with_an_unwritable_home_warns_about_the_log_and_still_passes(bundle: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("", encoding="utf-8")
    proc, rows = self_test(blocker / "home", tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert rows["log directory"]["status"] == "warn"
    assert "PARLEY_LOG_DIR" in str(rows["log directory"]["detail"])


# -- the window --------------------------------------------------------------------------------------------------


def test_gui_starts_offscreen_shows_the_window_and_exits_cleanly(bundle: Path, tmp_path: Path, pulse_env: object) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = gui(home, tmp_path, **pulse_env.client_env())  # type: ignore[attr-defined]
    assert proc.returncode == 0, explain(proc)
    log = (home / LOG_REL).read_text(encoding="utf-8")
    assert "window shown" in log
    assert "voice loop ready" in log and "(voice on)" in log, log[-3000:]
    assert "closed cleanly" in log
    assert "Failed to execute script" not in proc.stderr


def test_gui_without_audio_devices_starts_says_why_and_exits_cleanly(bundle: Path, tmp_path: Path) -> None:
    no_sound_cards()
    home = tmp_path / "home"
    home.mkdir()
    proc = gui(home, tmp_path, PULSE_SERVER=f"unix:{tmp_path}/no-such-pulse-socket")
    assert proc.returncode == 0, explain(proc)
    log = (home / LOG_REL).read_text(encoding="utf-8")
    assert "window shown" in log
    assert "no audio" in log and "device found" in log  # the reason, as the window's dialog shows it
    assert "(voice off)" in log  # typing still works
    assert "closed cleanly" in log


def test_gui_with_an_unwritable_home_starts_and_says_where_the_log_cannot_go(bundle: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("", encoding="utf-8")
    proc = gui(blocker / "home", tmp_path, until="")
    assert proc.returncode == 0, explain(proc)
    assert "cannot write the log file" in proc.stderr and "PARLEY_LOG_DIR" in proc.stderr
    assert "Failed to execute script" not in proc.stderr


def test_gui_with_a_corrupt_config_starts_on_the_defaults_and_leaves_the_file(bundle: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    cfg = home / ".config" / "parley" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(BAD_CONFIG, encoding="utf-8")
    proc = gui(home, tmp_path)
    assert proc.returncode == 0, explain(proc)
    log = (home / LOG_REL).read_text(encoding="utf-8")
    assert "window shown" in log and "voice loop ready" in log  # started on the defaults
    assert "closed cleanly" in log
    assert cfg.read_text(encoding="utf-8") == BAD_CONFIG


def test_the_bundle_carries_the_voice_and_no_openwakeword_models(bundle: Path) -> None:
    names = {p.name for p in bundle.rglob("*") if p.is_file()}
    dirs = {p.name for p in bundle.rglob("*") if p.is_dir()}
    assert {"en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json"} <= names
    # openWakeWord's wake word models are CC BY-NC-SA 4.0: the opt-in engine is never part of a release
    assert "pyopen_wakeword" not in dirs
    assert not names & {"embedding_model.tflite", "melspectrogram.tflite", "hey_rhasspy.tflite"}
