"""The Kubernetes manifests in deploy/, checked statically: they parse, use the image the
Dockerfile builds, and every alpha-matrix command in them is one the command line accepts (the
run commands resolve their graph, as `alpha-matrix graph` would, without starting anything)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from alpha_matrix.cli import build_parser
from alpha_matrix.cli.run import planned_graphs

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
IMAGE = "alpha_matrix:latest"


def pins(text: str) -> dict[str, str]:
    return {m[0].lower(): m[1] for m in re.findall(r"([A-Za-z0-9_.-]+)==([0-9][^\s\\\\]*)", text)}


def docs() -> list[tuple[str, dict]]:
    out = [(p.name, d) for p in sorted(DEPLOY.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]
    assert {name for name, _ in out} == {"pvc.yaml", "rayjob.yaml", "indexed-job.yaml", "merge-job.yaml"}
    return out


def containers(doc: dict) -> list[dict]:
    spec = doc["spec"]
    if doc["kind"] == "RayJob":
        cluster = spec["rayClusterSpec"]
        groups = [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]
        return [c for g in groups for c in g["template"]["spec"]["containers"]]
    return list(spec["template"]["spec"]["containers"]) if "template" in spec else []


def commands(doc: dict) -> list[list[str]]:
    """Every alpha-matrix command line in a manifest, as argv after ``-m alpha_matrix.cli``."""
    lines = [shlex.split(doc["spec"]["entrypoint"])] if doc["kind"] == "RayJob" else []
    lines += [c["args"] for c in containers(doc) if "args" in c]
    out = []
    for argv in lines:
        if argv[:2] == ["bash", "-lc"]:
            argv = shlex.split(argv[2])
        assert argv[:3] == ["python3", "-m", "alpha_matrix.cli"], argv
        out.append(argv[3:])
    return out


def test_every_manifest_uses_the_image_the_dockerfile_builds():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert f"-t {IMAGE.split(':')[0]} " in dockerfile
    images = {c["image"] for _, d in docs() for c in containers(d)}
    assert images == {IMAGE}
    # The image installs what requirements.txt pins, at the same versions (ray for --ray among them).
    required, installed = pins((ROOT / "requirements.txt").read_text()), pins(dockerfile)
    assert "ray" in installed and all(required.get(name) == v for name, v in installed.items()), installed


def test_the_rayjob_runs_on_the_pinned_ray_and_its_command_is_a_ray_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (job,) = [d for _, d in docs() if d["kind"] == "RayJob"]
    assert job["apiVersion"] == "ray.io/v1"
    assert job["spec"]["rayClusterSpec"]["rayVersion"] == pins((ROOT / "requirements.txt").read_text())["ray"]
    (argv,) = commands(job)
    args = build_parser().parse_args(argv)
    assert args.command == "run" and args.ray == "auto" and args.workers > 1
    args.set = args.set + args.set_after
    graph, graphs = planned_graphs(args)
    assert len(graphs) == args.workers and graph.run_id


def test_the_indexed_job_shards_cover_the_run_and_the_merge_joins_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    by_name = {d["metadata"]["name"]: d for _, d in docs() if d["kind"] == "Job"}
    shards, merge = by_name["alpha-matrix-shards"], by_name["alpha-matrix-merge"]
    n = shards["spec"]["completions"]
    assert shards["spec"]["completionMode"] == "Indexed" and shards["spec"]["parallelism"] <= n
    (argv,) = commands(shards)
    run_ids = set()
    for k in range(n):  # what each index runs, as Kubernetes expands $(JOB_COMPLETION_INDEX)
        args = build_parser().parse_args([a.replace("$(JOB_COMPLETION_INDEX)", str(k)) for a in argv])
        assert args.command == "run" and args.shard == f"{k}/{n}"
        args.set = args.set + args.set_after
        graph, _ = planned_graphs(args)
        run_ids.add(graph.run_id)
        runner = graph.node("episode_runner").parameters
        assert (runner["shard_index"], runner["shard_count"]) == (k, n)
        assert runner["runs_dir"] == f"/data/shards/{k}/runs"
        assert graph.node("recorder").parameters["bags_dir"] == f"/data/shards/{k}/bags"
    assert len(run_ids) == 1  # every share names the same run
    (margv,) = commands(merge)
    margs = build_parser().parse_args(margv)
    assert margs.command == "merge" and margs.shard_dirs == [f"/data/shards/{k}" for k in range(n)]


@pytest.mark.parametrize("name", ["rayjob.yaml", "indexed-job.yaml", "merge-job.yaml"])
def test_every_pod_mounts_the_claim_the_pvc_manifest_makes(name):
    (claim,) = [d["metadata"]["name"] for n, d in docs() if d["kind"] == "PersistentVolumeClaim"]
    text = (DEPLOY / name).read_text()
    assert f"claimName: {claim}" in text
