"""alpha-matrix suite gauge through real node processes (one ROS_DOMAIN_ID each).

Twenty items (every degradation, readable and unreadable): every scenario recorded, the reader's
answer scored against the item's truth; the bag holds every observation (image included) and
reading; the audit re-runs the reader on the recorded images and matches; the report states
what it measured with example images. With --agent reference, a text agent calls read_gauge and
reports the reader's answer, scored and audited the same way. A bad scenario file is one line,
exit 2, nothing written.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli

SMALL = "seed: 15\nitems: 20\n"


def test_gauge_suite_through_the_graph_and_its_audit(tmp_path: Path) -> None:
    (tmp_path / "g1.yaml").write_text(SMALL)
    proc = run_cli(["suite", "gauge", "--scenarios", "g1.yaml", "--run-id", "g1"], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    run_dir = tmp_path / "runs" / "g1"
    recs = SuiteStore.read_only(run_dir)
    assert [r.scenario for r in recs] == [f"g{i:03d}" for i in range(20)] and all(r.ok for r in recs)
    results = [r.result for r in recs]
    assert sum(r["readable"] for r in results) == 10
    assert sum(r["reader"]["accurate"] for r in results) >= 9  # of the 10 readable
    assert not any(r["reader"]["hallucinated"] for r in results)
    for r in results:  # the record's verdicts follow from its own numbers
        err = r["reader"]["error_pct_span"]
        assert r["reader"]["accurate"] == (r["readable"] and err is not None and err <= 2.0)
    counts = dict(re.findall(r"(/[\w/]+) (\d+)", proc.stdout.split("recorder: bag closed: ", 1)[1].splitlines()[0]))
    assert int(counts["/gauge/observations"]) == int(counts["/gauge/readings"]) == 20
    report = (run_dir / "report.md").read_text()
    assert "What was measured" in report and "Anchors:" in report and "MeasureBench" in report
    assert len(list((run_dir / "plots").glob("gauge_examples_*.png"))) == 10
    audit = run_cli(
        ["audit", str(tmp_path / "bags" / "g1"), "--runs-dir", str(tmp_path / "runs")], tmp_path, timeout=300
    )
    assert audit.returncode == 0, audit.stdout[-3000:] + audit.stderr[-3000:]
    assert audit.stdout.count("match") >= 20 and "MISMATCH" not in audit.stdout


@pytest.mark.long
def test_gauge_suite_with_the_reference_agent_reading_through_read_gauge(tmp_path: Path) -> None:
    """A text agent (no image) asks the reader and reports what it says: the reference is the reader."""
    (tmp_path / "g2.yaml").write_text(SMALL)
    args = ["suite", "gauge", "--scenarios", "g2.yaml", "--run-id", "g2", "--agent", "reference"]
    proc = run_cli(args, tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = [r.result for r in SuiteStore.read_only(tmp_path / "runs" / "g2")]
    assert len(results) == 20
    for r in results:
        a = r["agent"]
        assert (
            a["spec"] == "reference" and a["used_reader"] and a["decisions"] == 2 and a["invalid"] == a["aborts"] == 0
        )
        assert (a["value"], a["accurate"], a["hallucinated"]) == (
            r["reader"]["value"],
            r["reader"]["accurate"],
            r["reader"]["hallucinated"],
        )
    assert "agent reference, all" in (tmp_path / "runs" / "g2" / "report.md").read_text()
    audit = run_cli(
        ["audit", str(tmp_path / "bags" / "g2"), "--runs-dir", str(tmp_path / "runs")], tmp_path, timeout=300
    )
    assert audit.returncode == 0 and "MISMATCH" not in audit.stdout, audit.stdout[-3000:] + audit.stderr[-3000:]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("items: 21\n", "items must be even"),
        ("seed: 1\nwhat: 2\n", "what: unknown key"),
        ("items: [\n", "malformed YAML"),
    ],
)
def test_bad_scenario_file_is_one_line_and_writes_nothing(tmp_path: Path, text: str, needle: str) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    proc = run_cli(["suite", "gauge", "--scenarios", "bad.yaml"], tmp_path, timeout=60)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("pybullet build time")]
    assert len(lines) == 1 and lines[0].startswith("alpha-matrix: error: ") and needle in lines[0], proc.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "bags").exists()


def _draw_folder(folder: Path, n: int) -> list[float | None]:
    """``n`` dials drawn by the tests' own routine (not the suite's renderer): light and dark dials,
    tilted views, a red drag pointer; a face file for the folder, a true value for every other image."""
    import sys

    import cv2
    import numpy as np

    sys.path.insert(0, str(Path(__file__).parents[1] / "unit" / "suites" / "gauge"))
    from dials_drawn_here import Drawn, draw

    folder.mkdir()
    (folder / "gauge.yaml").write_text("min: 0\nmax: 10\nunit: bar\nsweep: clockwise\n")
    rng = np.random.default_rng(7)
    truths: list[float | None] = []
    for i in range(n):
        v = round(float(rng.uniform(0.5, 9.5)), 2)
        dark = {"dial": (20, 20, 25), "ink": (235, 235, 235), "needle": (240, 240, 240)} if i % 4 == 1 else {}
        d = Drawn(value=v, seed=i, drag=9.0 if i % 5 == 2 else None, squash=0.75 if i % 4 == 3 else 1.0, **dark)  # type: ignore[arg-type]
        cv2.imwrite(
            str(folder / f"img{i:02d}.{'jpg' if i % 3 == 0 else 'png'}"), cv2.cvtColor(draw(d), cv2.COLOR_RGB2BGR)
        )
        if i % 2 == 0:
            (folder / f"img{i:02d}.yaml").write_text(f"value: {v}\n")
        truths.append(v if i % 2 == 0 else None)
    return truths


def test_gauge_suite_on_the_users_own_images_audits_from_the_bag(tmp_path: Path) -> None:
    """suite gauge --images DIR: 20 images through the graph, recorded in the bag; the report scores
    those with a value and lists the others; the audit re-reads from the bag with the folder gone."""
    truths = _draw_folder(tmp_path / "mine", 20)
    proc = run_cli(["suite", "gauge", "--images", "mine", "--run-id", "u1"], tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = [r.result for r in SuiteStore.read_only(tmp_path / "runs" / "u1")]
    assert [r["item"]["file"] for r in results] == sorted(p.name for p in (tmp_path / "mine").glob("img*.*[gG]"))
    assert [r["truth"] for r in results] == truths
    scored = [r for r in results if r["truth"] is not None]
    assert sum(r["reader"]["accurate"] for r in scored) >= 9 and not any(r["reader"]["hallucinated"] for r in results)
    report = (tmp_path / "runs" / "u1" / "report.md").read_text()
    assert "Readings without a stated value (listed, not scored): 10" in report
    counts = dict(re.findall(r"(/[\w/]+) (\d+)", proc.stdout.split("recorder: bag closed: ", 1)[1].splitlines()[0]))
    assert int(counts["/gauge/observations"]) == 20
    (tmp_path / "mine").rename(tmp_path / "gone")  # the audit needs the bag only
    audit = run_cli(["audit", str(tmp_path / "bags" / "u1"), "--runs-dir", str(tmp_path / "runs")], tmp_path)
    assert audit.returncode == 0 and "20/20 episodes match" in audit.stdout, audit.stdout[-3000:] + audit.stderr


@pytest.mark.parametrize(
    ("setup", "needle"),
    [
        (lambda d: [p.unlink() for p in d.glob("img*")], "no images"),
        (lambda d: (d / "img00.png").write_bytes(b"\x89PNG broken"), "not a readable image"),
        (lambda d: (d / "gauge.yaml").write_text("min: 0\nmax: 10\nunit: parsec\n"), "unit"),
        (lambda d: (d / "gauge.yaml").write_text("min: 3\nmax: -1\nunit: bar\n"), "must be below max"),
    ],
    ids=["empty", "unreadable", "unit", "range"],
)
def test_a_bad_images_folder_is_one_line_exit_2(tmp_path: Path, setup: object, needle: str) -> None:
    _draw_folder(tmp_path / "mine", 2)
    setup(tmp_path / "mine")  # type: ignore[operator]
    proc = run_cli(["suite", "gauge", "--images", "mine"], tmp_path, timeout=60)
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("pybullet build time")]
    assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0], proc.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "bags").exists()
