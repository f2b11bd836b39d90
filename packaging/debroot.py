"""Install the ``.deb`` into a throwaway root, run it there, install it again, purge it; report what happened.

    python3 packaging/debroot.py packaging/dist/parley_<version>_<arch>.deb [--gui] [--json OUT]

The root is a copy-on-write view of this system: an overlay whose lower layer is ``/`` and whose upper layer is
a tmpfs, in a private mount namespace (``unshare -m``; ``unshare -r -m`` when not root). Every file the package
or its triggers write lands in the upper layer, so after the purge that layer lists exactly what was left
behind, and this system is never touched. The package's dependencies are satisfied by this system's packages
(its dpkg database is the lower layer's): a minimal Debian root made with debootstrap would need a mirror and
minutes per run. What could make the bundle work here but not on a user's machine is hidden inside the root:
the repository and its venv (``/work``), this user's home, the system's Python libraries and its PortAudio.

Steps, each with its exit status, duration and output tail: ``install`` (``dpkg -i``), ``self_test``
(``parley --self-test`` from ``PATH`` in a new network namespace without interfaces, empty ``HOME``, Qt
offscreen; its JSON rows are in ``self_test_rows``), ``gui`` with ``--gui`` (launch → "window shown" and →
"voice loop ready" in the log, then SIGTERM), ``reinstall`` (``dpkg -i`` over the installed package),
``remove`` (``dpkg -r``), ``purge`` (``dpkg -P``). Then ``leftovers``: files in the upper layer outside
dpkg's own database, logs and the system caches that triggers regenerate, and any path naming the package.

Stdlib only; needs root or unprivileged user namespaces, and ``unshare``, ``mount``, ``chroot`` from util-linux.
The last line printed is one JSON object (also written to ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INNER = "PARLEY_DEBROOT_INNER"
PACKAGE = "parley"
LOG_REL = Path(".local/state/parley/log/parley.log")
# Files triggers and dpkg rewrite for every package: not left behind by this one.
SYSTEM_STATE = (
    "var/lib/dpkg/",
    "var/log/",
    "var/cache/",
    "var/lib/ucf/",
    "usr/share/applications/mimeinfo.cache",
    "usr/share/icons/hicolor/icon-theme.cache",
    "etc/ld.so.cache",
)
HIDE_DIRS = ["/work", "/root", "/home", "/tmp"]


def run(cmd: list[str], timeout: float = 900, **kw: object) -> dict[str, object]:
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)  # type: ignore[call-overload]
        rc, out = p.returncode, (p.stdout + p.stderr)
    except subprocess.TimeoutExpired as e:
        rc, out = -1, f"timed out after {timeout} s: {e}"
    return {"rc": rc, "seconds": round(time.monotonic() - t0, 2), "tail": out[-4000:]}


def app_env(home: str) -> dict[str, str]:
    return {
        "HOME": home,
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "PARLEY_SELFTEST_JSON": "/tmp/selftest.json",
    }


def make_root(base: Path) -> Path:
    """The overlay root under ``base`` (a tmpfs), with /proc, /dev and the hidden places."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4g", "tmpfs", str(base)], check=True)
    for d in ("upper", "work", "root"):
        (base / d).mkdir()
    root = base / "root"
    opts = f"lowerdir=/,upperdir={base / 'upper'},workdir={base / 'work'}"
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o", opts, str(root)], check=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    subprocess.run(["mount", "--rbind", "/dev", str(root / "dev")], check=True)
    subprocess.run(["mount", "--make-rslave", str(root / "dev")], check=True)
    hidden = [d for d in HIDE_DIRS if Path(d).is_dir()]
    hidden += [str(p) for pat in ("usr/lib/python3*", "usr/local/lib/python3*") for p in Path("/").glob(pat) if p.is_dir()]
    for d in hidden:
        subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(root / d.lstrip("/"))], check=True)
    for lib in Path("/").glob("usr/lib/*/libportaudio.so*"):
        if lib.is_file() and not lib.is_symlink():
            subprocess.run(["mount", "--bind", "/dev/null", str(root / str(lib).lstrip("/"))], check=True)
    return root


def leftovers(upper: Path) -> list[str]:
    out = []
    for p in sorted(upper.rglob("*")):
        rel = str(p.relative_to(upper))
        if p.is_dir() and not p.is_symlink():
            continue
        if PACKAGE in rel.lower() or not rel.startswith(SYSTEM_STATE):
            out.append(rel + (" (whiteout)" if p.is_char_device() else ""))
    return out


def gui(root: Path, home: str) -> dict[str, object]:
    """Launch the window; seconds to "window shown" and to "voice loop ready" (log polled every 10 ms)."""
    log = root / home.lstrip("/") / LOG_REL
    cmd = [
        "chroot",
        str(root),
        "unshare",
        "-n",
        "env",
        "-i",
        *(f"{k}={v}" for k, v in app_env(home).items()),
        PACKAGE,
        "--quit-after",
        "300",
    ]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    window = ready = None
    while time.monotonic() - t0 < 240 and proc.poll() is None:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        if window is None and "window shown" in text:
            window = round(time.monotonic() - t0, 2)
        if "voice loop ready" in text:
            ready = round(time.monotonic() - t0, 2)
            break
        time.sleep(0.01)
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return {
        "rc": proc.returncode,
        "window_s": window,
        "ready_s": ready,
        "closed_cleanly": "closed cleanly" in text,
        "tail": (out or "")[-3000:],
    }


def inner(deb: Path, with_gui: bool) -> dict[str, object]:
    base = Path(tempfile.mkdtemp(prefix="parley-debroot-"))
    report: dict[str, object] = {"deb": str(deb), "deb_mb": round(deb.stat().st_size / 1e6, 1), "root": "overlay on / (tmpfs upper)"}
    root = make_root(base)
    shutil.copyfile(deb, root / "tmp" / deb.name)
    in_root = f"/tmp/{deb.name}"
    steps: dict[str, dict[str, object]] = {}
    steps["install"] = run(["chroot", str(root), "dpkg", "-i", in_root])
    opt = root / "opt" / PACKAGE
    report["installed_mb"] = round(sum(p.lstat().st_size for p in opt.rglob("*")) / 1e6, 1) if opt.is_dir() else None
    listed = run(["chroot", str(root), "dpkg", "-L", PACKAGE])
    report["installed_paths"] = [p for p in str(listed["tail"]).splitlines() if p.startswith("/usr/")]
    home = "/tmp/home"
    (root / "tmp" / "home").mkdir()
    env_args = [f"{k}={v}" for k, v in app_env(home).items()]
    steps["self_test"] = run(["chroot", str(root), "unshare", "-n", "env", "-i", *env_args, PACKAGE, "--self-test"], timeout=600)
    try:
        report["self_test_rows"] = json.loads((root / "tmp" / "selftest.json").read_text(encoding="utf-8"))["checks"]
    except (OSError, ValueError, KeyError):
        report["self_test_rows"] = None
    if with_gui:
        shutil.rmtree(root / "tmp" / "home")
        (root / "tmp" / "home").mkdir()
        steps["gui"] = gui(root, home)
    steps["reinstall"] = run(["chroot", str(root), "dpkg", "-i", in_root])
    steps["remove"] = run(["chroot", str(root), "dpkg", "-r", PACKAGE])
    steps["purge"] = run(["chroot", str(root), "dpkg", "-P", PACKAGE])
    report["steps"] = steps
    report["after_purge_exists"] = [
        p for p in ("opt/parley", "usr/bin/parley", "usr/share/applications/parley.desktop") if (root / p).exists()
    ]
    report["leftovers"] = leftovers(base / "upper")
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("deb", type=Path)
    ap.add_argument("--gui", action="store_true", help="also start the window and time it")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    deb: Path = args.deb.resolve()
    if not deb.is_file():
        raise SystemExit(f"no package at {deb}; build it with: bash packaging/build.sh --deb")
    if os.environ.get(INNER) != "1":
        ns = ["unshare", "-m", "--propagation", "private"] + ([] if os.geteuid() == 0 else ["-r"])
        cmd = [*ns, sys.executable, str(Path(__file__).resolve()), *sys.argv[1:]]
        return subprocess.run(cmd, env=dict(os.environ, **{INNER: "1"})).returncode
    report = inner(deb, args.gui)
    text = json.dumps(report)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
