"""alpha-matrix runs: one row per entry of runs/, from the records alone, read-only.

Run directories are written with the project's own stores (RunStore, SuiteStore) from the
records of test/bags/runs (real records of an earlier version), changed where a case needs it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from alpha_matrix.cli import main
from alpha_matrix.core.audit_log import AUDITS_FILE, AuditEntry, append_audit, audit_status, last_audit, verdict
from alpha_matrix.core.records import EpisodeRecord, PlannerRecord, RunStore
from alpha_matrix.core.runs_index import format_runs, list_runs, run_row
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore
from alpha_matrix.core.suites.report import summarize_records

OLD_RUNS = Path(__file__).resolve().parents[1] / "bags" / "runs"


def _matrix_template() -> EpisodeRecord:
    line = (OLD_RUNS / "matrix-pre-layout" / "episodes.jsonl").read_text().splitlines()[0]
    return EpisodeRecord.model_validate_json(line)


def _suite_template() -> SuiteRecord:
    line = (OLD_RUNS / "alerts-pre-layout" / "episodes.jsonl").read_text().splitlines()[0]
    return SuiteRecord.model_validate_json(line)


def _episode(base: EpisodeRecord, arm: str, i: int, success: bool, started: str, model: str = "") -> EpisodeRecord:
    planner = None
    if model:
        planner = PlannerRecord(
            backend="llamacpp", model=model, digest="", prompt_tokens=1, completion_tokens=1, seed=0,
            recorded=False, template_sha256="", template_version="", attempts=1, text="{}",
        )  # fmt: skip
    return base.model_copy(
        update={
            "episode_id": f"{arm}-{i:04d}",
            "arm": arm,
            "episode_index": i,
            "outcome": base.outcome.model_copy(update={"success": success}),
            "timing": base.timing.model_copy(update={"started_at": started}),
            "planner": planner,
        }
    )


def _matrix_run(runs: Path, run_id: str, started: list[str]) -> Path:
    """oracle: every episode a success; llm (gemma): only the first. One episode per start time."""
    base, store = _matrix_template(), RunStore(runs / run_id, "h")
    for i, t in enumerate(started):
        store.append(_episode(base, "oracle", i, True, t))
        store.append(_episode(base, "llm", i, i == 0, t, model="gemma-3-270m"))
    return runs / run_id


def _suite_run(runs: Path, run_id: str, started: str, agent: bool = False) -> Path:
    base, store = _suite_template(), SuiteStore(runs / run_id, "h")
    result = dict(base.result)
    if agent:
        result["agent"] = {"agent": "llm:qwen", "backend": "ollama", "model": "qwen2.5:7b", "aborts": 0}
    for i, ok in enumerate((True, False, True)):
        store.append(
            base.model_copy(
                update={
                    "episode_id": f"alerts-s{i}",
                    "index": i,
                    "ok": ok,
                    "result": result,
                    "timing": base.timing.model_copy(update={"started_at": started}),
                }
            )
        )
    return runs / run_id


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A runs/ of every kind of entry, created in an order unlike the dates."""
    root = tmp_path / "runs"
    _matrix_run(root, "a-late", ["2026-03-02T10:00:00+00:00", "2026-03-01T09:00:00+00:00"])  # resumed: out of order
    _suite_run(root, "b-agent", "2026-02-01T08:00:00+00:00", agent=True)
    shutil.copytree(OLD_RUNS / "alerts-pre-layout", root / "c-scripted")
    RunStore(root / "d-empty", "h")  # made, nothing recorded yet
    (root / "e-junk").mkdir()
    (root / "f-broken").mkdir()
    shutil.copy(OLD_RUNS / "matrix-pre-layout" / "manifest.json", root / "f-broken")
    (root / "f-broken" / "episodes.jsonl").write_text('{"not": "a record"}\n')
    (root / "g-study").mkdir()
    (root / "g-study" / "study.md").write_text("# Study\n")
    (root / "notes.txt").write_text("a file, not a run\n")
    (root / ".a-late.lock").write_text("123\n")  # a run's lock file: machinery, not an entry
    return root


def test_every_entry_is_listed_by_date_with_what_its_records_say(runs: Path) -> None:
    rows = {r.run_id: r for r in list_runs(runs)}
    assert list(rows)[:3] == ["b-agent", "a-late", "c-scripted"]  # by date, not by name; undated ones after
    assert list(rows)[3:] == ["d-empty", "e-junk", "f-broken", "g-study", "notes.txt"]
    assert ".a-late.lock" not in rows and set(rows) == {
        "a-late", "b-agent", "c-scripted", "d-empty", "e-junk", "f-broken", "g-study", "notes.txt",
    }  # fmt: skip

    late = rows["a-late"]
    assert (late.status, late.kind, late.arms, late.n) == ("ok", "matrix", ("oracle", "llm"), 4)
    assert late.started_at == "2026-03-01T09:00:00+00:00"  # the earliest record, not the first line
    assert late.success == {"oracle": (2, 2), "llm": (1, 2)}
    assert late.models == ("llamacpp:gemma-3-270m",)

    agent = rows["b-agent"]
    assert (agent.kind, agent.arms, agent.n) == ("alerts", ("llm:qwen",), 3)
    assert agent.success == {}  # an agent part its suite cannot summarize: no headline, the row still listed
    assert agent.models == ("ollama:qwen2.5:7b",)
    scripted = rows["c-scripted"]
    assert (scripted.kind, scripted.arms, scripted.models, scripted.n) == ("alerts", ("scripted",), (), 2)
    rate = registry.headline("alerts", summarize_records("alerts", SuiteStore.read_only(runs / "c-scripted"))).rate
    assert scripted.success == {rate.label: (rate.k, rate.n)} and rate.n > 0  # its headline, not the scenarios run

    empty = rows["d-empty"]
    assert (empty.status, empty.n, empty.started_at, empty.kind) == ("ok", 0, None, "")
    assert rows["e-junk"].status.startswith("unreadable: not a run directory")
    assert (
        rows["f-broken"].status.startswith("unreadable: ")
        and "episodes.jsonl:1: invalid record" in rows["f-broken"].status
    )
    assert rows["g-study"].status == "study"
    assert rows["notes.txt"].status == "unreadable: not a directory"
    assert all(r.audit == "not audited" for r in rows.values() if r.status == "ok")


def test_listing_changes_nothing_not_even_a_line_cut_short(runs: Path) -> None:
    with open(runs / "a-late" / "episodes.jsonl", "a") as f:
        f.write('{"cut short')  # a store opened for writing would truncate this line
    before = _tree(runs)
    rows = {r.run_id: r for r in list_runs(runs)}
    assert rows["a-late"].n == 4 and rows["a-late"].status == "ok"
    assert _tree(runs) == before


def test_the_table_has_one_line_per_entry_and_says_why_one_is_not_a_run(runs: Path) -> None:
    text = format_runs(list_runs(runs), runs)
    lines = text.splitlines()
    assert lines[0].split() == [
        "run",
        "id",
        "started",
        "(UTC)",
        "kind",
        "arms",
        "/",
        "agent",
        "n",
        "success",
        "model",
        "audit",
    ]
    assert len(lines) == 1 + 8
    (late,) = [line for line in lines if line.startswith("a-late")]
    assert "2026-03-01 09:00:00" in late and "oracle,llm" in late and "oracle 2/2, llm 1/2" in late
    assert "llamacpp:gemma-3-270m" in late and late.endswith("not audited")
    (broken,) = [line for line in lines if line.startswith("f-broken")]
    assert "unreadable: " in broken and "invalid record" in broken
    assert format_runs([], runs) == f"no runs in {runs}"


def test_the_last_audit_is_shown_and_a_broken_log_is_named(runs: Path) -> None:
    run = runs / "a-late"
    assert last_audit(run) is None and audit_status(run) == "not audited"
    for mismatches in (0, 2):
        entry = AuditEntry(
            time=f"2026-03-0{3 + mismatches}T00:00:00+00:00", bag="/b", kind="matrix", verdict=verdict(mismatches, 0),
            episodes=4, matched=4 - mismatches, mismatches=mismatches, splits=2,
        )  # fmt: skip
        append_audit(run, entry)
    assert audit_status(run) == "2 mismatches (2/4, 2026-03-05)"
    assert run_row(run).last_audit is not None and run_row(run).last_audit["mismatches"] == 2  # type: ignore[index]
    with open(run / AUDITS_FILE, "a") as f:
        f.write('{"time": "still being wri')  # no newline yet: not an entry
    assert audit_status(run) == "2 mismatches (2/4, 2026-03-05)"
    (run / AUDITS_FILE).write_text("not json\n")
    assert audit_status(run).startswith(f"unreadable: {run / AUDITS_FILE}:1: invalid entry")
    assert run_row(run).status == "ok"  # the records are fine; only the audit column says what is wrong


def test_verdicts() -> None:
    assert verdict(0, 0) == "clean"
    assert verdict(1, 0) == "1 mismatch" and verdict(3, 0) == "3 mismatches"
    assert verdict(2, 1) == "2 mismatches, 1 unreadable split" and verdict(0, 2) == "2 unreadable splits"


def test_cli_runs_table_json_and_bad_input(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "--runs-dir", str(runs)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("b-agent") and "unreadable: not a directory" in out

    assert main(["runs", "--runs-dir", str(runs), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["run_id"] for r in rows][:3] == ["b-agent", "a-late", "c-scripted"]
    late = next(r for r in rows if r["run_id"] == "a-late")
    assert late["success"] == {"oracle": [2, 2], "llm": [1, 2]} and late["last_audit"] is None
    assert late["started_at"] == "2026-03-01T09:00:00+00:00" and late["kind"] == "matrix"

    for argv, message in [
        (["runs", "--runs-dir", str(runs / "nowhere")], f"{runs / 'nowhere'}: no such directory"),
        (["runs", "--runs-dir", str(runs / "notes.txt")], f"{runs / 'notes.txt'}: not a directory"),
    ]:
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.err == f"alpha-matrix: error: {message}\n" and captured.out == ""


def test_cli_runs_defaults_to_where_run_writes(
    runs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(runs.parent)
    assert main(["runs"]) == 0  # params.yaml: episode_runner.runs_dir = runs
    assert "a-late" in capsys.readouterr().out
    os.mkdir("elsewhere")
    assert main(["--set", "episode_runner.runs_dir=elsewhere", "runs"]) == 0
    assert capsys.readouterr().out.strip() == "no runs in elsewhere"
