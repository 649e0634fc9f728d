"""A World that keeps the thread CPU time of its physics steps.

For benchmarks: the same ``World.step`` timed in the benchmark's own process and inside the
bridge node shows how much slower the physics itself runs in the graph (docs/measurements.md).
Thread CPU time, not wall time: a step the scheduler pre-empts is not charged for the wait.
The first step after the caller did other work (``resume``: the bridge published a batch or
waited on the gate) is also counted apart: it runs on caches the other work has cooled.
Opt-in (two clock reads a step, about 1.4 us), so the graph's default world is the plain one; a
benchmark times both sides, so both carry the same cost.
"""

from __future__ import annotations

import re
import time
from typing import NamedTuple

from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World


class Timing(NamedTuple):
    steps: int  # every step
    ns: int  # their thread CPU time
    first_steps: int  # of them, the first step after other work (``resume``)
    first_ns: int

    def cold_cost_ns(self) -> float:
        """What the first steps cost beyond the others' mean: the price of the cold caches."""
        rest = self.steps - self.first_steps
        if not self.first_steps or not rest:
            return 0.0
        return self.first_ns - self.first_steps * (self.ns - self.first_ns) / rest


class TimedWorld(World):
    _timing = Timing(0, 0, 0, 0)
    _resumed = False

    def resume(self) -> None:
        """The caller did other work since the last step: the next step is counted apart."""
        self._resumed = True

    def step(self) -> StepSample:
        t0 = time.thread_time_ns()
        try:
            return super().step()
        finally:
            dt = time.thread_time_ns() - t0
            s, ns, fs, fns = self._timing
            if self._resumed:
                self._timing, self._resumed = Timing(s + 1, ns + dt, fs + 1, fns + dt), False
            else:
                self._timing = Timing(s + 1, ns + dt, fs, fns)

    @property
    def steps(self) -> int:
        """Steps since the last take."""
        return self._timing.steps

    def take_timing(self) -> Timing:
        """Steps and thread CPU nanoseconds since the last take."""
        out, self._timing = self._timing, Timing(0, 0, 0, 0)
        return out


def timing_line(t: Timing) -> str:
    """What the bridge logs at each reset when it times its physics (``parse_timing`` reads it back)."""
    return f"physics timing: {t.steps} steps, {t.ns} ns thread CPU; first after other work: {t.first_steps} steps, {t.first_ns} ns"


TIMING_RE = re.compile(
    r"\[sim_bridge\] physics timing: (\d+) steps, (\d+) ns thread CPU; first after other work: (\d+) steps, (\d+) ns"
)  # in the launcher's output


def parse_timing(text: str) -> list[Timing]:
    """The bridge's timing lines in the launcher's output, in order."""
    return [Timing(*(int(g) for g in m)) for m in TIMING_RE.findall(text)]
