#!/usr/bin/env bash
# Build Parley's one-folder PyInstaller bundle: packaging/dist/parley/ (run it as packaging/dist/parley/parley).
#
#   bash packaging/build.sh              build (always)
#   bash packaging/build.sh --if-stale   build only when app/, genx/, packaging/, assets/ or pyproject.toml
#                                        changed since the last build (the bundle smoke test uses this)
#   bash packaging/build.sh --report     (after building, or alone on an existing bundle) measure the bundle:
#                                        size, cold start (launch → window shown, launch → ready to listen)
#                                        and the self-test; the last line is one JSON object
#   bash packaging/build.sh --no-build --report   measure only
#   ... --report --cold                  (root) drop the page cache first: the first start reads from disk
#   bash packaging/build.sh --deb        also package it: packaging/dist/parley_<version>_<arch>.deb (xz -9)
#   bash packaging/build.sh --tar        also archive it: packaging/dist/parley-<version>-linux-<machine>.tar.zst
#   bash packaging/build.sh --deb-report (after --deb, or with it) sizes of the artefacts, installed size, start
#                                        times from the package installed in a throwaway root (packaging/debroot.py)
#   (--deb / --tar with --if-stale keep an artefact newer than the bundle; see packaging/deb.py)
#
# Needs: the venv with the app, its offline extra and pyinstaller (./dev build installs them), the system
# libportaudio2 (copied into the bundle), binutils' strip/readelf (optional: without them the bundle is ~100 MB larger).
# Environment: PARLEY_VENV (default .venv), PARLEY_PYTHON (default $PARLEY_VENV/bin/python).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
VENV=${PARLEY_VENV:-$ROOT/.venv}
PY=${PARLEY_PYTHON:-$VENV/bin/python}
DIST=$HERE/dist
WORK=$HERE/build
BUNDLE=$DIST/parley
EXE=$BUNDLE/parley
STAMP=$BUNDLE/.build-info.json

build=1 report=0 if_stale=0 deb_report=0
report_args=()
pkg_args=()
for arg in "$@"; do
  case "$arg" in
    --report) report=1 ;;
    --if-stale) if_stale=1 ;;
    --no-build) build=0 ;;
    --cold) report_args+=(--cold) ;;
    --deb) pkg_args+=(--deb) ;;
    --tar) pkg_args+=(--tar) ;;
    --deb-report) deb_report=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

log() { printf '\033[1m[build]\033[0m %s\n' "$*" >&2; }

is_stale() {
  [ -x "$EXE" ] && [ -f "$STAMP" ] || return 0
  # Any source newer than the last successful build makes it stale.
  [ -n "$(find "$ROOT/app" "$ROOT/genx" "$HERE/parley.spec" "$HERE/launcher.py" "$HERE/hooks" "$HERE/build.sh" "$HERE/strip_libs.py" "$HERE/parley.desktop" \
    "$HERE/io.parley.Parley.metainfo.xml" "$ROOT/assets" "$ROOT/pyproject.toml" -newer "$STAMP" \
    -not -name '*.pyc' -not -path '*/__pycache__*' -print -quit 2>/dev/null)" ]
}

do_build() {
  "$PY" -c 'import PyInstaller' 2>/dev/null || { log "PyInstaller missing: $PY -m pip install 'pyinstaller>=6.5' (./dev build does it)"; exit 1; }
  local t0 t1
  t0=$(date +%s.%N)
  log "PyInstaller → $BUNDLE (work dir $WORK)"
  # The Python modules' archive (PYZ, 32 MB of bytecode) is stored without zlib: xz compresses it to 7.5 MB
  # in the .deb, against 12.7 MB for the zlib'd one (compressed data does not compress again); installed +19 MB.
  PYINSTALLER_ZLIB_COMPRESSION_LEVEL=0 \
    "$PY" -m PyInstaller --noconfirm --clean --log-level WARN --distpath "$DIST" --workpath "$WORK" "$HERE/parley.spec"
  # Strip the shared libraries where that is safe (some wheels ship debug info: CTranslate2's binding 68 → 1 MB).
  log "$("$PY" "$HERE/strip_libs.py" "$BUNDLE")"
  # The .desktop file and icon beside the executable, for installing into a desktop (see README).
  cp "$HERE/parley.desktop" "$HERE/io.parley.Parley.metainfo.xml" "$ROOT/assets/parley.svg" "$ROOT/assets/parley.png" "$BUNDLE/"
  t1=$(date +%s.%N)
  local secs mb
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", b-a}')
  mb=$(du -s --apparent-size -B 1000000 "$BUNDLE" | cut -f1)  # MB (10^6 bytes), as report.py
  printf '{"built_at": "%s", "build_s": %s, "bundle_mb": %s, "pyinstaller": "%s"}\n' \
    "$(date -u +%FT%TZ)" "$secs" "$mb" "$("$PY" -c 'import PyInstaller; print(PyInstaller.__version__)')" > "$STAMP"
  log "built in ${secs} s: $BUNDLE (${mb} MB)"
}

if [ "$build" = 1 ]; then
  if [ "$if_stale" = 1 ] && ! is_stale; then
    log "bundle is up to date: $BUNDLE"
  else
    do_build
  fi
fi

if [ ${#pkg_args[@]} -gt 0 ]; then
  [ "$if_stale" = 1 ] && pkg_args+=(--if-stale)
  "$PY" "$HERE/deb.py" --bundle "$BUNDLE" --out "$DIST" "${pkg_args[@]}"
fi

if [ "$report" = 1 ]; then
  [ -x "$EXE" ] || { log "no bundle at $BUNDLE; build it first"; exit 1; }
  "$PY" "$HERE/report.py" "$BUNDLE" "${report_args[@]}"
fi

if [ "$deb_report" = 1 ]; then
  exec "$PY" "$HERE/deb.py" --out "$DIST" --report
fi
