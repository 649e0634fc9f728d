"""A suite's objects in the robot's world: spawned at their places at rest on the table instead of
the seeded blocks, names checked, the blocks back with None."""

from __future__ import annotations

import pytest

from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.errors import WorldError
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig

CUP = BodySpec("cup", "cylinder", (0.07, 0.07, 0.1), 0.2, (0.55, 0.1))
BALL = BodySpec("ball", "sphere", (0.066, 0.066, 0.066), 0.06, (0.7, -0.2))


def test_objects_replace_the_blocks_and_stand_on_the_table() -> None:
    with World() as w:
        w.set_objects((CUP, BALL))
        w.reset(3)
        for _ in range(120):
            w.step()
        poses = w.object_poses()
        assert set(poses) == {"cup", "ball"}
        top = w.config.table_top_z
        assert poses["cup"][0] == pytest.approx((0.55, 0.1, top + 0.05), abs=2e-3)
        assert poses["ball"][0] == pytest.approx((0.7, -0.2, top + 0.033), abs=2e-3)
        w.set_objects(None)
        w.reset(3)
        assert set(w.object_poses()) == set(WorldConfig().block_names)


def test_object_names_are_checked() -> None:
    with World() as w:
        with pytest.raises(WorldError, match="unique"):
            w.set_objects((CUP, CUP))
        with pytest.raises(WorldError, match="panda"):
            w.set_objects((BodySpec("panda", "box", (0.05, 0.05, 0.05), 0.1, (0.5, 0.0)),))
