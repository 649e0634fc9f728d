"""A run against a driver brought up on its own (`--external sim_bridge`): refused in one line
while the driver is not up; once it is, the records equal those of the run that starts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.launcher import Launcher, graph_env
from conftest import CONFIG, Captured, next_domain_id, run_cli, wait_until


def _records(run_dir: Path) -> dict[str, str]:
    out = {}
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        rec = json.loads(line)  # the config hash names the external driver: provenance differs
        out[rec["episode_id"]] = json.dumps(
            {k: v for k, v in rec.items() if k not in ("timing", "run_id", "provenance")}
        )
    return out


@pytest.mark.long
def test_a_run_against_an_external_driver(tmp_path: Path) -> None:
    domain = next_domain_id()
    args = ["run", "--episodes", "2", "--external", "sim_bridge", "--domain-id", str(domain), "--run-id", "ext"]
    alone = run_cli(args, tmp_path, timeout=120)
    assert alone.returncode != 0 and "external node(s) sim_bridge not visible" in alone.stderr + alone.stdout
    assert not (tmp_path / "runs" / "ext").exists()  # nothing written

    full = resolve_graph(CONFIG)
    driver = resolve_graph(CONFIG, exclude=tuple(n.name for n in full.nodes if n.name != "sim_bridge"))
    with Launcher(driver, graph_env(domain), out=(log := Captured())):
        wait_until(lambda: log.has("[sim_bridge] ready:"), 60, "the driver to be up")
        ext = run_cli(args, tmp_path, timeout=300)
    assert ext.returncode == 0 and "success: 2/2" in ext.stdout, ext.stdout[-3000:] + ext.stderr[-3000:]
    assert "[sim_bridge]" not in ext.stdout  # not started by the run

    own = run_cli(["run", "--episodes", "2", "--run-id", "own"], tmp_path, timeout=300)
    assert own.returncode == 0, own.stdout[-3000:] + own.stderr[-3000:]
    assert _records(tmp_path / "runs" / "ext") == _records(tmp_path / "runs" / "own")
