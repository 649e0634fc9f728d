"""Human in the scene: pure path, puppet that leaves the physics untouched, ground truth."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.sim.human import Human, HumanPath, path_state
from alpha_matrix.core.sim.world import World

BASE = (0.1, 0.0)
DT = 1.0 / 240.0


@pytest.fixture(scope="module")
def world():
    w = World()
    yield w
    w.close()


def dist(st) -> float:
    return math.hypot(st.x - BASE[0], st.y - BASE[1])


def test_approach_path_is_a_pure_function_of_time() -> None:
    path = HumanPath(angle_deg=90.0, start_distance=4.0, stop_distance=1.0, speed=2.0, dwell_s=1.0, start_delay_s=0.5)
    assert dist(path_state(path, 0.0, BASE)) == pytest.approx(4.0)
    assert path_state(path, 0.0, BASE).gait_phase is None  # standing before the walk
    mid = path_state(path, 1.0, BASE)
    assert dist(mid) == pytest.approx(3.0) and mid.gait_phase is not None
    assert mid.x == pytest.approx(BASE[0]) and mid.y > 0.0
    assert dist(path_state(path, 2.5, BASE)) == pytest.approx(1.0)  # dwell
    assert path_state(path, 2.5, BASE).gait_phase is None
    assert dist(path_state(path, 3.5, BASE)) == pytest.approx(2.0)  # retreating
    assert dist(path_state(path, 60.0, BASE)) == pytest.approx(4.0)
    assert path.duration_s == pytest.approx(0.5 + 1.5 + 1.0 + 1.5)
    assert path_state(path, 1.234, BASE) == path_state(path, 1.234, BASE)


def test_pass_path_is_closest_halfway_and_never_nearer() -> None:
    path = HumanPath(kind="pass", angle_deg=180.0, start_distance=4.0, stop_distance=3.0, speed=1.0, start_delay_s=0.0)
    ds = [dist(path_state(path, t, BASE)) for t in np.linspace(0.0, path.duration_s, 101)]
    assert min(ds) == pytest.approx(3.0, abs=1e-6)
    assert ds[0] == pytest.approx(4.0) and ds[-1] == pytest.approx(4.0)
    assert dist(path_state(path, path.duration_s / 2.0, BASE)) == pytest.approx(3.0)


def _episode_bytes(world: World, human_path: HumanPath | None) -> bytes:
    human = Human(world, human_path) if human_path else None

    def hook(w: World, sample) -> None:
        if human is not None:
            human.set_step(sample.step)

    try:
        res = run_episode_bare(world, 5, hook=hook)
    finally:
        if human is not None:
            human.close()
    return np.array([list(a) + list(b) for a, b in res.final_poses.values()]).tobytes()


def test_human_leaves_robot_physics_byte_identical(world: World) -> None:
    ref = _episode_bytes(world, None)
    # The person walks right up to the table while the arm works.
    assert _episode_bytes(world, HumanPath(start_distance=2.0, stop_distance=0.6, speed=1.5)) == ref
    assert _episode_bytes(world, None) == ref


def test_ground_truth_tracks_the_nearest_body_point(world: World) -> None:
    world.reset(1)
    h = Human(world, HumanPath(angle_deg=180.0, start_distance=3.0, stop_distance=1.5, speed=1.0, start_delay_s=0.0))
    try:
        h.set_step(0)
        far = h.ground_truth_distance()
        h.set_step(int(1.5 / DT))  # arrived at 1.5 m (centre line)
        near = h.ground_truth_distance()
        assert 2.6 < far < 3.0
        assert 1.1 < near < 1.5
        assert h.height() == pytest.approx(1.70, abs=0.05)
    finally:
        h.close()


def test_postures_differ_and_reaching_is_nearer(world: World) -> None:
    world.reset(1)
    out = {}
    for posture in ("upright", "crouching", "arm_raised", "reaching"):
        h = Human(world, HumanPath(start_distance=2.0, stop_distance=1.5, posture=posture, start_delay_s=0.0))
        try:
            h.set_step(240)  # standing at 1.5 m
            out[posture] = (h.height(), h.ground_truth_distance())
        finally:
            h.close()
    assert out["crouching"][0] < out["upright"][0] - 0.3
    assert out["arm_raised"][0] > out["upright"][0] + 0.2
    assert out["reaching"][1] < out["upright"][1] - 0.3


def test_set_step_is_deterministic_and_close_removes_the_puppet(world: World) -> None:
    world.reset(1)
    cid = world.client_id
    before = p.getNumBodies(physicsClientId=cid)
    h = Human(world, HumanPath(speed=1.3))
    bodies = [b for _, b in h._puppets]
    assert p.getNumBodies(physicsClientId=cid) == before + len(bodies)
    h.set_step(333)
    a = [p.getBasePositionAndOrientation(b, physicsClientId=cid) for b in bodies]
    h.set_step(10)
    h.set_step(333)
    assert [p.getBasePositionAndOrientation(b, physicsClientId=cid) for b in bodies] == a
    h.close()
    assert p.getNumBodies(physicsClientId=cid) == before
