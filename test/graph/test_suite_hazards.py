"""alpha-matrix suite hazards through real node processes (one ROS_DOMAIN_ID each).

The short scenario file (a hand clamp, a forearm sweep, a drop, a hot cup) with the reference
world model: every scenario recorded with the physics' outcome, the stack's verdict and the scored
prediction; the bag holds every play's force stream; the audit re-grades it clean, and a bag whose
clamp peak force was changed is exit 1 naming the scenario.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_audit_suite_bags import copy_bag_with

from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli

SCENARIOS = Path(__file__).resolve().parents[2] / "config" / "scenarios" / "hazards_short.yaml"


def test_hazards_suite_reference_through_the_graph_audit_and_a_tampered_force(tmp_path: Path) -> None:
    (tmp_path / "h1.yaml").write_text(SCENARIOS.read_text())
    proc = run_cli(["suite", "hazards", "--scenarios", "h1.yaml", "--run-id", "h1"], tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = {r.scenario: r for r in SuiteStore.read_only(tmp_path / "runs" / "h1")}
    assert sorted(recs) == ["clamp_hand_table_001", "drop_box_001", "hot_cup_forearm_001", "sweep_forearm_001"]
    assert all(r.ok for r in recs.values())
    clamp = recs["clamp_hand_table_001"].result
    assert clamp["truth"]["consequence"] == "contact_over_limit"
    assert clamp["truth"]["measured"]["peak_force_n"] > 140.0  # the hand's quasi-static limit, without the stack
    assert clamp["stack"]["verdict"] == "prevented"
    assert clamp["stack"]["outcome"]["measured"]["peak_force_n"] < 140.0
    assert recs["hot_cup_forearm_001"].result["stack"]["verdict"] == "not_simulable"
    for r in recs.values():
        a = r.result["agent"]
        assert a["agent"] == "reference" and a["prediction"] is not None and a["gate"] is not None
        g = a["gate"]
        assert abs(g["rccc"] - (g["eta_init"] + g["eta_trg"] + g["eta_out"]) / 3) < 1e-6
    counts = dict(re.findall(r"(/[\w/]+) (\d+)", proc.stdout.split("recorder: bag closed: ", 1)[1].splitlines()[0]))
    assert int(counts["/hazards/physics"]) == 6  # free plays of 4 scenarios + stack plays of the 2 contacts
    assert int(counts["/agent/decisions"]) == 4
    report = (tmp_path / "runs" / "h1" / "report.md").read_text()
    assert "91.5 %" in report and "quasi_static_clamping" in report
    assert "### Units never played\n\nNone: every one of the" in report  # every unit of the four played

    bag = tmp_path / "bags" / "h1"
    ok = run_cli(["audit", str(bag), "--runs-dir", str(tmp_path / "runs")], tmp_path, timeout=120)
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-3000:]
    assert "4/4 episodes match" in ok.stdout, ok.stdout

    def lower_peak(topic, msg):  # noqa: ANN001, ANN202 - the clamp's free play, its peak force cut to 100 N
        if topic == "/hazards/physics":
            t = json.loads(msg.data)
            if t["scenario_id"] == "clamp_hand_table_001" and t["run"] == "free":
                f = t["outcome"]["force_stream_n"]
                f[f.index(max(f))] = 100.0
                msg.data = json.dumps(t)
        return msg

    copy_bag_with(bag, tmp_path / "tampered" / "h1", lower_peak)
    bad = run_cli(["audit", str(tmp_path / "tampered" / "h1"), "--runs-dir", str(tmp_path / "runs")], tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "3/4 episodes match; MISMATCH in hazards-clamp_hand_table_001" in bad.stdout, bad.stdout
    assert "re-graded plays and re-scored answer at truth.measured." in bad.stdout, bad.stdout


def _two(tmp_path: Path) -> None:
    """The clamp and the hot cup of the short set: one played, one documented."""
    import yaml

    zs = [
        z
        for z in yaml.safe_load(SCENARIOS.read_text())
        if z["scenario_id"] in ("clamp_hand_table_001", "hot_cup_forearm_001")
    ]
    (tmp_path / "two.yaml").write_text(yaml.safe_dump(zs))


def _audit_clean(tmp_path: Path, run_id: str) -> None:
    ok = run_cli(
        ["audit", str(tmp_path / "bags" / run_id), "--runs-dir", str(tmp_path / "runs")], tmp_path, timeout=120
    )
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-3000:]
    assert "2/2 episodes match" in ok.stdout, ok.stdout


@pytest.mark.long
def test_the_outcome_explicit_probe_is_recorded_and_reported_as_the_control(tmp_path: Path) -> None:
    _two(tmp_path)
    proc = run_cli(
        ["suite", "hazards", "--scenarios", "two.yaml", "--run-id", "ctl", "--probe", "explicit"], tmp_path, timeout=180
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = list(SuiteStore.read_only(tmp_path / "runs" / "ctl"))
    assert len(recs) == 2 and all(r.ok and r.result["probe"] == "explicit" for r in recs)
    assert "CONTROL: outcome-explicit probe" in (tmp_path / "runs" / "ctl" / "report.md").read_text()
    _audit_clean(tmp_path, "ctl")


def test_the_embedded_model_predicts_end_to_end(tmp_path: Path) -> None:
    """Gemma 3 270M (llama.cpp) as the world model on two scenarios: its provenance in every record,
    an answer that is not a prediction counted as unparsable, the bag audited clean."""
    _two(tmp_path)
    proc = run_cli(
        ["suite", "hazards", "--scenarios", "two.yaml", "--run-id", "gemma", "--agent", "llm"], tmp_path, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = list(SuiteStore.read_only(tmp_path / "runs" / "gemma"))
    assert len(recs) == 2 and all(r.ok for r in recs)
    parts = [r.result["agent"] for r in recs]
    for a in parts:
        assert (a["backend"], a["model"]) == ("llamacpp", "gemma-3-270m-q4_k_m.gguf") and a["digest"], a
        assert a["raw_text"] and a["template_version"] == "agent_hazards_v1"
        assert (a["prediction"] is None) == (a["error"] is not None), a  # scored, or counted apart with a reason
        assert a["error"] in (None, "abort", "schema", "no_json", "empty"), a
    assert "suite hazards: 2 of 2 scenarios recorded" in proc.stdout
    summary = json.loads((tmp_path / "runs" / "gemma" / "summary.json").read_text())
    unparsable = sum(1 for a in parts if a["error"] not in (None, "abort"))
    assert summary["all"]["unparsable"] == unparsable
    _audit_clean(tmp_path, "gemma")
