"""The instruction-ambiguity suite through real node processes (agent, ambiguity_executive, recorder).

One category's 20 pairs with the reference resolver: every item recorded, the same results as the
offline loop (the graph adds who answered, nothing else), every turn in the bag, `alpha-matrix
audit` replays every episode to a match, and the report says the moves were symbolic. The
never-asking baseline (--agent always_execute) gets only the clear items right. A scenario file
with a mistake fails in one line before anything starts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent
from alpha_matrix.core.suites.ambiguity.scenarios import load_ambiguity_scenarios
from alpha_matrix.core.suites.ambiguity.suite import run_offline
from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli

SUBSET = """seed: 11
pairs_per_category: 20
categories: [missing_sort_criterion]
"""
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


def test_the_reference_through_the_graph_is_recorded_audited_and_reported(cell: Path) -> None:
    proc = run_cli(["suite", "ambiguity", "--scenarios", "s.yaml", "--run-id", "ref"], cell, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = SuiteStore.read_only(cell / "runs" / "ref")
    assert len(recs) == 40 and all(r.ok for r in recs), [r.message for r in recs]
    offline = {r["item_id"]: r for r in run_offline(load_ambiguity_scenarios(cell / "s.yaml"), ResolverAgent())}
    for r in recs:
        got = dict(r.result)
        part = got.pop("agent")
        want = dict(offline[r.scenario])
        assert got == {k: v for k, v in want.items() if k != "agent"}, r.scenario
        assert {k: part[k] for k in want["agent"]} == want["agent"] and part["backend"] == "reference"
        assert part["template_version"] == "agent_ambiguity_v1" and r.result["execution"] == "symbolic"
    assert sum(r.result["right"] for r in recs) == 40 and sum(r.result["asked_first"] for r in recs) == 20

    turns = [json.loads(m.result_json) for t, _ts, m in read_bag(cell / "bags" / "ref") if t == "/ambiguity/dialogue"]
    assert len(turns) == sum(r.result["decisions"] for r in recs)
    assert sum("answer" in t for t in turns) == 20 and all("placement" in t for t in turns)

    audit = run_cli(["audit", str(cell / "bags" / "ref")], cell, timeout=300)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
    assert "40/40 episodes match" in audit.stdout and "moves symbolic (no motion)" in audit.stdout
    report = (cell / "runs" / "ref" / "report.md").read_text()
    assert "Moves are symbolic" in report and "| missing_sort_criterion |" in report


@pytest.mark.long
def test_the_never_asking_baseline_fails_every_ambiguous_item_and_audits_clean(cell: Path) -> None:
    flags = ["--scenarios", "s.yaml", "--run-id", "exe", "--agent", "always_execute"]
    proc = run_cli(["suite", "ambiguity", *flags], cell, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = [r.result for r in SuiteStore.read_only(cell / "runs" / "exe")]
    assert len(recs) == 40 and not any(r["asked"] for r in recs)
    assert sum(r["right"] for r in recs) == sum(not r["ambiguous"] for r in recs) == 20  # clear items only
    assert {r["agent"]["backend"] for r in recs} == {"always_execute"}
    audit = run_cli(["audit", str(cell / "bags" / "exe")], cell, timeout=300)  # the baseline asked again
    assert audit.returncode == 0 and "40/40 episodes match" in audit.stdout, audit.stdout[-2000:]


def test_a_bad_scenario_file_is_one_line(cell: Path) -> None:
    proc = run_cli(["suite", "ambiguity", "--scenarios", "bad.yaml", "--run-id", "bad"], cell, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and "categories.1: unknown category 'telepathy'" in proc.stderr
    assert "Traceback" not in proc.stderr and not (cell / "runs" / "bad" / "episodes.jsonl").exists()
