"""What the plan executive decides: is the plan runnable, where the closed loop re-observes, how a
re-observed grasp moves, and what the run has achieved when it ends (or why it was cut).

The executive node (nodes/executive.py) only talks to the robot; it asks this module at every
turn. Validation is schema, then scene, then reach (the reach replies come from the robot); a
refused or cancelled command ends the plan as an ``Aborted`` with its kind and reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from alpha_matrix.core.planning.guards import check_against_scene, parse_plan_text, validate_schema
from alpha_matrix.core.planning.plan import Plan, PlanError
from alpha_matrix.core.robot.commands import Command, StepDefaults, grasp_move_index, plan_to_commands

Vec3 = tuple[float, float, float]


class Aborted(Exception):
    """The robot refused a command, or cut one short: the plan ends here."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


def checked_plan(
    text: str | None, data: dict | None, scene: Mapping[str, Vec3], tolerance: float, defaults: StepDefaults
) -> tuple[Plan, list[Command]]:
    """The plan (from text when given, else from data) checked against the scene, and its commands.
    Raises PlanError (schema or semantic)."""
    plan = parse_plan_text(text) if text is not None else validate_schema(data)
    check_against_scene(plan, scene, tolerance)
    return plan, plan_to_commands(plan, defaults)


def check_reach(replies: Iterable[Any]) -> None:
    """The robot's validate-only replies for every move, before any motion: the first refusal
    (``accepted`` false) makes the plan semantically invalid with the robot's message."""
    for reply in replies:
        if not reply.accepted:
            raise PlanError("semantic", reply.message)


def split_at_grasp(commands: list[Command]) -> tuple[list[Command], list[Command]]:
    """Closed loop: the commands before the grasp move, and from it on (it is re-aimed first)."""
    try:
        g = grasp_move_index(commands)
    except ValueError as err:
        raise PlanError("semantic", str(err)) from None
    return commands[:g], commands[g:]


def follow_object(grasp: Command, obj: str, scene: Mapping[str, Vec3], now: Mapping[str, Vec3]) -> Command:
    """The grasp move shifted in x and y by how far ``obj`` moved since the plan's scene."""
    if obj not in now:
        raise Aborted("rejected", f"re-observation does not see {obj!r}")
    dx, dy = now[obj][0] - scene[obj][0], now[obj][1] - scene[obj][1]
    assert grasp.target is not None
    return replace(grasp, target=(grasp.target[0] + dx, grasp.target[1] + dy, grasp.target[2]))


@dataclass
class Progress:
    """How far the plan got: the last step reached and the plan steps completed."""

    final_step: int = 0
    actions_completed: int = 0

    def command_ended(self, cmd: Command, end_step: int, done: bool, message: str) -> None:
        """Account for one command's terminal status; a cancelled command ends the plan."""
        self.final_step = max(self.final_step, end_step)
        if not done:
            raise Aborted("cancelled", f"{cmd.kind} cancelled at step {end_step}: {message}")
        self.actions_completed = max(self.actions_completed, cmd.source_index + 1)
