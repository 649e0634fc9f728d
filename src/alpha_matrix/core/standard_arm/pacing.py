"""Wall-clock pacing of the simulated arm: physics step k is due at t0 + k·dt, as on hardware.

A step that is late runs at once; a loop more than ``max_lag`` behind (the machine was busy)
restarts its schedule from now instead of racing through the backlog, and counts an overrun:
a real arm does not run faster to make up for lost time either. The arm's own clock (the
controllers' time) is the simulated time k·dt, so a stall costs wall time, never tracking.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class RateStats:
    """What the loop achieved over a window: steps, wall seconds, CPU seconds of the loop's thread."""

    steps: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    overruns: int = 0

    @property
    def rate_hz(self) -> float:
        return self.steps / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def cpu_share(self) -> float:
        return self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0


class Pacer:
    def __init__(
        self,
        dt: float,
        max_lag: float = 0.1,
        now: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        self.dt, self.max_lag, self.now, self.cpu = dt, max_lag, now, cpu
        self.t0 = now()
        self.k0 = 0  # the step the schedule counts from
        self.overruns = 0
        self._window = (0, self.t0, cpu(), 0)  # step, wall, cpu, overruns at the window's start

    def due(self, k: int) -> float:
        """Wall time (``now``'s clock) at which step ``k`` is due."""
        return self.t0 + (k - self.k0) * self.dt

    def start(self, k: int) -> None:
        """Step ``k`` starts now: if it is more than ``max_lag`` late, the schedule restarts here."""
        now = self.now()
        if now - self.due(k) > self.max_lag:
            self.t0, self.k0 = now, k
            self.overruns += 1

    def take(self, k: int) -> RateStats:
        """The stats since the last take (``k`` = steps run so far), and a new window."""
        k0, w0, c0, o0 = self._window
        wall, cpu = self.now(), self.cpu()
        self._window = (k, wall, cpu, self.overruns)
        return RateStats(k - k0, wall - w0, cpu - c0, self.overruns - o0)
