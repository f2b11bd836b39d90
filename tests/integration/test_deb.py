"""The Debian package and the release archive, installed and run the way a user would.

The package is built from the bundle the bundle smoke test builds (``test_bundle.bundle``: rebuilt only when
sources changed), with ``packaging/deb.py --fast`` into ``packaging/build/test-deb/`` (gzip -1: the same files
as the release package, which is xz -9 and takes minutes; rebuilt only when the bundle is newer).

``packaging/debroot.py`` installs it into a throwaway root: an overlay of this system with a tmpfs upper layer
in a private mount namespace (a full debootstrap chroot would need a mirror and minutes per run; see its
docstring), where the repository, its venv, the system's Python and PortAudio are hidden. There it runs
``parley --self-test`` from ``PATH`` without network (``unshare -n``) and with an empty ``HOME``, starts the
window (offscreen), installs the package a second time over the first, removes and purges it, and lists what
the package left behind in the upper layer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.integration.test_bundle import bundle  # noqa: F401  (the session fixture that builds or reuses the bundle)

pytestmark = [pytest.mark.bundle, pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
DEB_PY = ROOT / "packaging" / "deb.py"
DEBROOT_PY = ROOT / "packaging" / "debroot.py"
OUT = ROOT / "packaging" / "build" / "test-deb"
REQUIRED = os.environ.get("CI") == "true" or os.environ.get("PARLEY_REQUIRE_BUNDLE") == "1"


def build(kind: str, bundle_dir: Path) -> Path:
    cmd = [sys.executable, str(DEB_PY), f"--{kind}", "--fast", "--if-stale", "--bundle", str(bundle_dir), "--out", str(OUT)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{kind} build failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return Path(json.loads(proc.stdout.strip().splitlines()[-1])[kind])


@pytest.fixture(scope="session")
def deb(bundle: Path) -> Path:  # noqa: F811
    for tool in ("dpkg-deb", "readelf"):
        if shutil.which(tool) is None:
            msg = f"{tool} is missing (apt-get install dpkg binutils)"
            pytest.fail(msg) if REQUIRED else pytest.skip(msg)
    return build("deb", bundle)


def _namespaces_work() -> bool:
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    try:
        return subprocess.run(["unshare", *flags, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="module")
def lifecycle(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """What happened when the package was installed, run, reinstalled and purged in a throwaway root."""
    if not _namespaces_work():
        pytest.skip("no mount namespace here (unshare -m needs root or user namespaces): cannot make a throwaway root")
    out = tmp_path_factory.mktemp("debroot") / "report.json"
    proc = subprocess.run(
        [sys.executable, str(DEBROOT_PY), str(deb), "--gui", "--json", str(out)], capture_output=True, text=True, timeout=1500
    )
    assert proc.returncode == 0 and out.exists(), f"debroot failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    report: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
    print(json.dumps({k: v for k, v in report.items() if k not in ("steps", "self_test_rows", "installed_paths")}))
    return report


def step(report: dict[str, object], name: str) -> dict[str, object]:
    steps = report["steps"]
    assert isinstance(steps, dict)
    s = steps[name]
    assert isinstance(s, dict)
    return s


def test_the_package_installs_its_files_in_the_standard_places(lifecycle: dict[str, object]) -> None:
    install = step(lifecycle, "install")
    assert install["rc"] == 0, install["tail"]
    paths = set(lifecycle["installed_paths"])  # type: ignore[call-overload]
    for p in (
        "/usr/bin/parley",
        "/usr/share/applications/parley.desktop",
        "/usr/share/icons/hicolor/scalable/apps/parley.svg",
        "/usr/share/icons/hicolor/256x256/apps/parley.png",
        "/usr/share/metainfo/io.parley.Parley.metainfo.xml",
        "/usr/share/man/man1/parley.1.gz",
        "/usr/share/doc/parley/copyright",
    ):
        assert p in paths, f"{p} is not installed; installed: {sorted(paths)}"
    assert float(lifecycle["installed_mb"]) > 100  # type: ignore[arg-type]


def test_the_installed_parley_passes_its_self_test_offline_with_an_empty_home(lifecycle: dict[str, object]) -> None:
    st = step(lifecycle, "self_test")
    assert st["rc"] == 0, st["tail"]
    assert "self-test PASS" in str(st["tail"])
    rows = {r["name"]: r for r in lifecycle["self_test_rows"]}  # type: ignore[union-attr]
    for name in ("load vad", "load whisper", "load piper", "load llm", "synthesize", "transcribe", "generate", "portaudio"):
        assert rows[name]["status"] == "pass", rows[name]
    for name in ("load whisper", "load piper", "load llm", "portaudio"):  # from the package, not the repo or the system
        assert "/opt/parley/_internal" in str(rows[name]["detail"]), rows[name]


def test_the_installed_window_starts_and_closes_cleanly(lifecycle: dict[str, object]) -> None:
    g = step(lifecycle, "gui")
    assert g["rc"] == 0 and g["window_s"] is not None and g["closed_cleanly"], g


def test_a_second_install_over_the_first_succeeds(lifecycle: dict[str, object]) -> None:
    again = step(lifecycle, "reinstall")
    assert again["rc"] == 0, again["tail"]
    assert "Unpacking parley" in str(again["tail"]) and "over (" in str(again["tail"])


def test_remove_and_purge_leave_no_file_of_the_package_behind(lifecycle: dict[str, object]) -> None:
    for name in ("remove", "purge"):
        s = step(lifecycle, name)
        assert s["rc"] == 0, (name, s["tail"])
    assert lifecycle["after_purge_exists"] == []
    assert lifecycle["leftovers"] == [], lifecycle["leftovers"]


def test_lintian_reports_no_errors(deb: Path) -> None:
    if shutil.which("lintian") is None:
        msg = "lintian is not installed (apt-get install lintian; ./dev setup does)"
        pytest.fail(msg) if REQUIRED else pytest.skip(msg)
    proc = subprocess.run(["lintian", "--fail-on", "error", str(deb)], capture_output=True, text=True, timeout=900)
    errors = [line for line in proc.stdout.splitlines() if line.startswith("E:")]
    assert errors == [] and proc.returncode == 0, "\n".join(errors[:40]) or proc.stderr[-3000:]


def _needed_outside(root: Path) -> set[str]:
    """SONAMEs the ELF files under ``root`` need that no file under ``root`` provides."""
    carried = {p.name for p in root.rglob("*.so*")}
    elves = [str(p) for p in root.rglob("*") if p.is_file() and not p.is_symlink() and p.read_bytes()[:4] == b"\x7fELF"]
    needed: set[str] = set()
    for i in range(0, len(elves), 200):
        out = subprocess.run(["readelf", "-d", "-W", *elves[i : i + 200]], capture_output=True, text=True).stdout
        needed |= set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
    return needed - carried


def debian_name(soname: str) -> str:
    """The Debian library package name for a SONAME not installed here: libwayland-egl.so.1 → libwayland-egl1."""
    base, _, version = soname.partition(".so.")
    return f"{base.lower()}{'-' if base[-1].isdigit() else ''}{version.split('.')[0]}"


def test_every_library_the_bundle_needs_but_does_not_carry_comes_from_a_declared_dependency(deb: Path, tmp_path: Path) -> None:
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path)], check=True)
    fields = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends", "Recommends"], capture_output=True, text=True, check=True).stdout
    declared = set(re.findall(r"([a-z0-9][a-z0-9+.-]+)(?:\s*\([^)]*\))?", fields.replace("Depends:", "").replace("Recommends:", "")))
    missing = {}
    for soname in sorted(_needed_outside(tmp_path / "opt" / "parley")):
        owner = subprocess.run(["dpkg", "-S", f"*/{soname}"], capture_output=True, text=True)
        pkgs = {line.split(":")[0] for line in owner.stdout.splitlines() if ":" in line} or {debian_name(soname)}
        if not pkgs & declared:
            missing[soname] = sorted(pkgs)
    assert missing == {}, f"not declared in Depends/Recommends ({sorted(declared)}): {missing}"


def test_the_release_archive_unpacks_to_a_folder_with_the_executable(bundle: Path, tmp_path: Path) -> None:  # noqa: F811
    if shutil.which("zstd") is None:
        msg = "zstd is missing (apt-get install zstd)"
        pytest.fail(msg) if REQUIRED else pytest.skip(msg)
    archive = build("tar", bundle)
    assert archive.name.endswith(".tar.zst")
    plain = tmp_path / "a.tar"
    subprocess.run(["zstd", "-q", "-d", str(archive), "-o", str(plain)], check=True)
    with tarfile.open(plain) as tar:
        members = {m.name: m for m in tar.getmembers()}
    top = archive.name.removesuffix(".tar.zst")
    exe = members[f"{top}/parley"]
    assert exe.isfile() and exe.mode & 0o111 and exe.uid == 0
    assert f"{top}/_internal/base_library.zip" in members
    assert not any(n.endswith(".build-info.json") for n in members)
