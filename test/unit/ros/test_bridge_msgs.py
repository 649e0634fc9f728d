"""StepBatch from step samples: every step's joints, and each contact tagged with its own step."""

import numpy as np

from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.ros.bridge_msgs import step_batch


def _sample(step: int, contacts: int) -> StepSample:
    ids = np.arange(contacts, dtype=np.int32) + step
    return StepSample(
        step=step,
        joint_positions=np.full(9, step / 10),
        joint_velocities=np.full(9, -step / 10),
        contact_body_a=ids,
        contact_link_a=ids + 1,
        contact_body_b=ids + 2,
        contact_link_b=ids + 3,
        contact_force=np.linspace(1.0, 2.0, contacts) * step,
        grasp_position=np.array([step, 0.0, 1.0]),
    )


def test_contacts_carry_their_own_step_and_arrays_stay_aligned():
    samples = [_sample(7, 2), _sample(8, 0), _sample(9, 3), _sample(10, 0)]
    msg = step_batch("ep", samples, [f"j{i}" for i in range(9)], ["table"], [], ack_requested=True)
    assert (msg.first_step, msg.num_steps, msg.ack_requested) == (7, 4, True)
    assert list(msg.contact_step) == [7, 7, 9, 9, 9]
    assert list(msg.contact_body_a) == [7, 8, 9, 10, 11]
    assert list(msg.contact_link_b) == [10, 11, 12, 13, 14]
    assert np.allclose(msg.contact_force, np.concatenate([s.contact_force for s in samples]))
    assert np.allclose(msg.joint_positions, np.repeat([0.7, 0.8, 0.9, 1.0], 9))
    assert list(msg.grasp_positions[::3]) == [7.0, 8.0, 9.0, 10.0]


def test_a_batch_without_contacts_has_empty_contact_arrays():
    msg = step_batch("ep", [_sample(1, 0), _sample(2, 0)], ["j"], [], [], ack_requested=False)
    assert len(msg.contact_step) == len(msg.contact_force) == len(msg.contact_body_a) == 0
