"""The instruction-ambiguity suite through real node processes (scene_bridge, agent,
ambiguity_executive, recorder).

A share of one category's pairs in both language families (--shard: a clear and an ambiguous
item of each) with the reference resolver: every item recorded, every accepted pick_and_place
executed on the robot (the bridge spawned the item's blocks; the bag holds the step stream), the
task judged on the measured placement; on the second family's words it abstains (asks that it did
not understand, moves nothing) and the report says its first-family rate is an upper bound by
construction; the same results as the offline loop on a plain World (the graph adds who answered,
nothing else); `alpha-matrix audit` measures every move again from the bag to a match, and the
measured placement the audit replays equals the record's. The never-asking baseline gets only
the first family's clear item right. A scenario file with a mistake fails in one line before anything starts.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.suites.ambiguity.audit import load_ambiguity, replay_episode
from alpha_matrix.core.suites.ambiguity.items import item_of
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent
from alpha_matrix.core.suites.ambiguity.scenarios import load_ambiguity_scenarios
from alpha_matrix.core.suites.ambiguity.suite import run_offline
from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli

SUBSET = """seed: 11
pairs_per_category: 20
categories: [pronoun_without_referent]
"""
# 80 items (20 pairs in family templates, then the same 20 in family paraphrase; clear, ambiguous):
# items 0, 21, 42, 63 are templates clear, templates ambiguous, paraphrase clear, paraphrase ambiguous
SHARD = "0/21"
BAD = """seed: 11
pairs_per_category: 20
categories: [missing_sort_criterion, telepathy]
"""


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ambiguity")
    (d / "s.yaml").write_text(SUBSET)
    (d / "bad.yaml").write_text(BAD)
    return d


def _run(cell: Path, run_id: str, *flags: str) -> list:
    argv = ["suite", "ambiguity", "--scenarios", "s.yaml", "--shard", SHARD, "--run-id", run_id, *flags]
    proc = run_cli(argv, cell, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = SuiteStore.read_only(cell / "runs" / run_id)
    assert len(recs) == 4 and all(r.ok for r in recs), [r.message for r in recs]
    audit = run_cli(["audit", str(cell / "bags" / run_id)], cell, timeout=300)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
    assert "4/4 episodes match" in audit.stdout and "moves physical" in audit.stdout, audit.stdout[-2000:]
    return recs


def test_the_reference_s_moves_run_on_the_robot_and_audit_to_the_measured_placement(cell: Path) -> None:
    recs = _run(cell, "ref")
    suite = load_ambiguity_scenarios(cell / "s.yaml")
    mine = {r.scenario for r in recs}
    subset = dataclasses.replace(suite, items=tuple(it for it in suite.items if it.item_id in mine))
    offline = {r["item_id"]: r for r in run_offline(subset, ResolverAgent())}
    for r in recs:
        got = dict(r.result)
        part = got.pop("agent")
        want = dict(offline[r.scenario])
        assert got == {k: v for k, v in want.items() if k != "agent"}, r.scenario
        assert {k: part[k] for k in want["agent"]} == want["agent"] and part["backend"] == "reference"
        assert got["execution"] == "physical", got
        if got["family"] == "templates":  # the words it reads: one move each, measured in its goal
            assert got["moves_executed"] == got["moves_placed"] == 1 and got["right"] and not got["abstained"], got
        else:  # the words it cannot read: it says so and moves nothing
            assert got["moves_executed"] == 0 and got["abstained"] and not got["right"], got
    assert sorted((r.result["family"], r.result["ambiguous"]) for r in recs) == [
        ("paraphrase", False), ("paraphrase", True), ("templates", False), ("templates", True)
    ]  # fmt: skip

    bag = cell / "bags" / "ref"
    msgs = list(read_bag(bag))
    stepped = {m.episode_id for t, _ts, m in msgs if t == "/robot/step_batch"}
    # every item's episode that moved stepped the physics (an abstention moves nothing)
    assert stepped == {r.episode_id for r in recs if r.result["family"] == "templates"}
    turns = [json.loads(m.result_json) for t, _ts, m in msgs if t == "/ambiguity/dialogue"]
    moved = [t for t in turns if "motion" in t]
    assert len(moved) == 2 and all(t["motion"]["facts"]["placed"] for t in moved)
    for ep_id, ep in load_ambiguity(bag).items():  # the audit's measured placement is the record's
        rec = next(r.result for r in recs if r.episode_id == ep_id)
        replay, _turns, problems = replay_episode(item_of(json.loads(ep.request.scenario_json)), ep, "reference")
        assert problems == [] and replay is not None and replay["placement"] == rec["placement"], ep_id
        assert any(v is not None for v in rec["placement"].values()) == (rec["family"] == "templates")
    report = (cell / "runs" / "ref" / "report.md").read_text()
    assert "Moves are physical" in report and "2 ran, 2 left their block measured in its goal" in report
    assert "\n**Upper bound by construction:** The reference reads the generator's own sentences" in report
    assert "| templates | 2/2 = 100.0 %" in report and "| paraphrase | 0/2 = 0.0 %" in report
    summary = json.loads((cell / "runs" / "ref" / "summary.json").read_text())
    assert "upper bound by construction" in json.dumps(summary)


@pytest.mark.long
def test_the_never_asking_baseline_fails_every_ambiguous_item_and_audits_clean(cell: Path) -> None:
    recs = [r.result for r in _run(cell, "exe", "--agent", "always_execute")]
    assert not any(r["asked"] for r in recs)
    assert [r["item_id"] for r in recs if r["right"]] == ["pronoun_without_referent_00_clear"]  # templates, clear
    assert {r["agent"]["backend"] for r in recs} == {"always_execute"}


def test_a_bad_scenario_file_is_one_line(cell: Path) -> None:
    proc = run_cli(["suite", "ambiguity", "--scenarios", "bad.yaml", "--run-id", "bad"], cell, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and "categories.1: unknown category 'telepathy'" in proc.stderr
    assert "Traceback" not in proc.stderr and not (cell / "runs" / "bad" / "episodes.jsonl").exists()
