"""The physics does not depend on which CPU runs it.

numpy hands matrix products, solves and norms to OpenBLAS, which picks its kernels for the CPU at
run time (SSE3, AVX2 with FMA, AVX-512...), and the kernels round differently. With the IK's
damped least squares on numpy, an AVX-512 machine and an AVX2 one computed different joint
targets, and a grasp turned the last bits into a dropped block. The core now keeps BLAS out of
everything that moves the robot (core/sim/kinematics.dls_step, math.dist for distances); this
test runs the same episode on two kernel sets, forced through OPENBLAS_CORETYPE, and compares
every step's joints and the reach checks to the bit.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

# Both run on any x86-64 CPU with AVX2: SSE3 kernels without FMA, and AVX2 kernels with FMA.
CORETYPES = ("Prescott", "Haswell")

SCRIPT = """
import hashlib

import alpha_matrix.core.sim.world as W
from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.matrix.cells import episode_seed

h = hashlib.sha256()
step = W.World.step


def hashed(self):
    sample = step(self)
    h.update(sample.joint_positions.tobytes())
    h.update(sample.grasp_position.tobytes())
    return sample


W.World.step = hashed
with W.World() as world:
    run_episode_bare(world, episode_seed(42, 0))
    for target in ((0.5, 0.2, 0.3), (0.6, -0.3, 0.15), (0.3, 0.4, 0.5), (0.9, 0.0, 0.2)):
        h.update(repr(world.reach_error(target)).encode())
print(h.hexdigest())
"""


def _has_avx2() -> bool:
    try:
        return " avx2" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.skipif(platform.machine() != "x86_64" or not _has_avx2(), reason="OpenBLAS x86 kernels need AVX2")
def test_an_episode_is_the_same_whatever_blas_kernels_the_cpu_gets() -> None:
    digests = {}
    for coretype in CORETYPES:
        env = {**os.environ, "OPENBLAS_CORETYPE": coretype}
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        digests[coretype] = out.stdout.split()[-1]
    assert len(set(digests.values())) == 1, digests
