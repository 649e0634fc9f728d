"""Validated ``Plan`` -> low-level world commands. Pure data mapping, no physics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from alpha_matrix.core.planning.plan import Grip, MoveTo, Plan, Release

if TYPE_CHECKING:
    from alpha_matrix.core.sim.world import World

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Command:
    kind: str  # "move" | "gripper" | "hold"
    steps: int
    target: Vec3 | None = None  # move
    width: float | None = None  # gripper, total opening, m
    force: float | None = None  # gripper, N per finger
    source_index: int = -1  # index of the plan step it came from


@dataclass(frozen=True)
class StepDefaults:
    """Values used where a plan step leaves ``steps``, ``force`` or ``width`` as None."""

    move_steps: int = 240
    grip_steps: int = 60
    release_steps: int = 210
    grip_force: float = 20.0
    grip_width: float = 0.0
    release_width: float = 0.08


def plan_to_commands(plan: Plan, defaults: StepDefaults = StepDefaults()) -> list[Command]:
    """One command per plan step; GRIP closes to ``grip_width``, RELEASE opens with ``grip_force``."""
    out: list[Command] = []
    for i, st in enumerate(plan.steps):
        if isinstance(st, MoveTo):
            x, y, z = st.target
            out.append(
                Command(
                    "move",
                    st.steps or defaults.move_steps,
                    target=(float(x), float(y), float(z)),
                    source_index=i,
                )
            )
        elif isinstance(st, Grip):
            force = defaults.grip_force if st.force is None else st.force
            out.append(
                Command(
                    "gripper",
                    st.steps or defaults.grip_steps,
                    width=defaults.grip_width,
                    force=force,
                    source_index=i,
                )
            )
        elif isinstance(st, Release):
            width = defaults.release_width if st.width is None else st.width
            out.append(
                Command(
                    "gripper",
                    st.steps or defaults.release_steps,
                    width=width,
                    force=defaults.grip_force,
                    source_index=i,
                )
            )
        else:  # pragma: no cover - the schema admits no other step
            raise TypeError(f"unknown plan step {type(st).__name__}")
    return out


def start_command(world: World, cmd: Command) -> None:
    """Start ``cmd`` on ``world`` (the caller then steps until ``world.busy`` is False)."""
    if cmd.kind == "move":
        assert cmd.target is not None
        world.start_move(cmd.target, cmd.steps)
    elif cmd.kind == "gripper":
        assert cmd.width is not None and cmd.force is not None
        world.start_gripper(cmd.width, cmd.force, cmd.steps)
    elif cmd.kind == "hold":
        world.start_hold(cmd.steps)
    else:
        raise ValueError(f"unknown command kind {cmd.kind!r}")


def grasp_move_index(commands: list[Command]) -> int:
    """Index of the move that brings the fingers to the object: the last move before the first
    closing gripper command. A closed-loop executive re-observes just before it."""
    for i, cmd in enumerate(commands):
        if cmd.kind == "gripper" and (cmd.width or 0.0) <= 0.01:
            for j in range(i - 1, -1, -1):
                if commands[j].kind == "move":
                    return j
            break
    raise ValueError("the plan has no move followed by a grip")
