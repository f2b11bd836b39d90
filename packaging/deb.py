"""Build the release artefacts from the PyInstaller folder: a Debian package and a ``.tar.zst`` archive.

    python packaging/deb.py [--bundle packaging/dist/parley] [--out packaging/dist] [--if-stale] [--fast] [--deb] [--tar]
    python packaging/deb.py --report     (after building) sizes, and start times from the installed package

With neither ``--deb`` nor ``--tar`` both are built. ``--if-stale``: an artefact newer than the bundle's
build stamp (``.build-info.json``), this script and its inputs is kept. ``--fast``: gzip -1 (deb) / zstd -3
(tar) instead of the release compression (same files inside; the package test uses it). Run by
``build.sh --deb / --tar / --deb-report`` (stdlib only; needs ``dpkg-deb`` and ``zstd`` from Debian, and
``readelf`` from binutils for the glibc requirement).

``--report`` installs the package into a throwaway root (``debroot.py``) and prints, as a table and as one
JSON object on the last line: the download size of each artefact, the installed size, the time to
``parley --self-test`` done, and the times from launch to "window shown" / "voice loop ready" (Qt offscreen,
no audio devices in the root, so the voice loop starts without voice).

The package (``parley_<version>_<arch>.deb``):

* ``/opt/parley/``: the bundle as built (the executable ``parley`` and ``_internal/``);
* ``/usr/bin/parley`` → ``/opt/parley/parley`` (absolute: it crosses top-level directories);
* ``/usr/share/applications/parley.desktop``, the icon in ``/usr/share/icons/hicolor`` (scalable SVG and
  256×256 PNG), AppStream metadata in ``/usr/share/metainfo``, a man page, copyright and changelog;
* ``Depends``: only what the bundle links to without carrying it (checked with ``ldd``: glibc, libGL / libEGL
  through glvnd, libxcb); the glibc version is the highest ``GLIBC_x.y`` symbol version the bundle's ELF files
  need. ``Recommends``: the Wayland client libraries (Qt's native Wayland platform; without them Qt falls back
  to XWayland), a font, and the ALSA → PulseAudio / PipeWire bridge (the bundle carries libasound, whose
  plugins come from the system).
* No maintainer scripts: the desktop database, icon cache and man index are refreshed by the triggers of
  desktop-file-utils, hicolor-icon-theme and man-db.

``lintian`` overrides (``usr/share/lintian/overrides/parley``) name each tag left on purpose and why; see
``packaging/lintian-overrides``. Compression: the ``.deb`` with xz -9 (dpkg's default format; smaller than
zstd -19 but about twice as slow to build: 275.5 MB for 0.1.0, the ``.tar.zst`` 285.6 MB), the archive with
zstd -19. The models (214 MB of weights) hardly compress; the code and Qt do.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PACKAGE = "parley"
PREFIX = Path("opt") / PACKAGE
# A placeholder (RFC 2606 .invalid) until the project has a release contact: set PARLEY_DEB_MAINTAINER.
MAINTAINER = os.environ.get("PARLEY_DEB_MAINTAINER", "Parley developers <parley@parley.invalid>")
ZSTD_LEVEL = 19
RELEASE_COMPRESSION = ("xz", 9)
FAST_COMPRESSION = ("gzip", 1)  # the .deb (lintian rejects zstd members: not in the Debian archive format)
FAST_TAR_LEVEL = 3

DEPENDS_LIBS = ["libgl1", "libegl1", "libxcb1"]
RECOMMENDS = [
    "libwayland-client0",
    "libwayland-cursor0",
    "libwayland-egl1",
    "fonts-dejavu-core | fonts-liberation2",
    "libasound2-plugins | pipewire-alsa",
]


def log(msg: str) -> None:
    print(f"\033[1m[package]\033[0m {msg}", file=sys.stderr)


def version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def arch() -> str:
    return subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def is_program(path: Path) -> bool:
    """An ELF executable (``ET_EXEC``, or ``ET_DYN`` with an interpreter: PIE) or a ``#!`` script; not a library.

    (A few libraries, libQt6Core and libcap, have an interpreter too, to print their version when run: by name.)
    """
    if ".so" in path.name:
        return False
    try:
        with path.open("rb") as f:
            head = f.read(64)
            if head[:2] == b"#!":
                return True
            if head[:4] != b"\x7fELF" or head[4] != 2:  # 64-bit ELF only (the bundle's)
                return False
            e_type = int.from_bytes(head[16:18], "little")
            if e_type == 2:
                return True
            phoff, phentsize, phnum = (
                int.from_bytes(head[32:40], "little"),
                int.from_bytes(head[54:56], "little"),
                int.from_bytes(head[56:58], "little"),
            )
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return False
    return e_type == 3 and any(int.from_bytes(table[i : i + 4], "little") == 3 for i in range(0, len(table), phentsize))  # PT_INTERP


def glibc_needed(bundle: Path) -> str:
    """The highest GLIBC_x.y symbol version any ELF file of the bundle requires (``readelf -V``)."""
    best = (2, 17)
    elves = [p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p)]
    for i in range(0, len(elves), 200):
        out = subprocess.run(["readelf", "-V", "-W", *map(str, elves[i : i + 200])], capture_output=True, text=True).stdout
        for major, minor in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", out):
            best = max(best, (int(major), int(minor)))
    return f"{best[0]}.{best[1]}"


def md5(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dir_bytes(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def install(src: Path, dest: Path, mode: int = 0o644) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    dest.chmod(mode)


def write_gz(dest: Path, text: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(text.encode("utf-8"))
    dest.chmod(0o644)


def copyright_text() -> str:
    return (HERE / "copyright").read_text(encoding="utf-8")


def changelog_text(ver: str) -> str:
    date = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))))
    entry = f"  * Release {ver}: the PyInstaller bundle packaged for Debian."
    return f"{PACKAGE} ({ver}) unstable; urgency=medium\n\n{entry}\n\n -- {MAINTAINER}  {date}\n"


def control_text(ver: str, architecture: str, installed_kib: int, glibc: str) -> str:
    depends = ", ".join([f"libc6 (>= {glibc})", *DEPENDS_LIBS])
    return (
        f"Package: {PACKAGE}\n"
        f"Version: {ver}\n"
        f"Architecture: {architecture}\n"
        f"Maintainer: {MAINTAINER}\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {depends}\n"
        f"Recommends: {', '.join(RECOMMENDS)}\n"
        "Section: sound\n"
        "Priority: optional\n"
        "Description: desktop voice assistant that runs offline\n"
        " Parley is a voice assistant for the desktop: hold a key or just speak and\n"
        " it answers aloud. Speech recognition (Whisper base), the language model\n"
        " (SmolLM2-135M) and the voice (Piper) are included and run on the computer;\n"
        " no network is needed. Online models can be added in the settings.\n"
        " .\n"
        " This package is a self-contained bundle (Python, Qt and the models inside)\n"
        " installed under /opt/parley.\n"
    )


def stage(bundle: Path, root: Path, ver: str, architecture: str) -> None:
    """Lay out the package's files under ``root`` (its DEBIAN/ control directory included)."""
    if root.exists():
        shutil.rmtree(root)
    opt = root / PREFIX
    shutil.copytree(bundle, opt, symlinks=True)
    (opt / ".build-info.json").unlink(missing_ok=True)  # build-machine facts, not part of the install
    for p in opt.rglob("*"):  # dpkg keeps modes: rwxr-xr-x for programs and dirs, rw-r--r-- for the rest (libraries too)
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() or is_program(p) else 0o644)
    usr = root / "usr"
    (usr / "bin").mkdir(parents=True)
    (usr / "bin" / PACKAGE).symlink_to(Path("/") / PREFIX / PACKAGE)
    share = usr / "share"
    install(HERE / "parley.desktop", share / "applications" / "parley.desktop")
    install(HERE / "io.parley.Parley.metainfo.xml", share / "metainfo" / "io.parley.Parley.metainfo.xml")
    install(ROOT / "assets" / "parley.svg", share / "icons" / "hicolor" / "scalable" / "apps" / "parley.svg")
    install(ROOT / "assets" / "parley.png", share / "icons" / "hicolor" / "256x256" / "apps" / "parley.png")
    install(HERE / "lintian-overrides", share / "lintian" / "overrides" / PACKAGE)
    write_gz(share / "man" / "man1" / "parley.1.gz", (HERE / "parley.1").read_text(encoding="utf-8"))
    doc = share / "doc" / PACKAGE
    install(HERE / "copyright", doc / "copyright")
    write_gz(doc / "changelog.gz", changelog_text(ver))
    for d in [root, *root.rglob("*")]:
        if d.is_dir() and not d.is_symlink():
            d.chmod(0o755)
    control = root / "DEBIAN"
    control.mkdir(mode=0o755)
    sums = [
        f"{md5(p)}  {p.relative_to(root)}\n"
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and control not in p.parents
    ]
    (control / "md5sums").write_text("".join(sums), encoding="utf-8")
    (control / "md5sums").chmod(0o644)
    installed_kib = (dir_bytes(root) - dir_bytes(control) + 1023) // 1024
    (control / "control").write_text(control_text(ver, architecture, installed_kib, glibc_needed(opt)), encoding="utf-8")
    (control / "control").chmod(0o644)


def build_deb(bundle: Path, out: Path, fast: bool = False) -> Path:
    ver, architecture = version(), arch()
    deb = out / f"{PACKAGE}_{ver}_{architecture}.deb"
    root = HERE / "build" / "deb" / f"{PACKAGE}_{ver}_{architecture}"
    log(f"staging {root}")
    stage(bundle, root, ver, architecture)
    kind, level = FAST_COMPRESSION if fast else RELEASE_COMPRESSION
    log(f"dpkg-deb → {deb} ({kind} -{level})")
    tmp = deb.with_suffix(".deb.part")
    subprocess.run(
        [
            "dpkg-deb",
            "--root-owner-group",
            f"-Z{kind}",
            f"-z{level}",
            f"--threads-max={os.cpu_count() or 1}",
            "--build",
            str(root),
            str(tmp),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    tmp.replace(deb)
    shutil.rmtree(root)
    return deb


def build_tar(bundle: Path, out: Path, fast: bool = False) -> Path:
    ver = version()
    name = f"{PACKAGE}-{ver}-linux-{os.uname().machine}"
    dest = out / f"{name}.tar.zst"
    tmp = dest.with_suffix(".zst.part")
    level = FAST_TAR_LEVEL if fast else ZSTD_LEVEL
    log(f"tar | zstd -{level} → {dest}")

    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if info.name.endswith("/.build-info.json"):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        return info

    with subprocess.Popen(["zstd", "-q", f"-{level}", f"-T{os.cpu_count() or 1}", "-f", "-o", str(tmp)], stdin=subprocess.PIPE) as zstd:
        assert zstd.stdin is not None
        with tarfile.open(fileobj=zstd.stdin, mode="w|", format=tarfile.PAX_FORMAT) as tar:
            tar.add(bundle, arcname=name, filter=clean)
        zstd.stdin.close()
    if zstd.returncode != 0:
        raise SystemExit(f"zstd failed with exit {zstd.returncode}")
    tmp.replace(dest)
    return dest


def fresh(artefact: Path, bundle: Path) -> bool:
    stamp = bundle / ".build-info.json"
    if not artefact.exists() or not stamp.exists():
        return False
    newest_input = max(stamp.stat().st_mtime, Path(__file__).stat().st_mtime, *(p.stat().st_mtime for p in INPUTS))
    return artefact.stat().st_mtime > newest_input


INPUTS = [
    HERE / "copyright",
    HERE / "parley.1",
    HERE / "lintian-overrides",
    HERE / "parley.desktop",
    HERE / "io.parley.Parley.metainfo.xml",
]


def artefacts(out: Path) -> dict[str, Path]:
    ver, architecture = version(), arch()
    return {"deb": out / f"{PACKAGE}_{ver}_{architecture}.deb", "tar": out / f"{PACKAGE}-{ver}-linux-{os.uname().machine}.tar.zst"}


def report(out: Path) -> int:
    """Sizes of the built artefacts and start times from the package installed in a throwaway root."""
    paths = artefacts(out)
    if not paths["deb"].exists():
        raise SystemExit(f"no package at {paths['deb']}; build it first: bash packaging/build.sh --deb")
    with tempfile.TemporaryDirectory(prefix="parley-deb-report-") as tmp:
        facts = Path(tmp) / "debroot.json"
        subprocess.run(
            [sys.executable, str(HERE / "debroot.py"), str(paths["deb"]), "--gui", "--json", str(facts)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        root = json.loads(facts.read_text(encoding="utf-8"))
    steps = root["steps"]
    result = {
        "deb_mb": round(paths["deb"].stat().st_size / 1e6, 1),
        "tar_zst_mb": round(paths["tar"].stat().st_size / 1e6, 1) if paths["tar"].exists() else None,
        "installed_mb": root["installed_mb"],
        "install_s": steps["install"]["seconds"],
        "selftest_ok": steps["self_test"]["rc"] == 0,
        "selftest_s": steps["self_test"]["seconds"],
        "window_s": steps["gui"]["window_s"],
        "ready_s": steps["gui"]["ready_s"],
        "reinstall_ok": steps["reinstall"]["rc"] == 0,
        "purge_ok": steps["remove"]["rc"] == 0 and steps["purge"]["rc"] == 0,
        "leftovers": root["leftovers"],
    }
    print(f"{'artefact':<34} {'MB':>7}")
    print(f"{paths['deb'].name:<34} {result['deb_mb']:>7}")
    if result["tar_zst_mb"] is not None:
        print(f"{paths['tar'].name:<34} {result['tar_zst_mb']:>7}")
    print(f"{'installed (/opt/parley)':<34} {result['installed_mb']:>7}")
    verdict = "PASS" if result["selftest_ok"] else "FAIL"
    print(f"dpkg -i {result['install_s']} s; self-test {verdict} in {result['selftest_s']} s (launch → done)")
    print(f"window shown {result['window_s']} s, voice loop ready {result['ready_s']} s after launch (offscreen, no audio devices)")
    again, purge = ("ok" if result[k] else "FAILED" for k in ("reinstall_ok", "purge_ok"))
    print(f"reinstall {again}; remove + purge {purge}; left behind: {result['leftovers'] or 'nothing'}")
    print(json.dumps(result))
    return 0 if result["selftest_ok"] and result["purge_ok"] and not result["leftovers"] else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", type=Path, default=HERE / "dist" / PACKAGE)
    ap.add_argument("--out", type=Path, default=HERE / "dist")
    ap.add_argument("--deb", action="store_true")
    ap.add_argument("--tar", action="store_true")
    ap.add_argument("--if-stale", action="store_true")
    ap.add_argument("--fast", action="store_true", help="gzip -1 / zstd -3 (tests), not the release compression")
    ap.add_argument("--report", action="store_true", help="measure the built artefacts and the installed package")
    args = ap.parse_args()
    out: Path = args.out.resolve()
    if args.report and not (args.deb or args.tar):
        return report(out)
    bundle: Path = args.bundle.resolve()
    if not (bundle / PACKAGE).is_file():
        raise SystemExit(f"no bundle at {bundle}; build it first (bash packaging/build.sh)")
    want = [k for k in ("deb", "tar") if getattr(args, k)] or ["deb", "tar"]
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, object] = {}
    builders = {"deb": build_deb, "tar": build_tar}
    for kind in want:
        path = artefacts(out)[kind]
        t0 = time.monotonic()
        if args.if_stale and fresh(path, bundle):
            log(f"{path.name} is up to date")
        else:
            path = builders[kind](bundle, out, args.fast)
            log(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB in {time.monotonic() - t0:.0f} s")
        result[kind] = str(path)
        result[f"{kind}_mb"] = round(path.stat().st_size / 1e6, 1)
    print(json.dumps(result))
    return report(out) if args.report else 0


if __name__ == "__main__":
    sys.exit(main())
