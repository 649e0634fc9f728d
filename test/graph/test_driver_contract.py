"""The driver contract over real DDS: topics, services, step stream, rejections."""

from __future__ import annotations

import threading

from alpha_matrix_interfaces.msg import CommandStatus, StepBatch
from alpha_matrix_interfaces.srv import Gripper, Hold, MoveTo, ProtectiveStop, Reset
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from conftest import wait_until

QOS = QoSProfile(depth=256, reliability=ReliabilityPolicy.RELIABLE)


class Probe:
    def __init__(self, node):
        self.node = node
        self.batches: list[StepBatch] = []
        self.status: dict[int, CommandStatus] = {}
        self.clock: list[Clock] = []
        self.joints: list[JointState] = []
        self.lock = threading.Lock()
        node.create_subscription(StepBatch, "robot/step_batch", lambda m: self._add(self.batches, m), QOS)
        node.create_subscription(CommandStatus, "robot/command_status", self._on_status, QOS)
        node.create_subscription(Clock, "/clock", lambda m: self._add(self.clock, m), 10)
        node.create_subscription(JointState, "joint_states", lambda m: self._add(self.joints, m), 10)

    def _add(self, dest, msg):
        with self.lock:
            dest.append(msg)

    def _on_status(self, msg):
        if msg.state in (CommandStatus.DONE, CommandStatus.CANCELLED):
            with self.lock:
                self.status[msg.command_id] = msg

    def call(self, srv_type, name, request, timeout=20.0):
        cli = self.node.create_client(srv_type, name)
        assert cli.wait_for_service(timeout_sec=timeout), f"service {name} not available"
        fut = cli.call_async(request)
        wait_until(fut.done, timeout, f"reply from {name}")
        return fut.result()

    def wait_status(self, command_id, timeout=30.0) -> CommandStatus:
        wait_until(lambda: command_id in self.status, timeout, f"command {command_id} to finish")
        return self.status[command_id]


def test_driver_contract(start_graph):
    g = start_graph(exclude=("oracle", "executive", "episode_runner"))
    probe = Probe(g.node)
    wait_until(lambda: g.node.count_publishers("robot/step_batch") > 0, 30, "the bridge's step stream")
    wait_until(
        lambda: (
            g.node.get_publishers_info_by_topic("robot/step_batch")[0].node_name
            and any(p.node_name == "sim_bridge" for p in g.node.get_publishers_info_by_topic("robot/step_batch"))
        ),
        30,
        "sim_bridge to publish",
    )
    # The bridge's writers must have matched our readers before anything is published.
    wait_until(lambda: g.node.count_subscribers("robot/step_batch") > 0, 30, "our subscription to be visible")

    reset = probe.call(Reset, "robot/reset", Reset.Request(episode_id="e1", seed=7, settle_steps=120))
    assert reset.accepted
    settled = probe.wait_status(reset.command_id)
    assert settled.state == CommandStatus.DONE and (settled.start_step, settled.end_step) == (1, 120)
    assert {o.name for o in settled.objects} == {"red", "green", "blue"}

    # Every step arrives exactly once, in order, with its joints and contacts.
    wait_until(lambda: sum(b.num_steps for b in probe.batches) >= 120, 10, "120 steps in the stream")
    steps = [b.first_step + i for b in probe.batches for i in range(b.num_steps)]
    assert steps == list(range(1, 121))
    b = probe.batches[-1]
    assert len(b.joint_positions) == b.num_steps * len(b.joint_names) == b.num_steps * 9
    assert len(b.grasp_positions) == 3 * b.num_steps
    assert "table" in b.body_names and len(b.contact_step) == len(b.contact_force) > 0  # blocks rest on the table

    # /clock and /joint_states are topics of their own: the last batch's may still be on its way.
    def settled_clock() -> bool:
        return bool(probe.joints and probe.clock) and probe.clock[-1].clock == Time(sec=0, nanosec=500_000_000)

    wait_until(
        settled_clock,
        10,
        "/clock at 0.5 s (step 120 at 240 Hz) and /joint_states",
    )
    assert len(probe.joints[-1].name) == 9

    far = probe.call(MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=1.6, y=0.0, z=0.7), steps=100))
    assert not far.accepted and "unreachable" in far.message and far.reach_error > 0.5
    check = probe.call(
        MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=0.5, y=0.0, z=0.8), steps=100, validate_only=True)
    )
    assert check.accepted and check.command_id == 0
    bad = probe.call(Gripper, "robot/gripper", Gripper.Request(width=0.5, max_effort=20.0, steps=10))
    assert not bad.accepted and "width" in bad.message

    move = probe.call(MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=0.5, y=0.0, z=0.8), steps=100))
    done = probe.wait_status(move.command_id)
    assert (done.start_step, done.end_step) == (121, 220)
    assert abs(done.grasp_position.x - 0.5) < 0.01 and abs(done.grasp_position.z - 0.8) < 0.01

    # A stop decided in the past is refused, never applied late; one in the future is scheduled.
    late = probe.call(
        ProtectiveStop,
        "robot/protective_stop",
        ProtectiveStop.Request(episode_id="e1", engage=True, decision_step=10, requester="test", reason="late"),
    )
    assert not late.accepted and "late" in late.message
    stop = probe.call(
        ProtectiveStop,
        "robot/protective_stop",
        ProtectiveStop.Request(episode_id="e1", engage=True, decision_step=230, requester="test", reason="test"),
    )
    assert stop.accepted and stop.apply_step == 254
    hold = probe.call(Hold, "robot/hold", Hold.Request(steps=100))
    cancelled = probe.wait_status(hold.command_id)
    assert cancelled.state == CommandStatus.CANCELLED and "protective stop at step 254" in cancelled.message
    refused = probe.call(MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=0.5, y=0.0, z=0.8), steps=10))
    assert not refused.accepted and "protective stop" in refused.message
