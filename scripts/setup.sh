#!/usr/bin/env bash
# Idempotent environment setup for the plain-Python ROS 2 environment (no ROS install needed):
#   1. a venv with the pinned ROS 2 wheels from PyPI and the project's dependencies,
#   2. the CMake-export path fix those wheels need to build interfaces,
#   3. alpha_matrix_interfaces built with CMake straight into the venv,
#   4. alpha_matrix itself installed editable.
# Each stage is skipped when its inputs are unchanged (a sha256 stamp in the venv).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=${ALPHA_MATRIX_VENV:-$ROOT/.venv}
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
stamp_ok() { [ -f "$VENV/.stamp-$1" ] && [ "$(cat "$VENV/.stamp-$1")" = "$2" ]; }
stamp_set() { printf '%s' "$2" > "$VENV/.stamp-$1"; }
hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

"$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
  || die "Python 3.11 is required (the ROS 2 wheels on PyPI are cp311); found $("$PY" --version 2>&1)"

if [ ! -x "$VENV/bin/python" ]; then
  say "creating venv at $VENV"
  "$PY" -m venv "$VENV"
fi

req_hash=$(hash_of requirements.txt requirements-dev.txt)
if ! stamp_ok requirements "$req_hash"; then
  say "installing pinned dependencies (ROS 2 wheels, PyBullet, ...)"
  "$VENV/bin/pip" install --disable-pip-version-check -q -r requirements.txt -r requirements-dev.txt 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory" || true
  "$VENV/bin/python" -c "import rclpy, pybullet" 2>/dev/null || die "dependency install failed (see pip output above)"
  stamp_set requirements "$req_hash"
fi

# The ROS wheels' CMake export files carry the build host's Python paths; point them here.
PYINC=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
NPINC=$("$VENV/bin/python" -c "import numpy; print(numpy.get_include())")
{ grep -rl /opt/python/cp311-cp311 "$VENV/share" --include='*.cmake' 2>/dev/null || true; } | xargs -r sed -i \
  -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$NPINC#g" \
  -e "s#/opt/python/cp311-cp311/include/python3.11#$PYINC#g"

iface_hash=$(hash_of alpha_matrix_interfaces/package.xml alpha_matrix_interfaces/CMakeLists.txt \
  alpha_matrix_interfaces/msg/*.msg alpha_matrix_interfaces/srv/*.srv)
if ! stamp_ok interfaces "$iface_hash" \
   || ! "$VENV/bin/python" -c "import alpha_matrix_interfaces.msg" 2>/dev/null; then
  say "building alpha_matrix_interfaces (CMake, ~30 s)"
  export AMENT_PREFIX_PATH=$VENV CMAKE_PREFIX_PATH=$VENV
  BUILD=$ROOT/build/alpha_matrix_interfaces
  rm -rf "$BUILD"
  log=$ROOT/build/interfaces-build.log
  mkdir -p "$ROOT/build"
  if ! { cmake -S alpha_matrix_interfaces -B "$BUILD" -DCMAKE_PREFIX_PATH="$VENV" \
           -DCMAKE_INSTALL_PREFIX="$VENV" -DBUILD_TESTING=OFF -DPython3_EXECUTABLE="$VENV/bin/python" \
         && cmake --build "$BUILD" -j2 && cmake --install "$BUILD"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "interface build failed; full log: $log"
  fi
  "$VENV/bin/python" -c "import alpha_matrix_interfaces.msg" || die "interfaces built but do not import"
  stamp_set interfaces "$iface_hash"
fi

pkg_hash=$(hash_of setup.py setup.cfg package.xml)
if ! stamp_ok package "$pkg_hash" || ! "$VENV/bin/python" -c "import alpha_matrix" 2>/dev/null; then
  say "installing alpha_matrix (editable)"
  "$VENV/bin/pip" install --disable-pip-version-check -q --no-deps -e . 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory" || true
  "$VENV/bin/python" -c "import alpha_matrix" || die "alpha_matrix did not install"
  stamp_set package "$pkg_hash"
fi
say "environment ready: $VENV"
