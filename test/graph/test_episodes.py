"""Episodes through the whole multi-process graph, run as a user runs them (the CLI)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.records import seeded_view
from conftest import CONFIG, run_cli


def records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]


def deterministic(rec: dict) -> str:
    """What the seeds and config decide: not the run's name, its wall clock or the checkout it
    started from (a commit or an edit in this tree between two runs: core/records.seeded_view)."""
    return json.dumps(seeded_view(rec), sort_keys=True)


def test_run_records_and_resumes(tmp_path):
    r = run_cli(["run", "--episodes", "2", "--runs-dir", str(tmp_path), "--run-id", "t"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "success: 2/2" in r.stdout
    recs = records(tmp_path / "t")
    assert [x["episode_id"] for x in recs] == ["oracle-0000", "oracle-0001"]
    assert all(x["outcome"]["success"] and x["actions_completed"] == 6 for x in recs)
    assert all(x["outcome"]["steps_used"] <= 1260 for x in recs)
    assert recs[0]["provenance"]["config_hash"] and recs[0]["provenance"]["packages"]["pybullet"] == "3.2.7"
    # Re-running (one more episode) skips what is recorded: no duplicate rows.
    r = run_cli(["run", "--episodes", "3", "--runs-dir", str(tmp_path), "--run-id", "t"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 already recorded, 1 to run" in r.stdout
    assert [x["episode_id"] for x in records(tmp_path / "t")] == ["oracle-0000", "oracle-0001", "oracle-0002"]
    # The same command on the finished run reports it and starts no graph.
    r = run_cli(["run", "--episodes", "3", "--runs-dir", str(tmp_path), "--run-id", "t"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "run t: all 3 episodes already recorded, nothing to start" in r.stderr
    assert "success: 3/3" in r.stdout and "[sim_bridge]" not in r.stdout + r.stderr
    assert len(records(tmp_path / "t")) == 3


def test_same_seeds_give_identical_records(tmp_path):
    """Determinism: 5 seeds, two full runs of the multi-process graph, records byte for byte."""
    for run_id in ("a", "b"):
        r = run_cli(["run", "--episodes", "5", "--runs-dir", str(tmp_path), "--run-id", run_id], tmp_path)
        assert r.returncode == 0, r.stdout + r.stderr
    a, b = records(tmp_path / "a"), records(tmp_path / "b")
    assert len(a) == len(b) == 5
    assert [deterministic(x) for x in a] == [deterministic(x) for x in b]
    assert [x["final_poses"] for x in a] == [x["final_poses"] for x in b]
    assert len({json.dumps(x["initial_positions"]) for x in a}) == 5  # seeds really differ


@pytest.mark.parametrize(
    ("decision", "run_ids"),
    [(300, ("a", "b")), (305, ("a",))],
    ids=["stop-mid-batch", "stop-after-full-batch"],
)
def test_protective_stop_lands_at_a_deterministic_step(tmp_path, decision, run_ids):
    """A gating consumer's stop decided at step 300 applies at 324 in every run. Decided at 305,
    it applies at 329, right after a full batch (313..328): the stop's step is a batch of its own,
    and episode/end names it, so the safety monitor's account ends there whichever of the two
    reaches it first (test/unit/safety/test_monitor_order.py plays both orders; one run here)."""
    applied = decision + 24
    cfg = tmp_path / "config"
    shutil.copytree(CONFIG, cfg)
    graph = yaml.safe_load((cfg / "graph.yaml").read_text())
    graph["nodes"].insert(1, {"name": "step_consumer", "executable": "step_consumer"})
    (cfg / "graph.yaml").write_text(yaml.safe_dump(graph))
    params = yaml.safe_load((cfg / "params.yaml").read_text())
    params["sim_bridge"]["ros__parameters"]["gating_consumers"] = ["step_consumer"]
    params["step_consumer"] = {"ros__parameters": {"stop_at_step": decision}}
    (cfg / "params.yaml").write_text(yaml.safe_dump(params))
    for run_id in run_ids:
        r = run_cli(
            ["--config", str(cfg), "run", "--episodes", "2", "--runs-dir", str(tmp_path), "--run-id", run_id], tmp_path
        )
        assert r.returncode == 0, r.stdout + r.stderr
    runs = [records(tmp_path / run_id) for run_id in run_ids]
    for rec in runs[0]:
        assert rec["abort_kind"] == "cancelled"
        assert (
            f"cancelled at step {applied}: protective stop at step {applied} (step_consumer: scheduled test stop)"
            in (rec["abort_reason"])
        )
        assert not rec["outcome"]["success"]
        assert rec["outcome"]["steps_used"] == applied  # the world ran the stop's step
        safety = rec["safety"]
        assert (safety["first_step"], safety["last_step"], safety["steps_checked"]) == (1, applied, applied)
    assert all([deterministic(x) for x in run] == [deterministic(x) for x in runs[0]] for run in runs)


def test_screening_for_the_monitor_changes_no_record(tmp_path):
    """The bridge screening steps for the safety monitor (the default) and waiting for the monitor's
    ack of every batch give the same records: without F1 in the run (batches of 192 while the
    screen flags nothing; F3 at 0.5 drives a finger into a block in episode 5: a protective stop),
    whose bag audits clean, and with F1 (batches of 16: the chaos node's delay line).

    The F3 runs are episodes 5 and 6 alone (``--first 4``): a fault's draws are seeded by the
    episode's index (core/matrix/faults.py), so they are those episodes of a run of six."""
    unscreened = ["--set", "sim_bridge.screened_consumers=[]"]
    cases = {"f3": (["--first", "4", "--episodes", "2"], "F3", "0.5"), "f1": (["--episodes", "3"], "F1", "1")}
    runs: dict[str, list[dict]] = {}
    for case, (episodes, fault, intensity) in cases.items():
        for name, sets in (("screened", []), ("unscreened", unscreened)):
            run_id = f"{case}-{name}"
            args = ["run", *episodes, "--fault", fault, "--intensity", intensity]
            r = run_cli([*sets, *args, "--runs-dir", str(tmp_path), "--run-id", run_id], tmp_path)
            assert r.returncode == 0, r.stdout + r.stderr
            runs[run_id] = [
                {k: v for k, v in x.items() if k not in ("timing", "run_id", "provenance")}
                for x in records(tmp_path / run_id)
            ]
        assert runs[f"{case}-screened"] == runs[f"{case}-unscreened"]
    assert [x["episode_id"] for x in runs["f3-screened"]] == ["oracle-0004", "oracle-0005"]
    assert len(runs["f1-screened"]) == 3
    stops = [x["abort_reason"] for x in runs["f3-screened"] if "protective stop" in x["abort_reason"]]
    assert stops and "(safety_monitor: violent_contact" in stops[0]
    assert any(f["fault"] == "F1" for x in runs["f1-screened"] for f in x["faults"])
    sizes = {run_id: {m.num_steps for t, _, m in read_bag(tmp_path / "bags" / run_id) if t == "/robot/step_batch"}
             for run_id in ("f3-screened", "f1-screened")}  # fmt: skip
    assert max(sizes["f3-screened"]) == 192 and max(sizes["f1-screened"]) == 16
    r = run_cli(["audit", str(tmp_path / "bags" / "f3-screened"), "--run-dir", str(tmp_path / "f3-screened")], tmp_path)
    assert r.returncode == 0 and "2/2 episodes match" in r.stdout, r.stdout + r.stderr


@pytest.mark.long
def test_nominal_oracle_success_over_40_seeded_episodes(tmp_path):
    r = run_cli(["run", "--episodes", "40", "--runs-dir", str(tmp_path), "--run-id", "n40"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    recs = records(tmp_path / "n40")
    assert len(recs) == 40
    assert sum(x["outcome"]["success"] for x in recs) >= 38  # >= 95 %
    # The monitor checked every step of every episode and raised nothing: no false positives.
    for x in recs:
        assert x["safety"]["steps_checked"] == x["outcome"]["steps_used"]
        assert x["safety"]["events"] == [], x["episode_id"]
    audit = run_cli(["audit", "bags/n40", "--runs-dir", str(tmp_path)], tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "40/40 episodes match" in audit.stdout
