"""What the bridge's physics loop decides besides the physics: when the next step may run (the
lookahead gate, real-time pacing, giving up on a silent consumer) and where a batch of steps ends.

Batch boundaries depend on the commands and the steps alone (every ``batch_steps`` steps and at
each command's end; with a screened monitor, see ``StepBuffer``), never on timing, so consumers
that use batch-end data (object poses) see the same stream in every run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.driver import CommandEvent
from alpha_matrix.core.robot.gate import LookaheadGate
from alpha_matrix.core.sim.sample import StepSample


class StepPacer:
    """Wall-clock side of the loop: how long the gate has blocked it, and real-time pacing."""

    def __init__(
        self, dt: float, realtime: bool, ack_timeout_s: float, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.dt, self.realtime, self.ack_timeout_s, self.now = dt, realtime, ack_timeout_s, now
        self.t0 = now()  # wall time of step 0 (real-time pacing)
        self.blocked_since: float | None = None
        self._waiting_on: tuple[list[str], tuple[int, ...]] = ([], ())  # the laggards and their message counts

    def idle(self, step_count: int) -> None:
        """No command runs: pacing restarts from the current step when one does."""
        self.blocked_since = None
        self.t0 = self.now() - step_count * self.dt

    def blocked(self, nxt: int, gate: LookaheadGate) -> None:
        """The gate holds step ``nxt`` back; past the ack timeout, fail naming who is silent or slowest.
        A laggard that keeps sending (a keep-alive while its model thinks) restarts the timeout."""
        now = self.now()
        laggards = gate.laggards()
        waiting = (laggards, gate.messages(laggards))
        if waiting != self._waiting_on:
            self._waiting_on, self.blocked_since = waiting, now
        self.blocked_since = self.blocked_since or now
        if now - self.blocked_since > self.ack_timeout_s:
            who = gate.silent() or gate.laggards()
            raise AlphaMatrixError(
                f"no ack from gating consumer(s) {', '.join(who)} for {self.ack_timeout_s:.0f} s "
                f"(blocked before step {nxt}); is the consumer running?"
            )

    def delay_before(self, nxt: int) -> float:
        """Step ``nxt`` may run: seconds to wait first (real time only), else 0."""
        self.blocked_since = None
        if not self.realtime:
            return 0.0
        return max(0.0, self.t0 + nxt * self.dt - self.now())


class StepBuffer:
    """The steps not yet published, and the last one taken (its joints go with command statuses).

    With ``calm_steps`` (every decider that gates is screened, ``robot.gate``), batches are
    ``calm_steps`` long while the screen flags nothing, and end at the first flagged step, so
    the monitor gets it at once; then they are ``batch_steps`` long (<= L: the monitor's ack of
    each comes back before the bridge reaches the horizon) until one has no flagged step."""

    def __init__(self, batch_steps: int, calm_steps: int | None = None) -> None:
        self.batch_steps, self.calm_steps = batch_steps, calm_steps
        self.samples: list[StepSample] = []
        self.last: StepSample | None = None
        self._alert = False  # this batch follows one with a flagged step
        self._flagged = False  # this batch has a flagged step

    def add(self, sample: StepSample, events: list[CommandEvent], clean: bool = True) -> bool:
        """Buffer a step; True when the batch ends here (a command ended, the batch is full, or
        the first flagged step after calm ones)."""
        self.last = sample
        self.samples.append(sample)
        if self.calm_steps is None:
            return bool(events) or len(self.samples) >= self.batch_steps
        first_flag = not clean and not self._flagged
        self._flagged |= not clean
        if self._alert:
            return bool(events) or len(self.samples) >= self.batch_steps
        return bool(events) or first_flag or len(self.samples) >= self.calm_steps

    def take(self) -> list[StepSample]:
        samples, self.samples = self.samples, []
        self._alert, self._flagged = self._flagged, False
        return samples

    def new_episode(self) -> None:
        """Steps restart: calm again (call after taking the last episode's steps)."""
        self._alert = self._flagged = False


def names_by_id(body_names: dict[int, str]) -> list[str]:
    """Body names indexed by PyBullet body id ("" for ids without a name)."""
    return [body_names.get(i, "") for i in range(max(body_names) + 1)]
