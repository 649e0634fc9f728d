from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from alpha_matrix.core.safety.engine import (
    PANDA_JOINT_LIMITS,
    SafetyConfig,
    SafetyEngine,
    StepInput,
    calibrate_threshold,
    critical_openings,
    grasped_blocks,
    sweep_windows,
)

BODIES = ("plane", "table", "panda", "red", "green", "blue")
PLANE, TABLE, PANDA, RED, GREEN, BLUE = range(6)
JOINTS = tuple(PANDA_JOINT_LIMITS)
READY = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04, 0.04)
INSIDE = (0.5, 0.0, 0.9)


def step(n: int, contacts=(), grasp=INSIDE, q=READY, dq=None, objects=None, grasped=None) -> StepInput:
    return StepInput(
        step=n,
        joint_names=JOINTS,
        joint_positions=tuple(q),
        joint_velocities=tuple(dq if dq is not None else (0.0,) * len(JOINTS)),
        grasp_position=grasp,
        body_names=BODIES,
        contacts=tuple(contacts),
        object_positions=objects,
        grasped=grasped,
    )


HIT = ((PANDA, 7, GREEN, -1, 100.0),)  # link 7 drives into green at 100 N


def run(engine: SafetyEngine, unsafe: set[int], first: int = 1, last: int = 100, contacts=HIT) -> list:
    out = []
    for n in range(first, last + 1):
        out += engine.process(step(n, contacts if n in unsafe else ()))
    return out


def test_persistent_condition_is_one_event_with_raw_scans_and_peak():
    engine = SafetyEngine(SafetyConfig())
    for n in range(1, 11):
        engine.process(step(n, ((PANDA, 7, GREEN, -1, 70.0 + n),)))
    [ev] = engine.events
    assert (ev.kind, ev.key, ev.severity) == ("violent_contact", "panda/7-green", "critical")
    assert ev.start_step == 1 and ev.last_unsafe_step == 10 and ev.is_open and ev.duration is None
    assert ev.scans == 10 == engine.raw_scans and ev.peak == 80.0 and engine.steps_checked == 10


def test_closes_exactly_after_w_clean_steps():
    engine = SafetyEngine(SafetyConfig(window=15))
    reports = run(engine, unsafe={5, 6, 7}, last=40)
    opened, closed = reports
    assert opened.close_step is None and opened.start_step == 5 and opened.scans == 1
    assert closed.close_step == 7 + 15 == 22 and closed.duration == 22 - 5 + 1 == 18
    assert opened.event_id == closed.event_id == 0 and not closed.closed_by_end
    assert engine.events[0].scans == 3 and engine.raw_scans == 3


def test_w_minus_one_clean_steps_keep_the_same_event():
    engine = SafetyEngine(SafetyConfig(window=15))
    run(engine, unsafe={5, 5 + 15}, last=60)  # 14 clean steps between the two scans
    [ev] = engine.events
    assert ev.scans == 2 and ev.close_step == 20 + 15


def test_reopens_as_a_new_event_after_closing():
    engine = SafetyEngine(SafetyConfig(window=15))
    run(engine, unsafe={5, 5 + 16}, last=60)  # 15 clean steps: closes at 20, reopens at 21
    first, second = engine.events
    assert (first.start_step, first.close_step, second.start_step, second.close_step) == (5, 20, 21, 36)
    assert first.key == second.key and second.event_id == 1
    assert critical_openings(engine.events) == [first, second]


def test_several_keys_open_at_once():
    engine = SafetyEngine(SafetyConfig())
    contacts = ((PANDA, 7, GREEN, -1, 100.0), (RED, -1, PANDA, 5, 90.0), (PANDA, 3, TABLE, -1, 65.0))
    reports = engine.process(step(1, contacts, grasp=(0.1, 0.0, 0.9)))
    keys = {(e.kind, e.key) for e in reports}
    assert keys == {
        ("violent_contact", "panda/7-green"),
        ("violent_contact", "panda/5-red"),
        ("violent_contact", "panda/3-table"),
        ("out_of_workspace", "grasp"),
    }
    assert engine.raw_scans == 4 and all(e.is_open for e in engine.events)
    assert len(critical_openings(reports, step=1)) == 3


def test_pair_force_at_or_below_threshold_is_safe():
    engine = SafetyEngine(SafetyConfig(contact_threshold=60.0))
    engine.process(step(1, ((PANDA, 7, GREEN, -1, 60.0),)))
    assert engine.events == [] and engine.raw_scans == 0


def test_exclusions():
    engine = SafetyEngine(SafetyConfig())
    held = ((PANDA, 9, RED, -1, 500.0), (RED, -1, PANDA, 10, 500.0))
    support = ((PANDA, -1, TABLE, -1, 900.0), (TABLE, -1, BLUE, -1, 900.0), (BLUE, -1, GREEN, -1, 900.0))
    support += ((PLANE, -1, TABLE, -1, 900.0), (RED, -1, PLANE, -1, 900.0))
    engine.process(step(1, held + support))
    assert engine.events == []
    # A finger on a block that is not held, and the base on another block, are violent.
    engine.process(step(2, ((PANDA, 9, GREEN, -1, 500.0), (PANDA, -1, BLUE, -1, 500.0))))
    assert {e.key for e in engine.events} == {"panda/9-green", "panda/-1-blue"}
    # The caller's explicit grasped set wins over the both-fingers rule.
    engine.process(step(3, ((PANDA, 9, GREEN, -1, 500.0),), grasped=frozenset({"green"})))
    assert engine.events[0].last_unsafe_step == 2


def test_grasped_blocks_needs_both_fingers():
    both = ((PANDA, 9, RED, -1, 5.0), (RED, -1, PANDA, 10, 5.0), (PANDA, 9, GREEN, -1, 5.0))
    assert grasped_blocks(both, BODIES) == {"red"}
    assert grasped_blocks(((PANDA, 9, TABLE, -1, 5.0), (PANDA, 10, TABLE, -1, 5.0)), BODIES) == set()


@pytest.mark.parametrize(
    ("pos", "unsafe"),
    [
        ((0.15, -0.45, 0.55), False),
        ((0.95, 0.55, 1.25), False),
        ((0.1499, 0.0, 0.9), True),
        ((0.5, 0.5501, 0.9), True),
        ((0.5, 0.0, 1.2501), True),
        ((0.5, -0.4501, 0.9), True),
    ],
)
def test_workspace_box_edges_are_inclusive(pos, unsafe):
    engine = SafetyEngine(SafetyConfig())
    engine.process(step(1, grasp=pos))
    assert bool(engine.events) is unsafe


def test_block_out_of_workspace_and_distance_peak():
    engine = SafetyEngine(SafetyConfig())
    engine.process(step(1, objects={"red": (0.5, 0.0, 0.9), "green": (1.25, 0.0, 0.15)}))
    [ev] = engine.events
    assert (ev.kind, ev.key, ev.severity) == ("out_of_workspace", "green", "warning")
    assert ev.peak == pytest.approx(0.5)  # 0.3 past x, 0.4 below z


def test_joint_limit_with_tolerance():
    engine = SafetyEngine(SafetyConfig(joint_tolerance=0.02))
    q = list(READY)
    q[3] = -0.0698 + 0.019  # within tolerance
    engine.process(step(1, q=q))
    assert engine.events == []
    q[3] = -0.0698 + 0.05
    q[7] = -0.03
    engine.process(step(2, q=q))
    assert {(e.kind, e.key) for e in engine.events} == {
        ("joint_limit", "panda_joint4"),
        ("joint_limit", "panda_finger_joint1"),
    }
    assert engine.events[0].peak == pytest.approx(0.05) and engine.events[0].severity == "warning"


def test_non_finite_state_is_critical_and_not_range_checked():
    engine = SafetyEngine(SafetyConfig())
    q = list(READY)
    q[0] = math.nan
    dq = [0.0] * len(JOINTS)
    dq[1], dq[2] = math.inf, -math.inf
    engine.process(step(1, q=q, dq=dq, grasp=(math.nan, 0.0, 0.9), objects={"red": (math.nan, 0.0, 0.0)}))
    got = {e.key: e.peak for e in engine.events}
    assert got == {"joint_positions": 1.0, "joint_velocities": 2.0, "grasp_position": 1.0, "object_positions/red": 1.0}
    assert all(e.kind == "non_finite" and e.severity == "critical" for e in engine.events)


def test_step_discontinuity_raises():
    engine = SafetyEngine(SafetyConfig())
    engine.process(step(40))  # an episode may start at any step >= 1
    with pytest.raises(ValueError):
        engine.process(step(42))
    with pytest.raises(ValueError):
        engine.process(step(40))
    engine.process(step(41))
    assert engine.steps_checked == 2
    engine.reset()
    with pytest.raises(ValueError):
        engine.process(step(0))
    engine.process(step(7))
    assert engine.steps_checked == 1


def test_finish_closes_open_events_at_episode_end():
    engine = SafetyEngine(SafetyConfig(window=15))
    run(engine, unsafe={3, 95}, last=100)
    closed = engine.finish(100)
    assert [(e.start_step, e.close_step, e.duration, e.closed_by_end) for e in closed] == [(95, 100, 6, True)]
    assert engine.events[0].closed_by_end is False and engine.events[1].close_step == 100
    assert engine.finish(100) == []
    with pytest.raises(ValueError):
        engine.finish(50)
    engine.reset()
    assert engine.events == [] and engine.raw_scans == 0 and engine.steps_checked == 0


def test_snapshots_are_copies():
    engine = SafetyEngine(SafetyConfig())
    [snap] = engine.process(step(1, HIT))
    engine.process(step(2, HIT))
    assert snap.scans == 1 and engine.events[0].scans == 2


def test_sweep_windows_is_monotonic_and_keeps_raw_scans():
    rng = np.random.default_rng(7)
    unsafe = set((np.flatnonzero(rng.random(400) < 0.08) + 1).tolist())
    steps = [step(n, HIT if n in unsafe else ()) for n in range(1, 401)]
    sweep = sweep_windows(steps)
    assert list(sweep) == [1, 5, 10, 15, 30, 60]
    counts = [sweep[w][0] for w in sweep]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1] >= 1
    assert {sweep[w][1] for w in sweep} == {len(unsafe)}
    assert sweep_windows([]) == {w: (0, 0) for w in (1, 5, 10, 15, 30, 60)}


def test_calibrate_threshold():
    assert calibrate_threshold(35.0) == 70.0
    assert calibrate_threshold(10.0) == 40.0
    assert calibrate_threshold(30.0, margin=3.0, floor=0.0) == 90.0
    with pytest.raises(ValueError):
        calibrate_threshold(math.nan)


def test_config_and_from_sample():
    with pytest.raises(ValueError):
        SafetyConfig(window=0)
    assert replace(SafetyConfig(), severity={"joint_limit": "critical"}).severity["joint_limit"] == "critical"
    sample = SimpleNamespace(
        step=3,
        joint_positions=np.array(READY),
        joint_velocities=np.zeros(9),
        contact_body_a=np.array([PANDA]),
        contact_link_a=np.array([4]),
        contact_body_b=np.array([BLUE]),
        contact_link_b=np.array([-1]),
        contact_force=np.array([80.0]),
        grasp_position=np.array(INSIDE),
    )
    s = StepInput.from_sample(sample, JOINTS, BODIES, {"red": np.array([0.5, 0.0, 0.65])})
    assert s.contacts == ((PANDA, 4, BLUE, -1, 80.0),) and s.object_positions == {"red": (0.5, 0.0, 0.65)}
    assert [e.key for e in SafetyEngine().process(s)] == ["panda/4-blue"]
