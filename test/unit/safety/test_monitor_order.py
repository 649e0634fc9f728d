"""The safety monitor's account does not depend on the order in which the step stream and the
runner's episode/end reach it (core/safety/monitor.py), on the driver's real steps and batches.

DDS orders messages within one topic only, so the last StepBatch of an episode may come before
or after episode/end. A protective stop applies before the physics of its step, and the world
runs that step (stopped): when it follows a full batch it is a batch of its own, after the end
of every command. The end notice must name it, or the account closes before it in one order and
after it in the other."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from alpha_matrix.core.robot.driver import DriverCore
from alpha_matrix.core.robot.state import CommandEvent
from alpha_matrix.core.robot.stepping import StepBuffer, names_by_id
from alpha_matrix.core.safety.engine import SafetyConfig
from alpha_matrix.core.safety.engine import SafetyEvent as CoreEvent
from alpha_matrix.core.safety.monitor import Account, MonitorCore
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World

L, BATCH, SETTLE = 24, 16, 120


@pytest.fixture(scope="module")
def world():
    w = World()
    yield w
    w.close()


class Outputs:
    def __init__(self) -> None:
        self.summaries: list[Account] = []
        self.events: list[tuple[str, int, str, str, bool]] = []

    def event(self, episode_id: str, event: CoreEvent, stop_requested: bool) -> None:
        self.events.append((episode_id, event.start_step, event.kind, event.key, stop_requested))

    def stop(self, episode_id: str, step: int, reason: str) -> None:
        pass

    def ack(self, episode_id: str, step: int) -> None:
        pass

    def summary(self, account: Account) -> None:
        self.summaries.append(account)


def step_batch(episode_id: str, samples: list[StepSample], world: World) -> SimpleNamespace:
    """A StepBatch's fields (duck-typed), as the bridge fills them (ros/bridge_msgs.step_batch)."""
    counts = [len(s.contact_force) for s in samples]
    cat = np.concatenate
    return SimpleNamespace(
        episode_id=episode_id, first_step=samples[0].step, num_steps=len(samples),
        joint_names=list(world.joint_names), body_names=names_by_id(world.body_names),
        joint_positions=cat([s.joint_positions for s in samples]),
        joint_velocities=cat([s.joint_velocities for s in samples]),
        grasp_positions=cat([s.grasp_position for s in samples]),
        contact_step=np.repeat(np.array([s.step for s in samples], np.uint64), counts),
        contact_body_a=cat([s.contact_body_a for s in samples]), contact_link_a=cat([s.contact_link_a for s in samples]),
        contact_body_b=cat([s.contact_body_b for s in samples]), contact_link_b=cat([s.contact_link_b for s in samples]),
        contact_force=cat([s.contact_force for s in samples]),
    )  # fmt: skip


def stopped_episode(world: World, decision: int) -> tuple[list[SimpleNamespace], list[CommandEvent]]:
    """Settle, a long move, a stop decided at ``decision``: the batches (16 steps, or up to a
    command's end, as the bridge cuts them) and every command's terminal event."""
    core = DriverCore(world, latency=L)
    _, events = core.reset("e", 3, SETTLE)
    core.move_to((0.5, 0.0, 0.8), 600)
    core.hold(50)
    assert core.protective_stop("e", True, decision, "step_consumer", "test").accepted
    buffer, batches = StepBuffer(BATCH), []
    while core.has_work():
        sample, ended = core.step()
        events += ended
        if buffer.add(sample, ended) or not core.has_work():
            batches.append(step_batch("e", buffer.take(), world))
    return batches, events


def account(batches: list[SimpleNamespace], end: int, end_before_last_batch: bool) -> Account:
    out = Outputs()
    monitor = MonitorCore(SafetyConfig(), True, out)
    for b in batches[:-1]:
        monitor.on_batch(b)
    if end_before_last_batch:
        monitor.on_end("e", end)
        monitor.on_batch(batches[-1])
    else:
        monitor.on_batch(batches[-1])
        monitor.on_end("e", end)
    assert len(out.summaries) == 1
    return out.summaries[0]


def test_a_stop_after_a_full_batch_gives_one_account_in_either_arrival_order(world):
    decision = 305  # applies at 329: batches ... (313, 16) and then the stop's step alone, (329, 1)
    batches, events = stopped_episode(world, decision)
    assert [(b.first_step, b.num_steps) for b in batches[-2:]] == [(313, 16), (329, 1)]
    end = max(e.end_step for e in events)  # what episode/end says (the executive's final step)
    first, second = account(batches, end, False), account(batches, end, True)
    assert first == second
    assert end == world.step_count == decision + L  # the last step the world ran: the stop's
    assert (second.first_step, second.last_step, second.steps_checked) == (1, decision + L, decision + L)


def test_the_end_notice_waits_for_the_steps_it_names():
    """The account closes on the later of the two: the notice, or the batch carrying its step."""
    out = Outputs()
    monitor = MonitorCore(SafetyConfig(), True, out)
    rng = np.random.default_rng(0)

    def batch(first: int, n: int) -> SimpleNamespace:
        return SimpleNamespace(
            episode_id="e", first_step=first, num_steps=n, joint_names=["j"], body_names=["plane"],
            joint_positions=rng.normal(0, 0.01, n), joint_velocities=np.zeros(n),
            grasp_positions=np.tile([0.5, 0.0, 0.8], n), contact_step=np.zeros(0, np.uint64),
            contact_body_a=np.zeros(0, np.int32), contact_link_a=np.zeros(0, np.int32),
            contact_body_b=np.zeros(0, np.int32), contact_link_b=np.zeros(0, np.int32),
            contact_force=np.zeros(0),
        )  # fmt: skip

    monitor.on_batch(batch(1, 16))
    monitor.on_end("e", 17)
    assert out.summaries == []
    monitor.on_batch(batch(17, 1))
    assert [(a.last_step, a.steps_checked) for a in out.summaries] == [(17, 17)]
    monitor.on_batch(batch(18, 5))  # a real-time driver streams on after the end: no episode's
    assert len(out.summaries) == 1 and monitor.episode == ""
