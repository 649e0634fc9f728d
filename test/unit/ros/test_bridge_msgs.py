"""StepBatch from step samples: every step's joints, and each contact tagged with its own step; object poses."""

import numpy as np

from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.ros.bridge_msgs import step_batch
from alpha_matrix.ros.convert import object_states, poses_of


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


def test_object_poses_travel_unchanged_and_each_message_owns_its_pose():
    poses = {"red": ((0.1, -0.2, 0.6250000001), (0.0, 0.0, 0.3826834, 0.9238795)), "blue": ((1, 2, 3), (0, 0, 0, 1))}
    states = object_states(poses)
    assert [s.name for s in states] == ["red", "blue"]
    assert poses_of(states) == {k: (tuple(map(float, p)), tuple(map(float, q))) for k, (p, q) in poses.items()}
    states[0].pose.position.x = 9.0
    assert states[1].pose.position.x == 1.0
