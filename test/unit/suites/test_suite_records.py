"""The suite record store (idempotent, resumable, one config) and the report built from records alone."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from pydantic import ValidationError

from alpha_matrix.core.errors import RecordError
from alpha_matrix.core.outcome import Outcome
from alpha_matrix.core.records import provenance
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore, SuiteTiming
from alpha_matrix.core.suites.report import render_report, summarize_records


def _record(eid: str, index: int) -> SuiteRecord:
    result = {
        "name": eid, "seed": 1, "alerts": [], "commands": [], "resumes": [],
        "outcome": asdict(Outcome(True, 0.0, 10, "")), "steps": 10, "battery_pct": 99.0,
    }  # fmt: skip
    return SuiteRecord(
        suite="alerts", run_id="r", episode_id=eid, index=index, scenario=eid, seed=1, ok=True, message="",
        result=result, provenance=provenance("h"), timing=SuiteTiming(started_at="now", wall_s=0.1),
    )  # fmt: skip


def test_suite_store_is_idempotent_resumable_and_refuses_another_config(tmp_path) -> None:
    store = SuiteStore(tmp_path / "run", "h")
    assert store.append(_record("a", 0)) and not store.append(_record("a", 0))
    with open(store.path, "a") as f:
        f.write('{"cut short')
    again = SuiteStore(tmp_path / "run", "h")
    assert list(again.records) == ["a"] and store.path.read_text().endswith("\n")
    with pytest.raises(RecordError, match="made with config"):
        SuiteStore(tmp_path / "run", "other")
    s = summarize_records("alerts", SuiteStore.read_only(tmp_path / "run"))
    assert s["scenarios"] == 1 and s["task_success"] == 1
    assert "correct response rate" in render_report("alerts", "r", SuiteStore.read_only(tmp_path / "run"))


def test_a_record_names_a_registered_suite() -> None:
    fields = _record("a", 0).model_dump()
    with pytest.raises(ValidationError, match="unknown suite 'lidar'"):
        SuiteRecord.model_validate({**fields, "suite": "lidar"})


def test_a_not_run_scenario_is_counted_and_listed(tmp_path) -> None:
    store = SuiteStore(tmp_path / "run", "h")
    store.append(_record("a", 0))
    store.append(_record("b", 1).model_copy(update={"ok": False, "message": "no result within 300 s", "result": {}}))
    records = SuiteStore.read_only(tmp_path / "run")
    assert summarize_records("alerts", records)["not_run"] == 1
    report = render_report("alerts", "r", records)
    assert report.startswith("# Suite `alerts` through the ROS graph: run `r`")
    assert "| b | not run: no result within 300 s | | | | |" in report and "(sum): 0.2 s." in report
