#!/usr/bin/env bash
# Idempotent environment setup for the plain-Python ROS 2 environment (no ROS install needed):
#   1. a venv with the pinned ROS 2 wheels from PyPI and the project's dependencies,
#   2. the CMake-export path fix those wheels need to build interfaces,
#   3. alpha_matrix_interfaces built with CMake straight into the venv,
#   4. alpha_matrix itself installed editable,
#   5. the ROS 2 launch/CLI tools from vendor/ros2-tools, ros2_control's interfaces from
#      vendor/ros2-control and tf2_msgs from vendor/ros2-interfaces (upstream wheels and
#      sources, hash-checked, by path)
#      and alpha_matrix registered in the venv's ament index (`ros2 launch`, `ros2 run`).
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

# llama.cpp (the embedded model) is compiled here, for a CPU baseline rather than for this CPU: a
# native build uses every instruction the CPU advertises, and on a VM that advertises Intel AMX
# without enabling it the first decode dies of SIGILL (seen 2026-12-06). x86_64: x86-64-v3 (AVX2,
# FMA, F16C, BMI2), no AVX-512 or AMX. Its pin is installed apart, with these flags and no wheel
# cache (a cached wheel may be a native build).
LLAMA_PIN=$(grep -E '^llama-cpp-python==' requirements.txt)
case "$(uname -m)" in
  x86_64) LLAMA_CMAKE="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" ;;
  *) LLAMA_CMAKE="" ;;
esac
req_hash=$(hash_of requirements.txt requirements-dev.txt)
if ! stamp_ok requirements "$req_hash"; then
  say "installing pinned dependencies (ROS 2 wheels, PyBullet, ...)"
  grep -v -E '^llama-cpp-python==' requirements.txt > "$VENV/requirements-no-llama.txt"
  "$VENV/bin/pip" install --disable-pip-version-check -q -r "$VENV/requirements-no-llama.txt" -r requirements-dev.txt 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory" || true
  "$VENV/bin/python" -c "import rclpy, pybullet" 2>/dev/null || die "dependency install failed (see pip output above)"
  stamp_set requirements "$req_hash"
fi
llama_hash=$(printf '%s|%s' "$LLAMA_PIN" "$LLAMA_CMAKE" | sha256sum | cut -d' ' -f1)
if ! stamp_ok llama "$llama_hash" || ! "$VENV/bin/python" -c "import llama_cpp" 2>/dev/null; then
  say "building $LLAMA_PIN for the embedded model (CPU baseline flags; a few minutes)"
  # first install: with its dependencies (held to the pins); a rebuild: only the package itself
  again=()
  "$VENV/bin/python" -c "import llama_cpp" 2>/dev/null && again=(--force-reinstall --no-deps)
  CMAKE_ARGS="$LLAMA_CMAKE" "$VENV/bin/pip" install --disable-pip-version-check -q --no-cache-dir \
    -c requirements.txt -c requirements-dev.txt "${again[@]}" "$LLAMA_PIN" || die "$LLAMA_PIN did not build"
  "$VENV/bin/python" -c "import llama_cpp" || die "$LLAMA_PIN built but does not import"
  stamp_set llama "$llama_hash"
fi

# The ROS wheels' CMake export files carry the build host's Python paths; point them here.
PYINC=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
NPINC=$("$VENV/bin/python" -c "import numpy; print(numpy.get_include())")
{ grep -rl /opt/python/cp311-cp311 "$VENV/share" --include='*.cmake' 2>/dev/null || true; } | xargs -r sed -i \
  -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$NPINC#g" \
  -e "s#/opt/python/cp311-cp311/include/python3.11#$PYINC#g"

# Build a ROS 2 interface package with CMake straight into the venv: build_interfaces NAME SOURCE_DIR
build_interfaces() {
  local name=$1 src=$2 build=$ROOT/build/$1 log=$ROOT/build/$1-build.log
  say "building $name (CMake, ~30 s)"
  export AMENT_PREFIX_PATH=$VENV CMAKE_PREFIX_PATH=$VENV
  rm -rf "$build"
  mkdir -p "$ROOT/build"
  if ! { cmake -S "$src" -B "$build" -DCMAKE_PREFIX_PATH="$VENV" \
           -DCMAKE_INSTALL_PREFIX="$VENV" -DBUILD_TESTING=OFF -DPython3_EXECUTABLE="$VENV/bin/python" \
         && cmake --build "$build" -j2 && cmake --install "$build"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "$name build failed; full log: $log"
  fi
  "$VENV/bin/python" -c "import $name.srv" 2>/dev/null || die "$name built but does not import"
}

iface_hash=$(hash_of alpha_matrix_interfaces/package.xml alpha_matrix_interfaces/CMakeLists.txt \
  alpha_matrix_interfaces/msg/*.msg alpha_matrix_interfaces/srv/*.srv)
if ! stamp_ok interfaces "$iface_hash" \
   || ! "$VENV/bin/python" -c "import alpha_matrix_interfaces.msg" 2>/dev/null; then
  build_interfaces alpha_matrix_interfaces alpha_matrix_interfaces
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
# The ROS 2 launch and CLI tools PyPI lacks (launch, launch_ros, launch_testing, ros2cli): the
# upstream wheels in vendor/ros2-tools (README there: versions, commits), checked against their
# SHA256SUMS and installed by path, never by name (PyPI's `launch` is an unrelated package).
TOOLS=${ALPHA_MATRIX_ROS2_TOOLS:-$ROOT/vendor/ros2-tools}
if [ -f "$TOOLS/SHA256SUMS" ]; then
  tools_hash=$(hash_of "$TOOLS/SHA256SUMS")
  if ! stamp_ok tools "$tools_hash" \
     || ! "$VENV/bin/python" -c "import launch_ros, launch_testing, ros2cli" 2>/dev/null; then
    say "installing the ROS 2 launch and CLI tools from $TOOLS"
    (cd "$TOOLS" && sha256sum --quiet --strict -c SHA256SUMS) || die "a wheel in $TOOLS does not match its SHA256SUMS"
    "$VENV/bin/pip" install --disable-pip-version-check -q --no-deps "$TOOLS"/wheels/*.whl
    stamp_set tools "$tools_hash"
  fi
  comp_hash=$(hash_of "$TOOLS"/src/composition_interfaces/package.xml "$TOOLS"/src/composition_interfaces/srv/*.srv)
  if ! stamp_ok composition "$comp_hash" \
     || ! "$VENV/bin/python" -c "import composition_interfaces.srv" 2>/dev/null; then
    build_interfaces composition_interfaces "$TOOLS/src/composition_interfaces"  # launch_ros imports it
    stamp_set composition "$comp_hash"
  fi
else
  say "ROS 2 launch/CLI tools not installed: no $TOOLS (use a ROS 2 distribution's, or build ros2/launch, launch_ros and ros2cli at the commits in vendor/ros2-tools/README.md); the launch tests skip"
fi

# ros2_control's interfaces and the `ros2 action` CLI (vendor/ros2-control, upstream, unmodified):
# control_msgs built like composition_interfaces, ros2action installed by path; both hash-checked.
CONTROL=${ALPHA_MATRIX_ROS2_CONTROL:-$ROOT/vendor/ros2-control}
if [ -f "$CONTROL/SHA256SUMS" ]; then
  control_hash=$(hash_of "$CONTROL/SHA256SUMS")
  if ! stamp_ok control "$control_hash" \
     || ! "$VENV/bin/python" -c "import control_msgs.action, ros2action" 2>/dev/null; then
    say "installing ros2_control's interfaces (control_msgs) and ros2 action from $CONTROL"
    { (cd "$CONTROL" && grep ' src/' SHA256SUMS | sha256sum --quiet --strict -c -) \
      && (cd "$CONTROL/wheels" && grep '\.whl$' ../SHA256SUMS | sha256sum --quiet --strict -c -); } \
      || die "a file in $CONTROL does not match its SHA256SUMS"
    "$VENV/bin/pip" install --disable-pip-version-check -q --no-deps "$CONTROL"/wheels/*.whl
    build_interfaces control_msgs "$CONTROL/src/control_msgs"
    "$VENV/bin/python" -c "import control_msgs.action" 2>/dev/null || die "control_msgs built but its actions do not import"
    stamp_set control "$control_hash"
  fi
fi

# tf2_msgs (vendor/ros2-interfaces, upstream geometry2, unmodified): TFMessage for /tf and
# /tf_static, which Foxglove and RViz read to place the robot model. Built like
# composition_interfaces, its sources checked against SHA256SUMS first.
IFACES=${ALPHA_MATRIX_ROS2_INTERFACES:-$ROOT/vendor/ros2-interfaces}
if [ -f "$IFACES/SHA256SUMS" ]; then
  tf2_hash=$(hash_of "$IFACES/SHA256SUMS")
  if ! stamp_ok tf2_msgs "$tf2_hash" \
     || ! "$VENV/bin/python" -c "import tf2_msgs.msg" 2>/dev/null; then
    (cd "$IFACES" && sha256sum --quiet --strict -c SHA256SUMS) || die "a file in $IFACES does not match its SHA256SUMS"
    build_interfaces tf2_msgs "$IFACES/src/tf2_msgs"
    "$VENV/bin/python" -c "from tf2_msgs.msg import TFMessage" 2>/dev/null || die "tf2_msgs built but TFMessage does not import"
    stamp_set tf2_msgs "$tf2_hash"
  fi
fi

# alpha_matrix in the venv's ament index, as colcon would install it (an editable pip install does
# not): `ros2 launch alpha_matrix alpha_matrix.launch.py` and `ros2 run alpha_matrix <node>`.
# Links into the checkout, so edits to launch/ and config/ take effect like the editable package.
SHARE=$VENV/share/alpha_matrix
mkdir -p "$VENV/share/ament_index/resource_index/packages" "$SHARE" "$VENV/lib/alpha_matrix"
: > "$VENV/share/ament_index/resource_index/packages/alpha_matrix"
ln -sfn "$ROOT/package.xml" "$SHARE/package.xml"
rm -rf "$SHARE/launch" && mkdir "$SHARE/launch"  # files linked one by one: ros2 launch does not walk a linked folder
for f in "$ROOT"/launch/*.launch.py; do ln -s "$f" "$SHARE/launch/"; done
ln -sfn "$ROOT/config" "$SHARE/config"
nodes=$("$VENV/bin/python" -c "from importlib.metadata import entry_points as e
print(' '.join(x.name for x in e(group='console_scripts') if x.value.startswith('alpha_matrix.nodes.')))")
for node in $nodes; do
  ln -sfn "$VENV/bin/$node" "$VENV/lib/alpha_matrix/$node"
done
# The venv is the ament prefix of every Python started from it (what sourcing setup.bash does on a
# ROS install): a .pth line runs at interpreter start-up and puts the venv first on AMENT_PREFIX_PATH.
SITE=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
cat > "$SITE/alpha_matrix_ament.pth" <<'PTH'
import os, sys; _p = [x for x in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if x]; sys.prefix in _p or os.environ.__setitem__("AMENT_PREFIX_PATH", os.pathsep.join([sys.prefix, *_p]))
PTH
# The package's bytecode (src/**/__pycache__, git-ignored), written here once. A graph starts
# every node as its own Python process; where nothing writes bytecode (PYTHONDONTWRITEBYTECODE=1 in
# the environment, as on the 2-core machine make test is timed on) each process compiled every
# alpha_matrix module it imports at every start (measured: 0.1 s of CPU for the CLI, 0.2 s for the
# 8 nodes of a run). Files already compiled are skipped; a file edited later is compiled in memory
# as before, until the next setup.
"$VENV/bin/python" -m compileall -q -j 0 src >/dev/null \
  || say "could not write the bytecode of src/ (every process compiles what it imports)"
say "environment ready: $VENV"
