"""The bridge's messages from the world's data: sim-time stamps, StepBatch (every step's joints and
contacts as flat arrays), JointState, and the CommandStatus of each finished command; and the
publishers that send them."""

from __future__ import annotations

import array
from collections.abc import Iterable, Sequence

import numpy as np
from alpha_matrix_interfaces.msg import CommandStatus, ObjectState, StepBatch
from builtin_interfaces.msg import Time
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from alpha_matrix.core.robot.driver import CommandEvent
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World
from alpha_matrix.ros.convert import object_states, point
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM

_DTYPES = {"d": np.float64, "Q": np.uint64, "i": np.int32}


def sim_time(step: int, dt: float) -> Time:
    ns = round(step * dt * 1e9)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def flat(code: str, values: np.ndarray) -> array.array:
    """A numpy array as the array.array rclpy takes for a sequence field, without a Python loop."""
    a = array.array(code)
    a.frombytes(np.ascontiguousarray(values, dtype=_DTYPES[code]).tobytes())
    return a


def step_batch(
    episode_id: str,
    samples: Sequence[StepSample],
    joint_names: list[str],
    body_names: list[str],
    objects: list[ObjectState],
    ack_requested: bool,
) -> StepBatch:
    msg = StepBatch(episode_id=episode_id, first_step=samples[0].step, num_steps=len(samples))
    msg.ack_requested = ack_requested
    msg.joint_names = joint_names
    msg.joint_positions = flat("d", np.concatenate([s.joint_positions for s in samples]))
    msg.joint_velocities = flat("d", np.concatenate([s.joint_velocities for s in samples]))
    msg.grasp_positions = flat("d", np.concatenate([s.grasp_position for s in samples]))
    msg.body_names = body_names
    counts = [len(s.contact_force) for s in samples]
    msg.contact_step = flat("Q", np.repeat(np.array([s.step for s in samples], np.uint64), counts))
    msg.contact_body_a = flat("i", np.concatenate([s.contact_body_a for s in samples]))
    msg.contact_link_a = flat("i", np.concatenate([s.contact_link_a for s in samples]))
    msg.contact_body_b = flat("i", np.concatenate([s.contact_body_b for s in samples]))
    msg.contact_link_b = flat("i", np.concatenate([s.contact_link_b for s in samples]))
    msg.contact_force = flat("d", np.concatenate([s.contact_force for s in samples]))
    msg.objects = objects
    return msg


def joint_state(joint_names: list[str], sample: StepSample, stamp: Time) -> JointState:
    js = JointState(
        name=joint_names, position=sample.joint_positions.tolist(), velocity=sample.joint_velocities.tolist()
    )
    js.header.stamp = stamp
    return js


def command_statuses(
    episode_id: str,
    events: Iterable[CommandEvent],
    objects: list[ObjectState],
    grasp: Sequence[float],
    joints: list[float],
) -> list[CommandStatus]:
    """One CommandStatus per finished command, with the observation at the end of its step."""
    grasp_point = point(grasp)
    return [
        CommandStatus(
            command_id=e.command_id, episode_id=episode_id, state=int(e.state), start_step=e.start_step,
            end_step=e.end_step, message=e.message, grasp_position=grasp_point, joint_positions=list(joints),
            objects=objects,
        )
        for e in events
    ]  # fmt: skip


class BridgePublishers:
    """The bridge's outputs: /clock, joint_states, the step stream and the command statuses.

    /clock and joint_states repeat what every StepBatch carries, for tools that speak only the
    standard topics (rviz, nodes on sim time); they are sent only while someone subscribes (two
    publishes a batch cost the bridge as much as the StepBatch itself), the way camera drivers
    publish lazily. The recorder subscribes to them where a suite's config lists them."""

    def __init__(self, node: Node, dt: float) -> None:
        self.dt = dt
        self.clock = node.create_publisher(Clock, "/clock", 10)
        self.joints = node.create_publisher(JointState, "joint_states", 10)
        self.batch = node.create_publisher(StepBatch, "robot/step_batch", STEP_STREAM)
        self.status = node.create_publisher(CommandStatus, "robot/command_status", EVENTS)

    def steps(
        self, episode_id: str, samples: Sequence[StepSample], world: World, body_names: list[str], ack: bool
    ) -> None:
        """One StepBatch of ``samples``, then the clock and joint state of its last step if subscribed."""
        stamp = sim_time(samples[-1].step, self.dt)
        objects = object_states(world.object_poses())
        self.batch.publish(step_batch(episode_id, samples, world.joint_names, body_names, objects, ack))
        if self.clock.get_subscription_count():
            self.clock.publish(Clock(clock=stamp))
        if self.joints.get_subscription_count():
            self.joints.publish(joint_state(world.joint_names, samples[-1], stamp))

    def events(self, episode_id: str, events: list[CommandEvent], world: World, last: StepSample | None) -> None:
        """The statuses of the commands that ended, with the world as it is at their end."""
        if not events:
            return
        joints = last.joint_positions.tolist() if last is not None else []
        objects = object_states(world.object_poses())
        for msg in command_statuses(episode_id, events, objects, world.grasp_position(), joints):
            self.status.publish(msg)
