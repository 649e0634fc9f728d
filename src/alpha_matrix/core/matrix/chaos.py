"""What the chaos node decides for each intercepted call and message (faults F1–F4).

``ChaosCore`` holds one episode's fault set and does everything but the forwarding: it moves
F3 targets, draws F2 slips and splits the grip around them, corrupts F4 text, keeps the F1
history of the step stream and serves observations from the past, and logs every injection
for the episode's report (core/matrix/fault_log.FaultLog, canonical order). The node
(nodes/chaos.py) calls it holding its lock; messages pass through opaquely, their object
positions read by the ``position_of`` it is given.

  F1 sensor delay   observations (command statuses the runner plans from) carry the object
                    poses of t - tau, from a sim-time ring buffer of the step stream
  F2 grip slip      one draw per grip-and-lift; on slip the grip's last step drops the finger
                    force to SLIP_FORCE through the gripper interface, and physics decides
  F3 IK offset      every commanded target moves delta outward from the arm base
  F4 corruption     the planner's raw text is corrupted before the executive validates it

Every injection has a deterministic place: its step (F2: the end step of the robot command it
acted in, learned from that command's status) and, at report time, the canonical order of
FaultLog with seq 0..n-1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from alpha_matrix.core.matrix.cells import parse_cell_fault
from alpha_matrix.core.matrix.fault_log import FaultLog, Injection
from alpha_matrix.core.matrix.faults import (
    CONCURRENT,
    SLIP_FORCE,
    DelayBuffer,
    SlipLatch,
    corrupt_plan_text,
    corruption_probability,
    corruption_record,
    fault_stream,
    grip_refused,
    ik_offset,
    offset_record,
    position_error,
    radial_offset,
    sensor_delay,
    slip_probability,
    validate_intensity,
)
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS
from alpha_matrix.core.sim.world_config import WorldConfig

Vec3 = tuple[float, float, float]
DT = WorldConfig().timestep
ARM_BASE = WorldConfig().panda_base
CLOSED_WIDTH = 0.01  # a gripper command at most this wide is a grip (starts a lift event)
MAX_WIDTH = 0.08  # the robot refuses wider (or negative) openings whatever happens


@dataclass(frozen=True)
class GripPlan:
    """How one gripper request reaches the robot: its parts (steps, max effort) sent in order
    while accepted; an F2 injection is stamped with the end of the last part sent."""

    parts: tuple[tuple[int, float], ...]
    injection: Injection | None = None


def cell_faults(fault: str) -> tuple[str, ...]:
    return () if fault == "none" else (("F1", "F2") if fault == CONCURRENT else (fault,))


class ChaosCore:
    def __init__(self, position_of: Callable[[Any], Vec3]) -> None:
        self.position_of = position_of
        self.episode, self.intensity = "", 0.0
        self.faults: tuple[str, ...] = ()
        self.streams: dict[str, np.random.Generator] = {}
        # A whole episode of history: an observation handled late still finds its t - tau.
        self.delay = DelayBuffer(capacity_s=(MAX_EPISODE_STEPS + 1) * DT)
        self.slip: SlipLatch | None = None
        self.offset_targets: set[Vec3] = set()
        self.batch_episode, self.last_batch_step = "", 0
        self.pending: list[Any] = []  # F1: statuses waiting for the stream to reach their step
        self.logs: dict[str, FaultLog] = {}  # the current episode's injections

    # -- configuration and report ------------------------------------------------------------
    def configure(self, episode_id: str, master_seed: int, index: int, fault: str, intensity: float) -> str:
        """The episode's fault set and streams; AlphaMatrixError for an unknown fault or intensity.
        An unreported older episode is dropped: the runner reports before the next."""
        fault, intensity = parse_cell_fault(fault), validate_intensity(intensity)
        self.episode, self.intensity, self.faults = episode_id, intensity, cell_faults(fault)
        self.streams = {f: fault_stream(master_seed, index, f) for f in self.faults}
        self.slip = SlipLatch(slip_probability(intensity), self.streams["F2"]) if "F2" in self.faults else None
        self.logs = {episode_id: FaultLog()}
        self.offset_targets = set()
        return f"{fault} at I={intensity}"

    def log(self) -> FaultLog:
        """The current episode's log."""
        return self.logs.setdefault(self.episode, FaultLog())

    def keep_at_end_of(self, accepted: bool, command_id: int, injection: Injection) -> None:
        """An F2 injection acts in the command of the reply: stamped with its end step when known."""
        if accepted:
            self.log().add_at_end_of(command_id, injection)
        else:
            self.log().add(grip_refused(injection))

    def command_ended(self, episode_id: str, command_id: int, end_step: int) -> bool:
        """A robot command's end (it stamps F2 injections); True when an episode's log took it."""
        if (log := self.logs.get(episode_id)) is None:
            return False
        log.command_ended(command_id, end_step)
        return True

    # -- F3: every commanded target, validation included ------------------------------------
    def move_target(self, target: Vec3, steps: int) -> Vec3 | None:
        """None: a request the robot refuses anyway (no steps: a handshake probe, which may arrive
        after the episode is configured when a first reply was lost; passed on as one, never logged)."""
        if steps < 1:
            return None
        if "F3" not in self.faults:
            return target
        moved = radial_offset(target, ARM_BASE, ik_offset(self.intensity))
        if target not in self.offset_targets:  # validated, then commanded: one injection per target
            self.offset_targets.add(target)
            self.log().add(offset_record(0, target, moved, ik_offset(self.intensity)))
        return moved

    # -- F2: one draw per grip-and-lift ------------------------------------------------------
    def grip(self, width: float, max_effort: float, steps: int) -> GripPlan | None:
        """None: a request the robot refuses anyway (a handshake, passed on as one)."""
        if not 0.0 <= width <= MAX_WIDTH:
            return None
        if self.slip is None:
            return GripPlan(((steps, max_effort),))
        if width > CLOSED_WIDTH:
            self.slip.release()
            return GripPlan(((steps, max_effort),))
        slipped = self.slip.on_lift(0)
        injection = self.slip.record()  # stamped with the end of the command the draw acted in
        if not slipped or steps <= 1:
            return GripPlan(((steps, SLIP_FORCE if slipped else max_effort),), injection)
        # Close as planned, then in the grip's last step (just before the lift) lose the force.
        return GripPlan(((steps - 1, max_effort), (1, SLIP_FORCE)), injection)

    # -- F4: the raw planner text ------------------------------------------------------------
    def plan_text(self, text: str) -> str:
        if "F4" not in self.faults:
            return text
        text, info = corrupt_plan_text(text, self.streams["F4"], corruption_probability(self.intensity))
        self.log().add(corruption_record(info))
        return text

    # -- F1: observations from the past ------------------------------------------------------
    def on_batch(self, episode_id: str, last_step: int, objects: dict[str, Any]) -> list[Any]:
        """The stream reached ``last_step``: kept for F1; the held statuses it releases."""
        if episode_id != self.batch_episode or last_step <= self.last_batch_step:  # or a reset with the same id
            self.delay.clear()
            self.batch_episode = episode_id  # history starts at this episode's first batch
        self.delay.push(last_step * DT, objects)
        self.last_batch_step = last_step
        return self.release_pending()

    def holds(self, episode_id: str) -> bool:
        """Whether a status of ``episode_id`` is delayed (else it passes unchanged)."""
        return "F1" in self.faults and episode_id == self.episode

    def hold(self, status: Any) -> list[Any]:
        self.pending.append(status)  # wait until the stream has reached its step
        return self.release_pending()

    def release_pending(self) -> list[Any]:
        """Held statuses the stream has reached, in arrival order, now carrying delayed objects."""
        out = []
        while (
            self.pending
            and self.batch_episode == self.pending[0].episode_id
            and self.last_batch_step >= self.pending[0].end_step
        ):
            msg = self.pending.pop(0)
            msg.objects = self.delayed(int(msg.end_step), list(msg.objects))
            out.append(msg)
        return out

    def stream_reached(self, step: int) -> bool:
        return self.batch_episode == self.episode and self.last_batch_step >= step

    def delayed(self, step: int, objects: Iterable[Any]) -> list[Any]:
        """The objects as seen tau ago (F1), the injection kept for the report."""
        objects = list(objects)
        tau = sensor_delay(self.intensity)
        snapshot, lag = self.delay.delayed(step * DT, tau)
        true = {o.name: self.position_of(o) for o in objects}
        old = {name: self.position_of(o) for name, o in snapshot.items()} or true
        err = position_error(true, {n: old.get(n, p) for n, p in true.items()})
        self.log().add(DelayBuffer.record(int(step), tau, lag, max(err.values(), default=0.0)))
        return [snapshot.get(o.name, o) for o in objects]
