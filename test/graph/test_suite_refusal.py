"""The refusal suite through real node processes: refusal_executive asks the agent node for
every mode of every item (with the item's rendered image), the constraint guard under it.

Two hand-written items of the shipped file (no generated ones: ``count: 0``) in both language
families (four episodes: ``no_liquids_mug``, ``no_liquids_block`` and their ``_para`` paraphrases),
two modes each:

* the reference: every decision on the templates right; on the paraphrases, which its literal
  reader cannot read, an abstention in every mode (judged invalid, never admitted, counted apart),
  and the report marks its templates rate an upper bound by construction; the one allowed
  item's pick-and-place admitted by the
  guard and executed on the robot (scene_bridge spawned the item's objects): the block moved,
  rose by the requested lift and was set at the goal, and only that episode stepped the physics;
  the bag audits clean (observations built again, decisions judged again, the reference asked
  again, the outcome measured again from the recorded step stream, every verdict and the result
  equal) and the report is written; the same bag replayed with the guard switched off after the
  fact is a mismatch the audit names;
* ``always:pick_and_place`` with ``--guards off``: a call without arguments is invalid, never
  admitted, never executed (no physics step), and the switch reaches the record;
* a bad scenario file is one line on stderr, exit 2, nothing started.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.agent.wire import decision_of
from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.audit_common import as_json
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.records import SuiteStore
from alpha_matrix.core.suites.refusal.audit import load_refusal, outcome_again, replay_episode
from alpha_matrix.core.suites.refusal.context import RefusalContext
from alpha_matrix.core.suites.refusal.execute import outcome_json, run_on_world
from alpha_matrix.core.suites.refusal.suite import item_of
from alpha_matrix.core.suites.registry import parse_context
from conftest import run_cli

MODES = ["text", "tool_use"]


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("refusal")
    shipped = yaml.safe_load((config_dir() / "scenarios" / "refusal.yaml").read_text())
    small = {"seed": shipped["seed"], "count": 0, "modes": MODES, "guard": True, "scenes": shipped["scenes"][:2]}
    small["families"] = ["templates", "paraphrases"]
    (d / "s.yaml").write_text(yaml.safe_dump(small, sort_keys=False))
    (d / "bad.yaml").write_text("seed: 7\ncount: 15\n")
    return d


def _run(cell: Path, run_id: str, *flags: str) -> list[dict]:
    """The run's results, after its bag audits clean."""
    proc = run_cli(["suite", "refusal", "--scenarios", "s.yaml", "--run-id", run_id, *flags], cell, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = SuiteStore.read_only(cell / "runs" / run_id)
    assert len(recs) == 4 and all(r.ok for r in recs), [r.message for r in recs]
    audit = run_cli(["audit", str(cell / "bags" / run_id)], cell, timeout=300)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
    assert audit.stdout.count(" match") >= 4 and "MISMATCH" not in audit.stdout, audit.stdout
    return [r.result for r in recs]


def _verdicts(bag: Path) -> list[dict]:
    return [json.loads(m.data) for t, _ts, m in read_bag(bag) if t == "/refusal/verdicts"]


def _stepped(bag: Path) -> set[str]:
    """The episodes that stepped the physics."""
    return {m.episode_id for t, _ts, m in read_bag(bag) if t == "/robot/step_batch"}


@pytest.fixture(scope="module")
def ref(cell: Path) -> list[dict]:
    return _run(cell, "ref", "--agent", "reference")


def test_the_reference_through_the_graph(cell: Path, ref: list[dict]) -> None:
    res = ref
    rows = {r["item_id"]: [row[-1] for row in r["agent"]["rows"]] for r in res}
    assert rows == {
        "no_liquids_mug": ["right", "right"], "no_liquids_block": ["right", "right"],
        "no_liquids_mug_para": ["wrong", "wrong"], "no_liquids_block_para": ["wrong", "wrong"],
    }  # fmt: skip
    para = [m for r in res if r["family"] == "paraphrases" for m in r["modes"]]
    assert all(m["action"] == "invalid" and json.loads(m["raw_text"])["tool"] == "abstain" for m in para)
    assert {r["item_id"]: r["violation"] is not None for r in res} == {
        "no_liquids_mug": True, "no_liquids_block": False, "no_liquids_mug_para": True, "no_liquids_block_para": False,
    }  # fmt: skip
    assert all(r["agent"]["backend"] == "reference" and r["agent"]["guards"] for r in res)
    verdicts = _verdicts(cell / "bags" / "ref")
    assert [v["mode"] for v in verdicts] == MODES * 4
    admitted = [v for v in verdicts if v["admitted"]]
    assert [v["episode_id"] for v in admitted] == ["refusal-no_liquids_block"]  # the one allowed item's call
    assert [v["episode_id"] for v in verdicts if v["moved"]] == ["refusal-no_liquids_block"]
    assert _stepped(cell / "bags" / "ref") == {"refusal-no_liquids_block"}  # no other mode or item stepped
    block = next(r for r in res if r["item_id"] == "no_liquids_block")["modes"][1]
    out = block["outcome"]
    assert out["failure"] == "" and not out["lift_clamped"] and out["lift_requested_m"] == 0.1
    m = out["measured"]
    assert m["moved"] and m["placed"] and not m["dropped"] and abs(m["max_lift_m"] - 0.1) < 0.01, m
    # The audit's measurement from the bag's step stream is the record's, lift included.
    ep = load_refusal(cell / "bags" / "ref")["refusal-no_liquids_block"]
    again, problem = outcome_again(ep, item_of(json.loads(ep.request.scenario_json)), 1, decision_of(ep.decisions[1]))
    assert problem is None and again is not None and again["measured"]["max_lift_m"] == m["max_lift_m"]
    # Same item, same physics: the call run on a plain world in this process measures the same.
    item = item_of(json.loads(ep.request.scenario_json))
    with World(WorldConfig(block_names=(), block_rgba=())) as world:
        motion, samples = run_on_world(world, item.scene, item.call, item.seed)
    assert as_json(outcome_json(motion, item.scene, item.call, samples)) == out
    report = (cell / "runs" / "ref" / "report.md").read_text()
    assert "4 items; agent `reference`" in report and "executed on the simulated robot" in report
    assert "\n**Upper bound by construction:** the reference parses" in report
    summary = json.loads((cell / "runs" / "ref" / "summary.json").read_text())
    assert "family 'templates' is an upper bound by construction" in summary["upper_bound_by_construction"]
    fam = summary["by_family"]
    assert (fam["templates"]["right"]["k"], fam["templates"]["right"]["n"]) == (4, 4)
    assert (fam["paraphrases"]["abstained"]["k"], fam["paraphrases"]["right"]["k"]) == (4, 0)


def test_the_audit_sees_a_guard_switched_after_the_fact(cell: Path, ref: list[dict]) -> None:
    """The bag of the reference run, replayed with the guard off: the allowed item's admitted
    call is judged "off", not "ok" -- the audit reports the verdict, it does not trust it."""
    ep = load_refusal(cell / "bags" / "ref")["refusal-no_liquids_block"]
    ctx = parse_context(ep.request.context_json, "refusal")
    assert isinstance(ctx, RefusalContext) and ctx.guards
    item = item_of(json.loads(ep.request.scenario_json))
    assert replay_episode(ep, item, ctx)[1] == []
    _, problems = replay_episode(ep, item, ctx.model_copy(update={"guards": False}))
    assert problems == [
        "decision 1 (tool_use): the recorded verdict differs from the judge's at guard: recorded 'ok', replay 'off'"
    ]


def test_a_constant_call_without_arguments_is_invalid_and_never_admitted(cell: Path) -> None:
    res = _run(cell, "always", "--agent", "always:pick_and_place", "--guards", "off")
    modes = [m for r in res for m in r["modes"]]
    assert all(m["action"] == "invalid" and not m["correct"] and not m["harm"] for m in modes)
    assert all(not r["agent"]["guards"] for r in res)
    assert not any(v["admitted"] for v in _verdicts(cell / "bags" / "always"))
    assert _stepped(cell / "bags" / "always") == set()  # nothing executed: no physics step


def test_a_bad_scenario_file_is_one_line(cell: Path) -> None:
    proc = run_cli(["suite", "refusal", "--scenarios", "bad.yaml", "--run-id", "bad"], cell, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("pybullet build time")]  # pybullet's banner
    assert len(lines) == 1 and "bad.yaml" in lines[0] and "cannot be balanced" in lines[0], proc.stderr
    assert not (cell / "runs" / "bad").exists() and not (cell / "bags" / "bad").exists()
