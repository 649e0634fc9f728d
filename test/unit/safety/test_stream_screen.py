"""The live monitor's screened path (stream.process_batch) against the reference path (every step
converted and scanned): the same events, step by step, on batches built to hit every check."""

from __future__ import annotations

import array
import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from alpha_matrix.core.safety.engine import PANDA_JOINT_LIMITS, SafetyConfig, SafetyEngine
from alpha_matrix.core.safety.stream import StepScreen, clean_steps, process_batch, steps_from_batch

JOINTS = [*PANDA_JOINT_LIMITS, "unlimited_joint"]
READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02, 5.0]
BODIES = ["plane", "table", "panda", "red", "green"]
INSIDE = [0.5, 0.0, 0.8]
CONFIG = SafetyConfig(contact_threshold=47.5, window=5)


def batch(first: int, n: int, rng: np.random.Generator, dirty: float) -> SimpleNamespace:
    """``n`` steps from ``first``; each step is made unsafe in one random way with probability ``dirty``."""
    jp = np.tile(READY, (n, 1)) + rng.normal(0.0, 0.001, (n, len(JOINTS)))
    jv = rng.normal(0.0, 0.1, (n, len(JOINTS)))
    gp = np.tile(INSIDE, (n, 1))
    contacts: list[tuple[int, int, int, int, int, float]] = []
    for i in range(n):
        step = first + i
        contacts.append((step, 2, 9, 3, -1, float(rng.uniform(0.0, 40.0))))  # a finger on a block, below threshold
        if rng.random() >= dirty:
            continue
        kind = rng.integers(8)
        if kind == 0:  # violent contact of the arm with a block
            contacts.append((step, 2, 4, 4, -1, float(rng.uniform(47.6, 200.0))))
        elif kind == 1:  # above threshold but excluded: the base on the table
            contacts.append((step, 2, -1, 1, -1, 100.0))
        elif kind == 2:
            gp[i, rng.integers(3)] = 2.0  # grasp out of the workspace
        elif kind == 3:
            jp[i, 3] = -0.0698 + 0.05  # past joint 4's upper limit + tolerance
        elif kind == 4:
            jp[i, 0] = 2.8973 + 0.019  # within tolerance: clean
        elif kind == 5:
            jv[i, rng.integers(len(JOINTS))] = np.nan
        elif kind == 6:
            gp[i, 0] = np.inf
        else:
            jp[i, 9] = 1e6  # a joint without limits: never a violation
    cs = np.array([c for c in contacts], dtype=object)
    return SimpleNamespace(
        first_step=first,
        num_steps=n,
        joint_names=JOINTS,
        joint_positions=array.array("d", jp.ravel().tolist()),
        joint_velocities=array.array("d", jv.ravel().tolist()),
        grasp_positions=array.array("d", gp.ravel().tolist()),
        body_names=BODIES,
        contact_step=array.array("Q", [int(c) for c in cs[:, 0]]),
        contact_body_a=array.array("i", [int(c) for c in cs[:, 1]]),
        contact_link_a=array.array("i", [int(c) for c in cs[:, 2]]),
        contact_body_b=array.array("i", [int(c) for c in cs[:, 3]]),
        contact_link_b=array.array("i", [int(c) for c in cs[:, 4]]),
        contact_force=array.array("d", [float(c) for c in cs[:, 5]]),
    )


def events_both_ways(batches: list[SimpleNamespace]) -> tuple[list, list]:
    ref, fast = SafetyEngine(CONFIG), SafetyEngine(CONFIG)
    a, b = [], []
    for msg in batches:
        for s in steps_from_batch(msg):
            a.append((s.step, ref.process(s)))
        b.extend(process_batch(fast, msg))
    last = batches[-1].first_step + batches[-1].num_steps - 1
    a.append((last, ref.finish(last)))
    b.append((last, fast.finish(last)))
    assert (ref.raw_scans, ref.steps_checked) == (fast.raw_scans, fast.steps_checked)
    return a, b


@pytest.mark.parametrize("dirty", [0.0, 0.02, 0.3, 1.0])
@pytest.mark.parametrize("seed", range(5))
def test_screened_path_gives_the_same_events_step_by_step(seed: int, dirty: float) -> None:
    rng = np.random.default_rng(seed)
    batches = [batch(1 + 16 * k, 16, rng, dirty) for k in range(40)]
    a, b = events_both_ways(batches)
    assert [(s, [dataclasses.asdict(e) for e in ev]) for s, ev in a] == [
        (s, [dataclasses.asdict(e) for e in ev]) for s, ev in b
    ]
    if dirty:
        assert any(ev for _, ev in a)  # the batches did hit the checks


def test_the_screen_clears_only_clean_steps() -> None:
    rng = np.random.default_rng(7)
    msg = batch(1, 200, rng, 0.5)
    clean = clean_steps(msg, CONFIG)
    from alpha_matrix.core.safety.engine import scan

    found = [bool(scan(s, CONFIG)) for s in steps_from_batch(msg)]
    assert not any(c and f for c, f in zip(clean, found, strict=True))  # never clears an unsafe step
    assert clean.sum() > 50  # and it does clear (within-tolerance, excluded, unlimited-joint steps included)


def test_a_malformed_batch_is_not_screened_and_fails_as_before() -> None:
    msg = batch(1, 4, np.random.default_rng(0), 0.0)
    msg.joint_positions = msg.joint_positions[:-1]
    assert not clean_steps(msg, CONFIG).any()
    with pytest.raises(ValueError, match="mismatched state arrays"):
        list(process_batch(SafetyEngine(CONFIG), msg))


def samples_of(msg: SimpleNamespace) -> list[SimpleNamespace]:
    """The bridge's samples behind a batch (sim.sample.StepSample's fields)."""
    n, k = msg.num_steps, len(msg.joint_names)
    jp, jv, gp = (
        np.asarray(a).reshape(n, -1) for a in (msg.joint_positions, msg.joint_velocities, msg.grasp_positions)
    )
    steps, force = np.asarray(msg.contact_step), np.asarray(msg.contact_force)
    assert jp.shape[1] == k
    return [
        SimpleNamespace(
            step=msg.first_step + i,
            joint_positions=jp[i],
            joint_velocities=jv[i],
            grasp_position=gp[i],
            contact_force=force[steps == msg.first_step + i],
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("seed", range(5))
def test_the_bridge_screen_flags_exactly_the_steps_the_monitor_screen_does_not_clear(seed: int) -> None:
    msg = batch(1, 300, np.random.default_rng(seed), 0.4)
    screen = StepScreen(JOINTS, CONFIG)
    flags = [not screen.clean(s) for s in samples_of(msg)]
    assert flags == (~clean_steps(msg, CONFIG)).tolist()
    assert 20 < sum(flags) < 280


def test_the_bridge_screen_flags_on_the_edges_as_the_monitor_screen() -> None:
    msg = batch(1, 8, np.random.default_rng(0), 0.0)
    jp = np.asarray(msg.joint_positions).reshape(8, -1)
    jp[0, 3] = -0.0698 + 0.02  # joint 4 exactly at limit + tolerance: clean
    jp[1, 3] = np.nextafter(-0.0698 + 0.02, 1.0)  # just past it
    msg.joint_positions = array.array("d", jp.ravel().tolist())
    msg.contact_force[2] = 47.5  # at the threshold: clean ("strictly above")
    msg.contact_force[3] = np.nextafter(47.5, 100.0)
    msg.contact_force[4] = np.nan  # neither screen flags a NaN force (the scan never sees it either)
    gp = np.asarray(msg.grasp_positions).reshape(8, 3)
    gp[5] = CONFIG.workspace_max  # on the box: clean
    gp[6, 2] = -np.inf
    msg.grasp_positions = array.array("d", gp.ravel().tolist())
    screen = StepScreen(JOINTS, CONFIG)
    flags = [not screen.clean(s) for s in samples_of(msg)]
    assert flags == (~clean_steps(msg, CONFIG)).tolist() == [False, True, False, True, False, False, True, False]
