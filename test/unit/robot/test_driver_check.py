"""Driver contract clauses judged on constructed facts: a conforming driver passes every row,
each kind of breach fails the row that names it."""

from __future__ import annotations

import dataclasses

import pytest

from alpha_matrix.core.driver_check import SERVICES, TOPICS, DriverFacts, Publisher, Reply, Status, judge, render

L, BUDGET, SETTLE = 24, 1260, 120


def conforming() -> DriverFacts:
    done = Status("DONE", 1, SETTLE, "", 3, 9, True)
    return DriverFacts(
        publishers={t: [Publisher(ty, True, True)] for t, (ty, _) in TOPICS.items()},
        ack_subscribers=["alpha_matrix_interfaces/msg/StepAck"],
        services={n: [ty] for n, ty in SERVICES.items()},
        reset=Reply(True, command_id=1), settle=done, settle_stream=list(range(1, SETTLE + 1)),
        far_move=Reply(False, "unreachable", reach_error=0.8), bad_gripper=Reply(False, "width"),
        validate_only=Reply(True, command_id=0), move=Reply(True, command_id=2),
        moved=dataclasses.replace(done, start_step=SETTLE + 1, end_step=SETTLE + 100),
        withheld_ack=268, ran_to_while_withheld=284, late_stop=Reply(False, "late: would apply at step 25"),
        stop_decision=284, stop=Reply(True, apply_step=284 + L),
        stopped=Status("CANCELLED", 221, 284 + L, "protective stop", 3, 9, True),
        move_during_stop=Reply(False, "protective stop"), release=Reply(True, apply_step=332),
        after_release=dataclasses.replace(done, start_step=308, end_step=379),
        budget_hold=Status("CANCELLED", 121, BUDGET, "budget", 3, 9, True), move_after_budget=Reply(False, "budget"),
    )  # fmt: skip


def failing(facts: DriverFacts, gating: bool = True) -> list[str]:
    return [c.name for c in judge(facts, L, BUDGET, SETTLE, gating) if c.ok is False]


def test_a_conforming_driver_passes_every_clause():
    clauses = judge(conforming(), L, BUDGET, SETTLE, gating=True)
    assert len(clauses) == 10 and all(c.ok for c in clauses)
    assert render(clauses).endswith("10 passed, 0 failed")
    without = judge(conforming(), L, BUDGET, SETTLE, gating=False)
    assert [c.ok for c in without].count(None) == 1 and render(without).endswith("9 passed, 0 failed")


@pytest.mark.parametrize(
    ("change", "clause"),
    [
        ({"publishers": {}}, "interfaces: names, types, QoS"),
        ({"services": {"/robot/reset": ["std_srvs/srv/Empty"]}}, "interfaces: names, types, QoS"),
        (
            {"settle": Status("DONE", 1, SETTLE, "", 0, 9, True)},
            "reset: steps restart at 1, DONE with the first observation",
        ),
        ({"settle_stream": [*range(1, 60), *range(61, SETTLE + 1)]}, "step stream: every step once, in order"),
        ({"settle_stream": [1, 1, *range(2, SETTLE + 1)]}, "step stream: every step once, in order"),
        ({"far_move": Reply(True, command_id=3)}, "refusals before motion"),
        ({"moved": Status("none")}, "commands queue, end with one terminal status and its observation"),
        ({"ran_to_while_withheld": 300}, "bounded lookahead: never beyond ack + L"),
        ({"late_stop": Reply(True, apply_step=25)}, "late requests are refused, never applied late"),
        ({"stop": Reply(True, apply_step=284 + 40)}, f"stops land at decision + L (L = {L})"),
        (  # the cut dated before the stop's step, which the world still runs
            {"stopped": Status("CANCELLED", 221, 284 + L - 1, "protective stop", 3, 9, True)},
            f"stops land at decision + L (L = {L})",
        ),
        ({"move_during_stop": Reply(True, command_id=9)}, "a stop refuses motion until released"),
        ({"budget_hold": Status("DONE", 121, 1380, "", 3, 9, True)}, f"episode step budget ({BUDGET} steps)"),
    ],
)
def test_each_breach_fails_the_clause_that_names_it(change, clause):
    assert failing(dataclasses.replace(conforming(), **change)) == [clause]


def test_a_driver_that_answers_nothing_fails_every_clause_but_says_so():
    rows = judge(DriverFacts(), L, BUDGET, SETTLE, gating=True)
    assert all(c.ok is False for c in rows) and "no publisher" in rows[0].detail


# -- a real-time driver (--real-time: a real arm's clock, e.g. arm_adapter) ------------------------
def real_time() -> DriverFacts:
    """What a conforming real-time driver does: the move starts a few idle steps after the settle,
    the stop comes while a long move runs and is timed to rest, a stop decided at step 1 is accepted."""
    f = conforming()
    return dataclasses.replace(
        f,
        moved=dataclasses.replace(f.moved, start_step=SETTLE + 4, end_step=SETTLE + 170),
        grip=Reply(True, command_id=3), gripped=dataclasses.replace(f.moved, start_step=SETTLE + 175, end_step=SETTLE + 240),
        withheld_ack=None, ran_to_while_withheld=None,
        stop_decision=447, stop=Reply(True, apply_step=447),
        stopped=Status("CANCELLED", 300, 461, "protective stop at step 447 ...", 3, 9, True, 0.013),
        late_stop=Reply(True, apply_step=461, message="stopping: cancel sent at step 461"),
        move_while_other_holds=Reply(False, "protective stop in effect (held by check_driver:late)"),
        release_other=Reply(True, apply_step=462),
    )  # fmt: skip


def test_a_conforming_real_time_driver_passes_with_its_stop_timed() -> None:
    clauses = judge(real_time(), L, BUDGET, SETTLE, gating=False, real_time=True)
    assert len(clauses) == 10 and [c.ok for c in clauses].count(None) == 1
    assert render(clauses).endswith("9 passed, 0 failed")
    names = [c.name for c in clauses]
    assert "late requests are refused, never applied late" not in names
    assert f"stops land at decision + L (L = {L})" not in names
    timed = next(c for c in clauses if c.name == "a stop cuts the running command; decision to rest measured")
    assert timed.detail == "decided 447, cancel at 447, at rest 13 ms after the decision"


def test_the_clauses_a_real_time_driver_cannot_meet_still_fail_a_simulated_one() -> None:
    # the same facts judged as a driver that owns its clock: late stop accepted, not at decision + L,
    # the move not right after the settle
    failed = failing(real_time(), gating=False)
    assert failed == [
        "commands queue, end with one terminal status and its observation",
        "late requests are refused, never applied late",
        f"stops land at decision + L (L = {L})",
    ]


@pytest.mark.parametrize(
    ("change", "clause"),
    [
        ({"late_stop": Reply(False, "late: would apply at step 25")}, "stops are accepted at any time, never refused as late"),
        ({"stop": Reply(False, "busy")}, "stops are accepted at any time, never refused as late"),
        ({"stopped": Status("DONE", 300, 780, "", 3, 9, True)}, "a stop cuts the running command; decision to rest measured"),
        (
            {"stopped": Status("CANCELLED", 300, 461, "protective stop", 3, 9, True, -1.0)},
            "a stop cuts the running command; decision to rest measured",
        ),
        (
            {"stopped": Status("CANCELLED", 300, 461, "protective stop", 3, 9, True, 0.0)},
            "a stop cuts the running command; decision to rest measured",
        ),
        ({"move_while_other_holds": Reply(True, command_id=8)}, "a stop refuses motion until released"),
        (
            {"gripped": Status("CANCELLED", 295, 1500, "no result from the robot", 3, 9, True)},
            "commands queue, end with one terminal status and its observation",
        ),
        (
            {"moved": Status("CANCELLED", 124, 124, "the controller rejected the goal", 3, 9, True)},
            "commands queue, end with one terminal status and its observation",
        ),
        ({"moved": Status("DONE", SETTLE - 5, SETTLE + 95, "", 3, 9, True)}, "commands queue, end with one terminal status and its observation"),
    ],
)  # fmt: skip
def test_each_real_time_breach_fails_the_clause_that_names_it(change, clause) -> None:
    facts = dataclasses.replace(real_time(), **change)
    assert [c.name for c in judge(facts, L, BUDGET, SETTLE, False, real_time=True) if c.ok is False] == [clause]


def test_a_real_time_driver_that_answers_nothing_fails_but_says_so() -> None:
    rows = judge(DriverFacts(), L, BUDGET, SETTLE, gating=False, real_time=True)
    assert [r.ok for r in rows].count(None) == 1 and all(r.ok is False for r in rows if r.ok is not None)
