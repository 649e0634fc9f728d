"""Plan -> commands mapping and dispatch."""

from __future__ import annotations

import pytest

from alpha_matrix.core.planning.plan import Plan
from alpha_matrix.core.robot.commands import Command, StepDefaults, plan_to_commands, start_command


def plan(*steps: dict) -> Plan:
    return Plan.model_validate({"object": "red", "steps": list(steps)})


def test_explicit_values_are_kept() -> None:
    cmds = plan_to_commands(
        plan(
            {"action": "MOVE_TO", "target": [0.5, 0.1, 0.7], "steps": 90},
            {"action": "GRIP", "force": 12.5, "steps": 30},
            {"action": "RELEASE", "width": 0.05, "steps": 40},
        )
    )
    assert cmds == [
        Command("move", 90, target=(0.5, 0.1, 0.7), source_index=0),
        Command("gripper", 30, width=0.0, force=12.5, source_index=1),
        Command("gripper", 40, width=0.05, force=20.0, source_index=2),
    ]


def test_defaults_fill_missing_values() -> None:
    d = StepDefaults(
        move_steps=111, grip_steps=22, release_steps=33, grip_force=7.0, grip_width=0.01, release_width=0.06
    )
    cmds = plan_to_commands(
        plan(
            {"action": "MOVE_TO", "target": [0.5, 0.1, 0.7]},
            {"action": "GRIP"},
            {"action": "RELEASE"},
        ),
        d,
    )
    assert [c.steps for c in cmds] == [111, 22, 33]
    assert (cmds[1].width, cmds[1].force) == (0.01, 7.0)
    assert (cmds[2].width, cmds[2].force) == (0.06, 7.0)
    assert [c.source_index for c in cmds] == [0, 1, 2]


def test_zero_release_width_is_not_replaced_by_default() -> None:
    (cmd,) = plan_to_commands(plan({"action": "RELEASE", "width": 0.0}))
    assert cmd.width == 0.0 and cmd.steps == StepDefaults().release_steps


def test_mapping_from_text() -> None:
    text = '{"object":"red","steps":[{"action":"MOVE_TO","target":[0.6,0.35,0.7]},{"action":"GRIP"}]}'
    cmds = plan_to_commands(Plan.model_validate_json(text))
    assert [c.kind for c in cmds] == ["move", "gripper"]
    assert cmds[0].target == (0.6, 0.35, 0.7) and cmds[0].steps == 240


class FakeWorld:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def start_move(self, target, steps):
        self.calls.append(("move", target, steps))

    def start_gripper(self, width, force, steps):
        self.calls.append(("gripper", width, force, steps))

    def start_hold(self, steps):
        self.calls.append(("hold", steps))


def test_start_command_dispatch() -> None:
    w = FakeWorld()
    start_command(w, Command("move", 5, target=(0.1, 0.2, 0.3)))
    start_command(w, Command("gripper", 6, width=0.08, force=3.0))
    start_command(w, Command("hold", 7))
    assert w.calls == [("move", (0.1, 0.2, 0.3), 5), ("gripper", 0.08, 3.0, 6), ("hold", 7)]
    with pytest.raises(ValueError):
        start_command(w, Command("teleport", 1))
