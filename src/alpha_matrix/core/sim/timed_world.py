"""A World that keeps the thread CPU time of its physics steps.

For benchmarks: the same ``World.step`` timed in the benchmark's own process and inside the
bridge node shows how much slower the physics itself runs in the graph (README, "Measured").
Thread CPU time, not wall time: a step the scheduler pre-empts is not charged for the wait.
Opt-in (two clock reads a step, about 1.4 us), so the graph's default world is the plain one; a
benchmark times both sides, so both carry the same cost.
"""

from __future__ import annotations

import re
import time

from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World


class TimedWorld(World):
    steps: int = 0
    step_ns: int = 0

    def step(self) -> StepSample:
        t0 = time.thread_time_ns()
        try:
            return super().step()
        finally:
            self.step_ns += time.thread_time_ns() - t0
            self.steps += 1

    def take_timing(self) -> tuple[int, int]:
        """Steps and thread CPU nanoseconds since the last take."""
        out = (self.steps, self.step_ns)
        self.steps = self.step_ns = 0
        return out


def timing_line(steps: int, ns: int) -> str:
    """What the bridge logs at each reset when it times its physics (``TIMING_RE`` reads it back)."""
    return f"physics timing: {steps} steps, {ns} ns thread CPU"


TIMING_RE = re.compile(r"\[sim_bridge\] physics timing: (\d+) steps, (\d+) ns")  # in the launcher's output
