"""``/joint_states`` samples as the step stream: one sample is one step.

A ros2_control arm publishes its joint states every control cycle (joint_state_broadcaster), so
the adapter's step counter is the count of those samples since the episode's reset, and each
StepBatch entry is one sample: the joints in the stream's order, the grasp frame by FK, and the
contact the arm can measure. A real arm has no per-link contact list: what it has is its wrist
force/torque sensor. Its force is reported as one contact between the sensor's link and a body
named ``measured_wrench`` (not a scene object), with |F| as the force, whenever |F| exceeds a
small floor. The safety monitor's rule (core/safety/engine.py: a panda link touching a non-panda
body above the threshold is violent contact) then fires on a crash; a grasp does not trip it,
since the fingers' squeeze is internal to the hand and only the held block's weight reaches the
sensor. The sensor link is the hand, not a finger link, so no grasp exemption applies to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

ROBOT_BODY = "panda"  # the monitor's name for the arm (core/safety/engine.PANDA)
WRENCH_BODY = "measured_wrench"
BODY_NAMES = (ROBOT_BODY, WRENCH_BODY)  # the step stream's body ids: 0 the arm, 1 the sensor's reading
BASE_LINK = -1


def joint_order(names: Sequence[str], wanted: Sequence[str]) -> list[int]:
    """Indices into a JointState's arrays of ``wanted``, in order; ValueError naming what is missing."""
    index = {n: i for i, n in enumerate(names)}
    missing = [n for n in wanted if n not in index]
    if missing:
        raise ValueError(f"joint_states carries no {', '.join(missing)} (it has: {', '.join(names) or 'no joints'})")
    return [index[n] for n in wanted]


def pick(values: Sequence[float], order: Sequence[int]) -> tuple[float, ...]:
    """``values`` in ``order``; a missing array (a driver that sends no velocities) is NaN, which
    the safety monitor reports as non-finite rather than taking it for rest."""
    if len(values) == 0:
        return tuple(math.nan for _ in order)
    return tuple(float(values[i]) for i in order)


def force_magnitude(fx: float, fy: float, fz: float) -> float:
    return math.sqrt(fx * fx + fy * fy + fz * fz)


@dataclass(frozen=True)
class Sample:
    """One step: a joint_states sample in the stream's joint order, with what the adapter adds."""

    step: int
    positions: tuple[float, ...]
    velocities: tuple[float, ...]
    grasp: tuple[float, float, float]
    force: float = 0.0  # |F| of the latest wrench, N


@dataclass
class Batch:
    """A StepBatch's arrays, flat and row-major by step, as the message carries them."""

    first_step: int
    num_steps: int
    joint_positions: list[float] = field(default_factory=list)
    joint_velocities: list[float] = field(default_factory=list)
    grasp_positions: list[float] = field(default_factory=list)
    contact_step: list[int] = field(default_factory=list)
    contact_body_a: list[int] = field(default_factory=list)
    contact_link_a: list[int] = field(default_factory=list)
    contact_body_b: list[int] = field(default_factory=list)
    contact_link_b: list[int] = field(default_factory=list)
    contact_force: list[float] = field(default_factory=list)


def assemble(samples: Sequence[Sample], sensor_link: int, floor: float) -> Batch:
    """The batch of consecutive ``samples``; a wrench above ``floor`` N is a contact of the
    sensor's link (arm body 0) with the ``measured_wrench`` body (1)."""
    b = Batch(samples[0].step, len(samples))
    for s in samples:
        b.joint_positions.extend(s.positions)
        b.joint_velocities.extend(s.velocities)
        b.grasp_positions.extend(s.grasp)
        if s.force > floor:
            b.contact_step.append(s.step)
            b.contact_body_a.append(0)
            b.contact_link_a.append(sensor_link)
            b.contact_body_b.append(1)
            b.contact_link_b.append(BASE_LINK)
            b.contact_force.append(s.force)
    return b


class StepBuffer:
    """Samples not yet published: a batch every ``batch_steps`` samples, and whenever a command
    ends (the caller flushes), as the simulated driver batches. Never waits for anyone."""

    def __init__(self, batch_steps: int) -> None:
        self.batch_steps = batch_steps
        self.samples: list[Sample] = []

    def add(self, sample: Sample) -> bool:
        """Buffer a step; True when the batch is full."""
        if self.samples and sample.step != self.samples[-1].step + 1:
            raise ValueError(f"step {sample.step} does not follow step {self.samples[-1].step}")
        self.samples.append(sample)
        return len(self.samples) >= self.batch_steps

    def take(self) -> list[Sample]:
        out, self.samples = self.samples, []
        return out
