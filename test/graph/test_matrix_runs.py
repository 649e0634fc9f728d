"""The paired fault matrix through the graph: determinism across worker counts, pairing, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.matrix.fault_log import fault_order_key
from alpha_matrix.core.matrix.stats import discordant, pair_records, physical
from alpha_matrix.core.records import RunStore
from conftest import run_cli


def deterministic_records(cwd: Path) -> dict[str, str]:
    (run_dir,) = (cwd / "runs").iterdir()
    out = {}
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec.pop("timing")
        out[rec["episode_id"]] = json.dumps(rec, sort_keys=True)
    return out


def test_two_workers_give_the_records_of_one_under_concurrent_faults(tmp_path):
    """F1+F2 in every episode: the fault events of two topics, merged per record (issue 10's flake)."""
    args = ["run", "--arms", "oracle,oracle-text", "--episodes", "6", "--fault", "F1+F2", "--intensity", "0.5"]
    records = {}
    for workers in ("1", "2"):
        cwd = tmp_path / f"w{workers}"
        cwd.mkdir()
        r = run_cli([*args, "--workers", workers], cwd, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr
        records[workers] = deterministic_records(cwd)
    assert len(records["1"]) == 12 and records["2"] == records["1"]
    faults = [json.loads(rec)["faults"] for rec in records["1"].values()]
    assert all({f["fault"] for f in fs} == {"F1", "F2"} for fs in faults)


@pytest.mark.long
def test_the_matrix_on_two_workers_pairs_the_arms_and_agrees_under_physical_faults(tmp_path):
    r = run_cli(["run", "--arms", "oracle,oracle-text", "--matrix", "--workers", "2"], tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    assert "report: " in r.stdout
    (run_dir,) = (tmp_path / "runs").iterdir()
    records = list(RunStore.read_only(run_dir).values())
    assert len(records) == 150
    pairs = pair_records(records, "oracle", "oracle-text")
    assert len(pairs) == 75
    # Both arms execute the same plan unless F4 corrupts the text: no physical discordance.
    assert discordant(physical(pairs)) == []
    f4 = [r for r in records if r.cell.fault == "F4" and r.arm == "oracle-text"]
    assert all(any(f.fault == "F4" for f in r.faults) for r in f4)  # one draw per plan message
    assert all(not any(f.fault == "F4" for f in r.faults) for r in records if r.arm == "oracle")  # typed: no text
    slips = [f for r in records for f in r.faults if f.fault == "F2"]
    assert slips and all(len([f for f in r.faults if f.fault == "F2"]) == 1 for r in records if r.cell.fault == "F2")
    # Faults have a place independent of arrival order (issue 10): canonical order, seq 0..n-1,
    # and F2 at the step it acted (the end of its grip command), never a placeholder 0.
    for r in records:
        assert [f.seq for f in r.faults] == list(range(len(r.faults))), r.episode_id
        assert [fault_order_key(f) for f in r.faults] == sorted(map(fault_order_key, r.faults)), r.episode_id
    assert all(f.step > 0 for f in slips)
    report = (run_dir / "report.md").read_text()
    assert "## Paired comparison (McNemar)" in report and (run_dir / "plots" / "success_by_cell.png").exists()
    # The report is regenerable from the JSONL alone, byte for byte.
    again = run_cli(["report", str(run_dir)], tmp_path)
    assert again.returncode == 0 and (run_dir / "report.md").read_text() == report


@pytest.mark.long
def test_without_the_chaos_node_control_episodes_do_not_change(tmp_path):
    results = {}
    for name, extra in (("with", []), ("without", ["--no-faults"])):
        cwd = tmp_path / name
        cwd.mkdir()
        r = run_cli(["run", "--arms", "oracle,oracle-text", "--episodes", "3", *extra], cwd)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr
        (run_dir,) = (cwd / "runs").iterdir()
        results[name] = {
            rid: (rec.outcome, rec.final_poses, rec.plan, rec.safety.events)
            for rid, rec in RunStore.read_only(run_dir).items()
        }
    assert results["with"] == results["without"] and len(results["with"]) == 6


def test_bad_matrix_input_is_one_line(tmp_path):
    for args, needle in (
        (["run", "--arms", "oracle,gpt9"], "unknown arm"),
        (["run", "--fault", "F7"], "unknown fault 'F7'"),
        (["run", "--fault", "F2", "--intensity", "1.5"], "intensity"),
        (["run", "--matrix", "--no-faults"], "--matrix needs the chaos node"),
    ):
        r = run_cli(args, tmp_path)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("alpha-matrix: error:") and needle in lines[0], (args, lines)
    assert not (tmp_path / "runs").exists()  # nothing started, nothing written


@pytest.mark.long
def test_closed_loop_reobservation_corrects_a_nudge_unless_the_observation_lags(tmp_path):
    """Closed-loop variant: the block is nudged 6 cm at step 360; the executive re-observes before
    the grasp. Without faults it follows the block; under F1 (tau = 0.56 s) it sees the past."""
    outcomes = {}
    for fault in ("none", "F1"):
        r = run_cli(
            [
                "run",
                "--episodes",
                "2",
                "--task-variant",
                "closed_loop",
                "--fault",
                fault,
                "--intensity",
                "0.33",
                "--run-id",
                f"cl-{fault}",
            ],
            tmp_path,
        )
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr
        outcomes[fault] = list(RunStore.read_only(tmp_path / "runs" / f"cl-{fault}").values())
    assert all(rec.outcome.success for rec in outcomes["none"])
    for rec in outcomes["F1"]:
        at_grasp = [f for f in rec.faults if f.fault == "F1" and f.step == 420]
        assert at_grasp and all(abs(f.delivered["position_error"] - 0.06) < 1e-3 for f in at_grasp)
        assert not rec.outcome.success  # the grasp went where the block was 0.58 s earlier
