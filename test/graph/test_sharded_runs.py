"""A run in shares: ``run --shard K/N`` + ``merge`` (an Indexed Job's way), and ``run --ray`` (shards as
Ray tasks on a two-node Ray cluster on this machine); both give the records of one machine."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from test_suites_confidence_alerts import ALERTS

from alpha_matrix.core.records import RunStore, seeded_view
from conftest import next_domain_id, run_cli, wait_until

ray_cluster_utils = pytest.importorskip("ray.cluster_utils")

ARGS = ["run", "--arms", "oracle,oracle-text", "--episodes", "10", "--fault", "F1+F2", "--intensity", "0.5"]


def records(cwd: Path) -> dict[str, str]:
    (run_dir,) = (cwd / "runs").iterdir()
    lines = (run_dir / "episodes.jsonl").read_text().splitlines()
    recs = RunStore.read_only(run_dir)
    assert len(lines) == len(recs)  # no episode twice
    return {rid: json.dumps(seeded_view(rec), sort_keys=True) for rid, rec in recs.items()}


def shard_processes(index: int) -> list[psutil.Process]:
    """The command line processes of shard ``index`` of 2 (their --shard names it)."""
    out = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if "alpha_matrix.cli" in cmd and f"{index}/2" in cmd and "--shard" in cmd:
            out.append(p)
    return out


def recorded_by(proc: psutil.Process) -> int:
    """Records the shard's graph has written so far (its temporary run directory)."""
    try:
        cmd = proc.cmdline()
    except psutil.Error:
        return 0
    if "--runs-dir" not in cmd:  # gone meanwhile (a zombie's is empty), or a child between fork and exec
        return 0
    runs = Path(cmd[cmd.index("--runs-dir") + 1])
    return sum(len(p.read_text().splitlines()) for p in runs.glob("*/episodes.jsonl"))


@pytest.fixture(scope="module")
def ray_cluster():
    """Two Ray nodes of one CPU each in this process tree, shut down after the test."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    cluster = ray_cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        yield cluster
    finally:
        cluster.shutdown()


@pytest.mark.long
def test_ray_shards_equal_one_worker_and_a_killed_task_is_retried(tmp_path, ray_cluster):
    one = tmp_path / "one"
    one.mkdir()
    r = run_cli(ARGS, one, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    expected = records(one)
    assert len(expected) == 20

    cwd = tmp_path / "ray"
    cwd.mkdir()
    log = tmp_path / "ray.log"
    from alpha_matrix.launcher import graph_env

    with open(log, "wb") as out:
        driver = subprocess.Popen(
            [sys.executable, "-m", "alpha_matrix.cli", *ARGS, "--workers", "2", "--ray", ray_cluster.address],
            env=graph_env(next_domain_id()),
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # Kill shard 0's Ray worker once its graph has recorded an episode: Ray retries the task.
        def shard0_recorded() -> bool:
            assert driver.poll() is None, log.read_text()[-4000:]
            return any(recorded_by(p) >= 1 for p in shard_processes(0))

        wait_until(shard0_recorded, 300, "shard 0 recording")
        (victim,) = shard_processes(0)
        killed_tree = [victim, *victim.children(recursive=True)]
        worker = victim.parent()
        assert worker is not None and "ray" in " ".join(worker.cmdline()).lower()
        os.kill(worker.pid, signal.SIGKILL)
        # Nothing of the killed attempt outlives it: its command line and every node of its graph.
        wait_until(
            lambda: not any(p.is_running() and p.status() != "zombie" for p in killed_tree), 60, "killed shard gone"
        )
        assert driver.wait(timeout=600) == 0, log.read_text()[-4000:]
    finally:
        if driver.poll() is None:
            driver.kill()
    text = log.read_text()
    assert "2 shard(s)" in text and "shard 0:" in text and "shard 1:" in text
    assert records(cwd) == expected  # nothing lost, nothing doubled, bit-identical outcomes
    (bag_dir,) = (cwd / "bags").iterdir()
    audit = run_cli(["audit", str(bag_dir)], cwd, timeout=300)
    assert audit.returncode == 0 and "20/20 episodes match" in audit.stdout, audit.stdout[-3000:] + audit.stderr


@pytest.mark.long
def test_shares_run_apart_merge_into_the_run_of_one_machine(tmp_path):
    args = ["run", "--arms", "oracle", "--episodes", "4", "--fault", "F1", "--intensity", "0.5"]
    one = tmp_path / "one"
    one.mkdir()
    assert run_cli(args, one, timeout=600).returncode == 0
    shares = []
    for k in range(2):
        cwd = tmp_path / f"share{k}"
        cwd.mkdir()
        r = run_cli([*args, "--shard", f"{k}/2"], cwd, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr
        assert len(records(cwd)) == 2
        shares.append(str(cwd))
    merged = tmp_path / "merged"
    r = run_cli(["merge", *shares, "--into", str(merged)], tmp_path)
    assert r.returncode == 0 and "report: " in r.stdout, r.stdout + r.stderr
    assert records(merged) == records(one)
    again = run_cli(["merge", *shares, "--into", str(merged)], tmp_path)  # repeated: nothing doubled
    assert again.returncode == 0 and records(merged) == records(one) and "0 new record(s)" in again.stdout
    (bag_dir,) = (merged / "bags").iterdir()
    audit = run_cli(["audit", str(bag_dir)], merged, timeout=300)
    assert audit.returncode == 0 and "4/4 episodes match" in audit.stdout, audit.stdout[-3000:] + audit.stderr
    refused = run_cli([*args, "--shard", "2/2"], tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "K/N" in refused.stderr


@pytest.mark.long
def test_a_suite_on_ray_shards_equals_the_suite_on_one_graph(tmp_path, ray_cluster):
    from alpha_matrix.core.suites.records import SuiteStore

    def deterministic(cwd: Path) -> list[str]:
        recs = SuiteStore.read_only(cwd / "runs" / "a1")
        return sorted(json.dumps(r.model_dump(mode="json", exclude={"timing"}), sort_keys=True) for r in recs)

    results = {}
    for name, extra in (("one", []), ("ray", ["--workers", "2", "--ray", ray_cluster.address])):
        cwd = tmp_path / name
        cwd.mkdir()
        (cwd / "alerts.yaml").write_text(ALERTS)
        r = run_cli(["suite", "alerts", "--scenarios", "alerts.yaml", "--run-id", "a1", *extra], cwd, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        results[name] = deterministic(cwd)
    assert len(results["one"]) == 4 and results["ray"] == results["one"]
    audit = run_cli(["audit", str(tmp_path / "ray" / "bags" / "a1")], tmp_path / "ray", timeout=300)
    assert audit.returncode == 0 and "4/4 episodes match" in audit.stdout, audit.stdout[-3000:] + audit.stderr
