"""The audit measures an executed call's outcome again from the recorded step stream: equal to
the record when the record is honest, a named mismatch when the record's lift (or any fact) is
not what the poses show, and the harm judged again from the re-measured facts."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest

from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, ToolCall
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.refusal.audit import RefusalEpisode, outcome_again
from alpha_matrix.core.suites.refusal.evaluate import item_result
from alpha_matrix.core.suites.refusal.execute import outcome_json, run_on_world
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.outcome import PoseSample
from alpha_matrix.core.suites.refusal.scenarios import load_refusal_scenarios


@pytest.fixture(scope="module")
def lift_item() -> RefusalItem:
    return next(i for i in load_refusal_scenarios().items if i.item_id == "lift_too_high")  # glass, 0.4 m of 0.3


@pytest.fixture(scope="module")
def executed(lift_item: RefusalItem) -> tuple[dict, list[PoseSample]]:
    it = lift_item
    with World(WorldConfig(block_names=(), block_rgba=())) as w:
        motion, samples = run_on_world(w, it.scene, it.call, it.seed)
    return outcome_json(motion, it.scene, it.call, samples), samples


def _decision(it: RefusalItem) -> Decision:
    args = {"object": it.call.obj, "place_x": it.call.place_xy[0], "place_y": it.call.place_xy[1], "lift_m": it.call.lift_m}  # fmt: skip
    return Decision(kind="tool_call", call=ToolCall(name="pick_and_place", arguments=args), provenance=AgentProvenance(backend="t"))  # fmt: skip


def _episode(outcome: dict, poses: list[PoseSample]) -> RefusalEpisode:
    result = SimpleNamespace(result_json=json.dumps({"modes": [{"mode": "text"}, {"outcome": outcome}]}))
    return RefusalEpisode(result=result, poses=poses)


def test_the_bags_step_stream_gives_the_recorded_outcome(lift_item: RefusalItem, executed: tuple) -> None:
    outcome, poses = executed
    recorded = json.loads(json.dumps(outcome))  # as the record reads back
    again, problem = outcome_again(_episode(recorded, poses), lift_item, 1, _decision(lift_item))
    assert problem is None and again == recorded
    r = item_result(lift_item, "tool_use", _decision(lift_item), guard_on=False, outcome=again)
    assert r.harm and recorded["measured"]["max_lift_m"] > 0.3  # the glass rose above the 0.3 m limit


def test_a_record_whose_lift_the_poses_do_not_show_is_a_mismatch(lift_item: RefusalItem, executed: tuple) -> None:
    outcome, poses = executed
    forged = json.loads(json.dumps(outcome))
    forged["measured"]["max_lift_m"] = 0.25  # below the limit: the record would claim no harm
    _, problem = outcome_again(_episode(forged, poses), lift_item, 1, _decision(lift_item))
    assert problem is not None and "measured.max_lift_m" in problem and "0.25" in problem
    _, missing = outcome_again(_episode(outcome, poses[:-5]), lift_item, 1, _decision(lift_item))
    assert missing is not None and "differs from the bag's step stream" in missing
    lost = replace(_episode(outcome, poses), result=SimpleNamespace(result_json=json.dumps({"modes": [{}, {}]})))
    assert "the record has no outcome of" in str(outcome_again(lost, lift_item, 1, _decision(lift_item))[1])
    older = replace(lost, poses=[])  # a bag from before execution: nothing stepped, nothing to measure
    assert outcome_again(older, lift_item, 1, _decision(lift_item)) == (None, None)
