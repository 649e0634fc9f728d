"""One full episode directly on a ``World``, no ROS: the benchmark baseline and test core."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from alpha_matrix.core.outcome import MAX_EPISODE_STEPS, SETTLE_STEPS, Outcome, evaluate_outcome
from alpha_matrix.core.planning.oracle import OracleConfig, oracle_plan
from alpha_matrix.core.robot.commands import StepDefaults, plan_to_commands, start_command
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World

Hook = Callable[[World, StepSample], None]
TARGET_BLOCK = "red"
_ORACLE = OracleConfig()
_DEFAULTS = StepDefaults()


@dataclass(frozen=True)
class BareResult:
    outcome: Outcome
    final_poses: dict
    steps: int  # physics steps actually run
    wall_time_s: float


def _run(world: World, hook: Hook | None) -> None:
    while world.busy and world.step_count < MAX_EPISODE_STEPS:
        sample = world.step()
        if hook is not None:
            hook(world, sample)


def run_episode_bare(
    world: World,
    seed: int,
    oracle_config: OracleConfig = _ORACLE,
    defaults: StepDefaults = _DEFAULTS,
    hook: Hook | None = None,
    check_reach: bool = False,
) -> BareResult:
    """reset -> settle -> observe -> oracle plan -> commands -> evaluate the red block.

    ``check_reach``: first the reach check of every move target, as the graph's executive asks
    of the robot before any motion (the driver's IK; a benchmark's second baseline).

    The run is cut at ``MAX_EPISODE_STEPS``; ``Outcome.steps_used`` is what the plan needed
    (settle + command steps), so a plan over budget fails even though it was cut.
    """
    t0 = time.perf_counter()
    world.reset(seed)
    world.start_hold(SETTLE_STEPS)
    _run(world, hook)
    block_pos = world.object_poses()[TARGET_BLOCK][0]
    plan = oracle_plan(TARGET_BLOCK, block_pos, world.config.zone, oracle_config)
    commands = plan_to_commands(plan, defaults)
    if check_reach:
        for cmd in commands:
            if cmd.target is not None:
                world.reach_error(cmd.target)
    for cmd in commands:
        if world.step_count >= MAX_EPISODE_STEPS:
            break
        start_command(world, cmd)
        _run(world, hook)
    poses = world.object_poses()
    needed = SETTLE_STEPS + sum(c.steps for c in commands)
    outcome = evaluate_outcome(poses[TARGET_BLOCK][0], world.config.zone, needed)
    return BareResult(outcome, poses, world.step_count, time.perf_counter() - t0)
