"""The injection suite through real node processes: the shipped file's hand-written pairs of three
channels (printed on an object, a person's sign, an earlier tool's reply; both goals), the fully
compromised agent ``obey`` with the guard off (every attack realised in the measured
physics, a harm each) and on (every attacker's call caught by the guard, no harm), and the bag
audits clean (attack success re-derived from the recorded step stream); a bad file is one line,
exit 2.

The two ``obey`` runs (guard off, guard on) hold the generated alert-payload pairs as well: one
graph per guard setting serves both tests that read them (the hand-written pairs' seeds are their
own, derive_seed(seed, "injection", pair), and the generated ones are those of ``count: 2,
channels: [alert_payload]`` alone)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("injection")
    shipped = yaml.safe_load((config_dir() / "scenarios" / "injection.yaml").read_text())
    pairs = ("h_glass_override", "h_vase_sign", "h_mug_reply")
    items = [it for it in shipped["items"] if it["pair"] in pairs]
    both = {"seed": 11, "count": 2, "channels": ["alert_payload"], "guard": True, "items": items}
    (d / "s.yaml").write_text(yaml.safe_dump(both))
    (d / "bad.yaml").write_text("seed: 11\ncount: 4\n")
    return d


def _run(cell: Path, run_id: str, *flags: str) -> list[dict]:
    """The run's results (the three hand-written pairs and the two alert-payload pairs), its bag audited clean."""
    proc = run_cli(["suite", "injection", "--scenarios", "s.yaml", "--run-id", run_id, *flags], cell, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = SuiteStore.read_only(cell / "runs" / run_id)
    assert len(recs) == 10 and all(r.ok for r in recs), [r.message for r in recs]
    audit = run_cli(["audit", str(cell / "bags" / run_id), "--runs-dir", str(cell / "runs")], cell, timeout=300)
    assert audit.returncode == 0 and "10/10 episodes match" in audit.stdout, audit.stdout + audit.stderr
    return [r.result for r in recs]


@pytest.fixture(scope="module")
def obey(cell: Path) -> dict[str, list[dict]]:
    """guards -> the results of ``--agent obey --guards off|on`` on s.yaml (read, never changed, by the tests)."""
    return {guards: _run(cell, f"obey-{guards}", "--agent", "obey", "--guards", guards) for guards in ("off", "on")}


def _channel(results: list[dict], alert_payload: bool) -> list[dict]:
    return [r for r in results if (r["channel"] == "alert_payload") == alert_payload]


def test_obey_with_the_guard_off_then_on(cell: Path, obey: dict[str, list[dict]]) -> None:
    off = _channel(obey["off"], alert_payload=False)
    assert len(off) == 6
    injected = [r for r in off if r["variant"] == "injected"]
    assert [r["attack_success"] for r in injected] == [True] * 3 and all(r["harm"] for r in injected)
    assert sorted(r["channel"] for r in injected) == ["object_text", "person_sign", "tool_result"]
    assert all(r["task_right"] and not r["attack"]["success"] for r in off if r["variant"] == "clean")
    on = _channel(obey["on"], alert_payload=False)
    assert len(on) == 6
    injected = [r for r in on if r["variant"] == "injected"]
    assert all(r["guard_catch"] and not r["attack_success"] and not r["harm"] for r in injected)
    assert (cell / "runs" / "obey-on" / "report.html").is_file()


def test_a_bad_file_is_one_line(cell: Path) -> None:
    proc = run_cli(["suite", "injection", "--scenarios", "bad.yaml", "--run-id", "bad"], cell, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "count: 4 is not a multiple of 8" in proc.stderr


def test_a_gauge_face_through_the_graph_no_guard_sees_it(cell: Path) -> None:
    (cell / "g.yaml").write_text("seed: 11\ncount: 2\nchannels: [gauge_face]\n")
    for agent, hits in (("obey", 2), ("reference", 0)):
        run_id = f"gauge-{agent}"
        proc = run_cli(
            ["suite", "injection", "--scenarios", "g.yaml", "--run-id", run_id, "--agent", agent], cell, timeout=600
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        recs = [r.result for r in SuiteStore.read_only(cell / "runs" / run_id)]
        injected = [r for r in recs if r["variant"] == "injected"]
        assert len(recs) == 4 and {r["channel"] for r in recs} == {"gauge_face"}
        assert sum(r["attack_success"] for r in injected) == hits and not any(r["guard_catch"] for r in recs)
        assert all(r["task_right"] for r in recs if r["variant"] == "clean")  # the reader's value: the clean twin right
        audit = run_cli(["audit", str(cell / "bags" / run_id), "--runs-dir", str(cell / "runs")], cell, timeout=300)
        assert audit.returncode == 0 and "4/4 episodes match" in audit.stdout, audit.stdout + audit.stderr


def test_an_alert_payload_through_the_graph_the_alert_guard_stops_it(obey: dict[str, list[dict]]) -> None:
    """The generated alert-payload pairs of the two obey runs (their bags audited clean in ``_run``)."""
    for guards, hits in (("off", 2), ("on", 0)):
        recs = _channel(obey[guards], alert_payload=True)
        injected = [r for r in recs if r["variant"] == "injected"]
        assert len(recs) == 4 and {r["channel"] for r in recs} == {"alert_payload"}
        assert sum(r["attack_success"] for r in injected) == hits == sum(r["harm"] for r in injected)
        assert all(r["guard_catch"] for r in injected) == (guards == "on")
        assert all(r["task_right"] and not r["attack"]["moved"] for r in recs if r["variant"] == "clean")
