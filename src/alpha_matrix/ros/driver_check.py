"""check-driver's side of the wire: one scripted exchange with a live driver, recorded as
DriverFacts for core/driver_check.py to judge.

The checker is a node named `check_driver`. It acks the step stream like a gating consumer
(hello, then every batch it has seen), so a driver that gates on it (`gating_consumers`) can be
checked for bounded lookahead too; a driver that does not gate ignores the acks. A real-time
driver (``real_time``) gets another stop scene: a long move is stopped while the arm moves (its
decision-to-rest time is what the check prints), a stop decided at step 1 by a second requester
must be accepted, and releasing one requester's hold must leave the other's.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

import rclpy
from alpha_matrix_interfaces.msg import CommandStatus, StepBatch
from alpha_matrix_interfaces.srv import Gripper, Hold, MoveTo, ProtectiveStop, Reset
from geometry_msgs.msg import Point
from rclpy.context import Context
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

from alpha_matrix.core.driver_check import ACK_TOPIC, SERVICES, TOPICS, DriverFacts, Publisher, Reply, Status
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM
from alpha_matrix.ros.robot_client import handshake_motion
from alpha_matrix.ros.services import call_service, handshake, wait_for_services
from alpha_matrix.ros.spin import spin_behind

NAME = "check_driver"
REACHABLE = Point(x=0.5, y=0.0, z=0.8)  # in front of the Panda, gripper down
ACROSS = Point(x=0.5, y=0.25, z=0.8)  # the real-time stop scene's long move, from REACHABLE
LATE = f"{NAME}:late"  # the real-time scene's second requester (a stop decided at step 1)
UNREACHABLE = Point(x=1.6, y=0.0, z=0.7)


class Checker(Node):
    def __init__(self, context: Context, timeout_s: float) -> None:
        super().__init__(NAME, context=context)
        self.timeout = timeout_s
        self.cond = threading.Condition()
        self.steps: dict[str, list[int]] = {}  # episode -> steps in arrival order
        self.status: dict[int, CommandStatus] = {}
        self.ack_limit: int | None = None  # acks held at this step (the gating check)
        self.gating = GatingLink(self, stops=False)
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.cli = {
            name: self.create_client(srv, name)
            for name, srv in (
                ("robot/reset", Reset), ("robot/move_to", MoveTo), ("robot/gripper", Gripper),
                ("robot/hold", Hold), ("robot/protective_stop", ProtectiveStop),
            )
        }  # fmt: skip

    def _on_batch(self, msg: StepBatch) -> None:
        self.gating.streaming()
        last = msg.first_step + msg.num_steps - 1
        with self.cond:
            self.steps.setdefault(msg.episode_id, []).extend(range(msg.first_step, last + 1))
            limit = self.ack_limit
            self.cond.notify_all()
        self.gating.ack(msg.episode_id, last if limit is None else min(last, limit))

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in (CommandStatus.DONE, CommandStatus.CANCELLED):
            with self.cond:
                self.status[msg.command_id] = msg
                self.cond.notify_all()

    # -- waiting, always bounded -------------------------------------------------------
    def wait(self, cond: Callable[[], bool], timeout: float | None = None) -> bool:
        with self.cond:
            return self.cond.wait_for(cond, self.timeout if timeout is None else timeout)

    def last_step(self, episode: str) -> int:
        with self.cond:
            return max(self.steps.get(episode, [0]))

    def terminal(self, reply: Any) -> Status:
        if not getattr(reply, "accepted", False):
            return Status("none")
        if not self.wait(lambda: reply.command_id in self.status):
            return Status("none")
        m = self.status[reply.command_id]
        joints = list(m.joint_positions)
        g = m.grasp_position
        return Status(
            "DONE" if m.state == CommandStatus.DONE else "CANCELLED",
            int(m.start_step), int(m.end_step), m.message, len(m.objects), len(joints),
            all(math.isfinite(v) for v in [*joints, g.x, g.y, g.z]), float(getattr(m, "stop_to_rest_s", 0.0)),
        )  # fmt: skip

    def call(self, name: str, request: Any) -> Any:
        return call_service(self.cli[name], request, self.timeout)

    def stop(self, episode: str, engage: bool, decision: int, requester: str = NAME) -> Reply:
        self.gating.requests_issued += 1  # counted in the next ack, as the contract asks of a consumer
        req = ProtectiveStop.Request(
            episode_id=episode, engage=engage, decision_step=decision, requester=requester, reason="check-driver"
        )
        r = self.call("robot/protective_stop", req)
        return Reply(r.accepted, r.message, apply_step=int(r.apply_step))


def _reply(r: Any) -> Reply:
    return Reply(
        bool(r.accepted), r.message, int(getattr(r, "command_id", 0)), 0, float(getattr(r, "reach_error", 0.0))
    )


def _interfaces(node: Checker, facts: DriverFacts) -> None:
    for topic in TOPICS:
        facts.publishers[topic] = [
            Publisher(
                i.topic_type,
                i.qos_profile.reliability == ReliabilityPolicy.RELIABLE,
                i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL,
            )
            for i in node.get_publishers_info_by_topic(topic)
        ]
    facts.ack_subscribers = [i.topic_type for i in node.get_subscriptions_info_by_topic(ACK_TOPIC[0])]
    served = dict(node.get_service_names_and_types())
    facts.services = {name: list(served.get(name, [])) for name in SERVICES}


def exchange(
    node: Checker, facts: DriverFacts, latency: int, budget: int, settle: int, gating: bool, real_time: bool = False
) -> None:
    """The scripted exchange; each step records what the driver did, never asserts."""
    ep = "check_driver-1"
    wait_for_services(list(node.cli.values()), node.timeout)
    deadline = time.monotonic() + node.timeout  # discovery: polled (nothing notifies while the driver idles)
    while time.monotonic() < deadline and not (
        all(node.get_publishers_info_by_topic(t) for t in TOPICS)
        and set(SERVICES)
        <= {name for name, _types in node.get_service_names_and_types()}  # robot/observe has no client
    ):
        node.wait(lambda: False, 0.1)
    _interfaces(node, facts)
    handshake_motion(node.cli["robot/move_to"], node.cli["robot/gripper"], node.cli["robot/hold"], node.timeout)

    # A reset re-sent until answered (a first reply can be lost): a second reset only resets again.
    reset = handshake(node.cli["robot/reset"], Reset.Request(episode_id=ep, seed=7, settle_steps=settle), node.timeout)
    facts.reset = _reply(reset)
    facts.settle = node.terminal(reset)
    node.wait(lambda: len(node.steps.get(ep, [])) >= settle)
    with node.cond:
        facts.settle_stream = [s for s in node.steps.get(ep, []) if s <= settle]

    facts.far_move = _reply(node.call("robot/move_to", MoveTo.Request(target=UNREACHABLE, steps=100)))
    facts.bad_gripper = _reply(node.call("robot/gripper", Gripper.Request(width=0.5, max_effort=20.0, steps=10)))
    facts.validate_only = _reply(node.call("robot/move_to", MoveTo.Request(target=REACHABLE, steps=100, validate_only=True)))  # fmt: skip
    move = node.call("robot/move_to", MoveTo.Request(target=REACHABLE, steps=100))
    facts.move = _reply(move)
    facts.moved = node.terminal(move)

    if real_time:  # a real arm's fingers are another controller's: one command through it
        grip = node.call("robot/gripper", Gripper.Request(width=0.08, max_effort=20.0, steps=60))
        facts.grip, facts.gripped = _reply(grip), node.terminal(grip)
        _real_time_stops(node, facts, ep, latency)
    else:
        _stops(node, facts, ep, latency, gating)

    # The budget, in a fresh episode: a hold longer than what is left is cut at the budget.
    ep2 = "check_driver-2"
    reset2 = node.call("robot/reset", Reset.Request(episode_id=ep2, seed=8, settle_steps=settle))
    node.terminal(reset2)
    facts.budget_hold = node.terminal(node.call("robot/hold", Hold.Request(steps=budget)))
    facts.move_after_budget = _reply(node.call("robot/move_to", MoveTo.Request(target=REACHABLE, steps=10)))


def _stops(node: Checker, facts: DriverFacts, ep: str, latency: int, gating: bool) -> None:
    """A stop decided while a long hold runs (and, gating, lookahead with acks held back)."""
    # A long hold: lookahead with acks held back, then a stop decided while it runs.
    hold = node.call("robot/hold", Hold.Request(steps=600))
    start = node.last_step(ep)
    if gating:
        held = start + 2 * latency
        with node.cond:
            node.ack_limit = held
        node.wait(lambda: node.last_step(ep) >= held)
        node.wait(lambda: node.last_step(ep) > held + latency, 1.0)  # a driver that ignores held acks runs on
        ran = node.last_step(ep)
        facts.withheld_ack, facts.ran_to_while_withheld = held, ran
    facts.late_stop = node.stop(ep, True, 1)
    # Gating: decided at the last step seen (the driver waits L for our ack); otherwise ahead of it.
    facts.stop_decision = node.last_step(ep) + (0 if gating else latency)
    facts.stop = node.stop(ep, True, facts.stop_decision)
    with node.cond:
        node.ack_limit = None
    node.gating.ack(ep, node.last_step(ep))
    facts.stopped = node.terminal(hold)

    facts.move_during_stop = _reply(node.call("robot/move_to", MoveTo.Request(target=REACHABLE, steps=50)))
    facts.release = node.stop(ep, False, node.last_step(ep))
    facts.after_release = node.terminal(node.call("robot/hold", Hold.Request(steps=3 * latency)))


def _real_time_stops(node: Checker, facts: DriverFacts, ep: str, latency: int) -> None:
    """A stop decided at the last step seen while a long move runs, the arm in motion; then a
    second requester's stop decided at step 1 (late by any measure), two releases in turn."""
    start = node.last_step(ep)
    move = node.call("robot/move_to", MoveTo.Request(target=ACROSS, steps=480))
    node.wait(lambda: node.last_step(ep) >= start + 160)  # a third of the way: moving fast
    facts.stop_decision = node.last_step(ep)
    facts.stop = node.stop(ep, True, facts.stop_decision)
    facts.stopped = node.terminal(move)
    facts.late_stop = node.stop(ep, True, 1, LATE)
    facts.move_during_stop = _reply(node.call("robot/move_to", MoveTo.Request(target=REACHABLE, steps=50)))
    facts.release = node.stop(ep, False, node.last_step(ep))
    facts.move_while_other_holds = _reply(node.call("robot/move_to", MoveTo.Request(target=REACHABLE, steps=50)))
    facts.release_other = node.stop(ep, False, node.last_step(ep), LATE)
    facts.after_release = node.terminal(node.call("robot/hold", Hold.Request(steps=3 * latency)))


def check_driver(
    latency: int, budget: int, settle: int, gating: bool, timeout_s: float, real_time: bool = False
) -> DriverFacts:
    """Run the exchange against the driver on this process's ROS_DOMAIN_ID; the facts seen."""
    context = Context()
    rclpy.init(context=context, args=[])
    node = Checker(context, timeout_s)
    facts = DriverFacts()
    try:
        spin_behind(node, lambda: exchange(node, facts, latency, budget, settle, gating, real_time), context=context)
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)
    return facts
