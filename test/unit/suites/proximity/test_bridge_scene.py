"""core/suites/proximity/bridge_scene.py: the proximity bridge's person, frames and truth."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace as NS

import numpy as np
import pytest

from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.bridge_scene import ProximityScene, check_person
from alpha_matrix.core.suites.proximity.eval import run_steps
from alpha_matrix.core.suites.proximity.run import scenario_from_json, scenario_json
from alpha_matrix.core.suites.proximity.scenarios import load_scenarios

CONFIG = Path(__file__).parents[4] / "config/scenarios/proximity.yaml"


@pytest.fixture(scope="module")
def person() -> NS:
    scen = load_scenarios(CONFIG)
    run = scen.runs[0]
    sc = scenario_from_json(scenario_json(run, scen.settings, run_steps(run, scen.settings)))
    return NS(name=sc.name, seed=sc.seed, start_step=48, lighting=sc.lighting, path_json=json.dumps(sc.path))


def test_a_bad_person_is_refused_with_the_reason(person: NS) -> None:
    assert check_person(person.path_json, person.lighting) == ""
    assert check_person(person.path_json, "disco").startswith("bad person: unknown lighting")
    assert check_person('{"nonsense": 1}', "default").startswith("bad person:")


def _episode(scene: ProximityScene, world: World, person: NS, episode: str, steps: int) -> list:
    assert scene.configure(episode, person) == ""
    scene.before_reset()
    world.reset(3)
    scene.after_reset(episode)
    world.start_hold(steps)
    frames = []
    while world.busy:
        s = world.step().step
        if (frame := scene.after_step(s)) is not None:
            frames.append(frame)
    return frames


def test_the_person_enters_after_start_step_and_frames_are_deterministic(person: NS) -> None:
    world = World()
    scene = ProximityScene(world)
    try:
        frames = _episode(scene, world, person, "ep1", 96)
        rows = scene.take_truth()
        assert [r[0] for r in rows] == list(range(1, 97)) and scene.take_truth() == []
        assert all(math.isinf(r[1]) for r in rows if r[0] <= 48) and all(math.isfinite(r[1]) for r in rows[48:])
        assert [f.step for f in frames] == [24, 48, 72, 96] and scene.human is not None
        assert scene.truth_episode == "ep1" and scene.scenes == {}
        again = _episode(scene, world, person, "ep2", 96)  # the first person is removed at the reset
        assert scene.take_truth() == rows
        assert all(np.array_equal(a.depth, b.depth) for a, b in zip(frames, again, strict=True))
    finally:
        scene.close()
        world.close()
