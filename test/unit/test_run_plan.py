"""A run knows its size and the config it was made with (core/run_plan.py, issue 47 findings 3, 4).

``requested.jsonl`` is appended once per start that asks for new episodes (idempotent, resumable,
a cut line ignored); ``runs`` shows ``3/30 (incomplete)`` and ``"status": "incomplete"``;
``report`` says so first; a reused run id with another config is refused before anything starts,
exit 2, naming the parameters that differ; ``merge`` joins the shares' sizes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from alpha_matrix.cli import main
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.core.run_plan import (
    REQUESTED_FILE,
    check_same_config,
    config_differences,
    config_view,
    incomplete_line,
    merge_requested,
    record_request,
    run_size,
)
from alpha_matrix.core.runs_index import format_runs, list_runs, run_row

OLD_RUNS = Path(__file__).resolve().parents[1] / "bags" / "runs"
IDS = [f"oracle-{i:04d}" for i in range(30)]


def _matrix_run(tmp_path: Path, name: str = "m1") -> Path:
    """A matrix run of 2 recorded episodes (oracle-0000, oracle-0001), copied from the old-bags runs."""
    return Path(shutil.copytree(OLD_RUNS / "matrix-pre-layout", tmp_path / "runs" / name))


def _hash(run: Path) -> str:
    return str(json.loads((run / "manifest.json").read_text())["config_hash"])


def test_the_request_is_written_once_and_grows_on_resume(tmp_path: Path) -> None:
    run = tmp_path / "r"
    record_request(run, "h1", {"n": {"parameters": {}}}, IDS[:3])
    record_request(run, "h1", {"n": {"parameters": {}}}, IDS[:3])  # the same command again: nothing added
    assert len((run / REQUESTED_FILE).read_text().splitlines()) == 1
    record_request(run, "h1", {}, IDS)  # resumed with --episodes 30: the 27 new ones
    lines = [json.loads(line) for line in (run / REQUESTED_FILE).read_text().splitlines()]
    assert [len(line["episodes"]) for line in lines] == [3, 27]
    assert json.loads((run / "config.json").read_text())["config"] == {"n": {"parameters": {}}}  # the first
    with open(run / REQUESTED_FILE, "a") as f:  # a crash mid-line: ignored, and never extended
        f.write('{"config_hash": "h1", "episodes": ["oracle-99')
    assert run_size(run) == (0, 30)
    record_request(run, "h1", {}, ["oracle-0100"])
    assert run_size(run) == (0, 31)


def test_an_interrupted_run_is_listed_incomplete_and_its_report_says_so(tmp_path: Path, capsys) -> None:
    run = _matrix_run(tmp_path)
    assert run_size(run) == (2, None) and run_row(run).status == "ok"  # a run from before: as it was
    record_request(run, _hash(run), {}, IDS)  # 30 asked for, 2 recorded (Ctrl-C at 2/30)
    row = run_row(run)
    assert (row.status, row.n, row.requested) == ("incomplete", 2, 30)
    assert "2/30 (incomplete)" in format_runs(list_runs(run.parent), run.parent)
    assert main(["runs", "--runs-dir", str(run.parent), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert (listed["status"], listed["n"], listed["requested"]) == ("incomplete", 2, 30)
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == incomplete_line(run) and "incomplete: 2 of 30 episodes recorded" in out[0]
    (run / REQUESTED_FILE).unlink()  # a run asked for just what it recorded: complete
    record_request(run, _hash(run), {}, IDS[:2])
    assert run_row(run).status == "ok" and incomplete_line(run) is None


def test_config_differences_name_each_parameter_once() -> None:
    before = {
        "sim_bridge": {"executable": "sim_bridge", "parameters": {"realtime": False, "x": 1}},
        "a": {"executable": "a", "parameters": {"agent": "reference"}},
        "b": {"executable": "b", "parameters": {"agent": "reference", "context_json": "{1}"}},
    }
    after = {
        "sim_bridge": {"executable": "sim_bridge", "parameters": {"realtime": True, "x": 1}},
        "a": {"executable": "a", "parameters": {"agent": "llm"}},
        "b": {"executable": "b", "parameters": {"agent": "llm", "context_json": "{2}"}},
    }
    assert config_differences(before, after) == [
        'agent (on a, b): "reference" -> "llm"',
        "sim_bridge.realtime: false -> true",
    ]


def test_a_reused_run_id_with_another_config_is_refused_before_anything_starts(tmp_path, monkeypatch, capsys):
    import alpha_matrix.launcher as launcher

    def never(*_a, **_k):
        raise AssertionError("a graph was started")

    monkeypatch.setattr(launcher, "run_graphs", never)
    monkeypatch.setattr(launcher, "guarded", never)
    runs = tmp_path / "runs"
    earlier = resolve_graph(None, {"episode_runner": {"run_id": "nu1", "runs_dir": str(runs)}})
    run = runs / "nu1"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"config_hash": earlier.config_hash, "schema_version": 2}))
    record_request(run, earlier.config_hash, config_view(earlier), IDS[:2])
    argv = ["run", "--episodes", "2", "--run-id", "nu1", "--runs-dir", str(runs)]
    assert main([*argv, "--set", "sim_bridge.realtime=true", "--seed", "7"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "was made with config" in err
    assert "episode_runner.master_seed: 42 -> 7" in err and "sim_bridge.realtime: false -> true" in err
    # A run from before config.json: refused all the same, saying why the parameters are not named.
    (run / "config.json").unlink()
    with pytest.raises(ConfigError, match="holds no config.json"):
        check_same_config(run, "another", {})


def test_merge_joins_the_shares_sizes(tmp_path: Path) -> None:
    a, b, into = tmp_path / "a", tmp_path / "b", tmp_path / "into"
    record_request(a, "h", {"n": {}}, IDS[0::2])
    record_request(b, "h", {"n": {}}, IDS[1::2])
    merge_requested(into, [a, b])
    merge_requested(into, [a, b])  # merged again: nothing added
    assert run_size(into) == (0, 30) and len((into / REQUESTED_FILE).read_text().splitlines()) == 2
    assert json.loads((into / "config.json").read_text())["config_hash"] == "h"
