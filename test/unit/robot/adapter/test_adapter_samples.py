"""joint_states samples as the step stream: joint order, batches of consecutive steps, and the
measured wrench as a contact the safety monitor's existing rule judges (a crash fires it, a
held block's weight does not)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from alpha_matrix.core.robot.adapter.samples import (
    BODY_NAMES,
    Sample,
    StepBuffer,
    assemble,
    force_magnitude,
    joint_order,
    pick,
)
from alpha_matrix.core.safety.engine import SafetyConfig, SafetyEngine
from alpha_matrix.core.safety.stream import clean_steps, process_batch

JOINTS = [f"panda_joint{i}" for i in range(1, 8)] + ["panda_finger_joint1", "panda_finger_joint2"]
HAND = 8


def test_joint_order_takes_the_streams_order_from_any_message_order() -> None:
    names = list(reversed(JOINTS)) + ["extra_joint"]
    order = joint_order(names, JOINTS)
    assert [names[i] for i in order] == JOINTS
    assert pick([float(i) for i in range(10)], order) == tuple(float(i) for i in order)
    assert all(math.isnan(v) for v in pick([], order))  # no velocities sent: not taken for rest


def test_joint_order_names_what_is_missing() -> None:
    with pytest.raises(ValueError, match="joint_states carries no panda_joint7"):
        joint_order(JOINTS[:6] + JOINTS[7:], JOINTS)


def _sample(step: int, force: float = 0.0) -> Sample:
    q = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04, 0.04)
    return Sample(step, q, (0.0,) * 9, (0.5, 0.0, 0.8), force)


def _msg(samples: list[Sample], floor: float = 2.0) -> SimpleNamespace:
    b = assemble(samples, HAND, floor)
    return SimpleNamespace(joint_names=JOINTS, body_names=list(BODY_NAMES), **vars(b))


def test_a_batch_is_flat_and_row_major() -> None:
    b = assemble([_sample(5), _sample(6, 30.0), _sample(7, 1.0)], HAND, 2.0)
    assert (b.first_step, b.num_steps) == (5, 3)
    assert len(b.joint_positions) == len(b.joint_velocities) == 27 and len(b.grasp_positions) == 9
    # one contact: the hand (link 8 of body 0, the arm) against the measured wrench (body 1), |F|
    assert (b.contact_step, b.contact_body_a, b.contact_link_a, b.contact_body_b, b.contact_link_b) == (
        [6], [0], [HAND], [1], [-1]
    )  # fmt: skip
    assert b.contact_force == [30.0]


def test_the_monitor_fires_on_a_crash_and_not_on_a_grasp() -> None:
    cfg = SafetyConfig(contact_threshold=47.5)  # the graph's calibrated threshold
    engine = SafetyEngine(cfg)
    held_block = 0.1 * 9.81  # what the wrist feels of a held 0.1 kg block
    crash = force_magnitude(20.0, 5.0, 180.0)
    samples = [_sample(s, held_block) for s in range(1, 17)] + [_sample(s, crash) for s in range(17, 21)]
    msg = _msg(samples)
    assert list(clean_steps(msg, cfg)) == [True] * 16 + [False] * 4
    opened = [e for _step, events in process_batch(engine, msg) for e in events]
    assert [(e.kind, e.key, e.severity) for e in opened] == [("violent_contact", "panda/8-measured_wrench", "critical")]
    assert opened[0].start_step == 17 and opened[0].peak == pytest.approx(crash)


def test_the_step_buffer_batches_consecutive_steps() -> None:
    buf = StepBuffer(3)
    assert not buf.add(_sample(1)) and not buf.add(_sample(2)) and buf.add(_sample(3))
    assert [s.step for s in buf.take()] == [1, 2, 3]
    buf.add(_sample(4))
    assert [s.step for s in buf.take()] == [4]  # a command ended: flushed early
    with pytest.raises(ValueError, match="does not follow"):
        buf.add(_sample(4)) or buf.add(_sample(6))
