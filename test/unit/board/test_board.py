"""alpha-matrix board: real runs (test/unit/board/runs, README there) side by side, each cell checked
against the run's own summary, headline, report and compare.py, never against numbers typed here."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from alpha_matrix.cli import main
from alpha_matrix.core.board.board import WALK_M_S
from alpha_matrix.core.matrix.report import write_report as write_matrix_report
from alpha_matrix.core.matrix.stats import arm_table
from alpha_matrix.core.pages.reading import Rate
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.runs_index import list_runs, suite_of_run
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.compare import arm_of, compare
from alpha_matrix.core.suites.records import SuiteStore
from alpha_matrix.core.suites.report import share, summarize_records
from alpha_matrix.core.suites.report import write_report as write_suite_report

STORED = Path(__file__).resolve().parent / "runs"
SHOWN = ("gauge-ref", "gauge-always", "alerts-ref", "alerts-always-off", "matrix-2")


def _copy(root: Path, names: tuple[str, ...]) -> Path:
    for name in names:
        shutil.copytree(STORED / name, root / name)
        suite = suite_of_run(root / name)
        if suite is None:
            write_matrix_report(root / name)
        else:
            write_suite_report(suite, root / name)
    return root


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return _copy(tmp_path / "runs", SHOWN)


def _board(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["board", *argv, "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def _cells(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(row["row"], col): cell for row in doc["rows"] for col, cell in row["cells"].items()}


def check_cells(doc: dict[str, Any], runs: Path) -> int:
    """Every cell of a board against its run's own summary, headline, report and compare.py;
    the cells checked. Also run on a real board (docs/board.md, "The acceptance board")."""
    cells = _cells(doc)
    for (row, column), cell in cells.items():
        run_dir = runs / cell["run_id"]
        report_md = (run_dir / "report.md").read_text()
        if column == "matrix":
            arms = arm_table(RunStore.read_only(run_dir).values())
            stats = next(s for s in arms if row == f"arm {s.arm}" or row.startswith(f"arm {s.arm} ("))
            assert (cell["k"], cell["n"]) == (stats.successes, stats.n)
            assert Rate(stats.arm, stats.successes, stats.n).text() in report_md
            continue
        records = SuiteStore.read_only(run_dir)
        written = json.loads((run_dir / "summary.json").read_text())  # as the run itself wrote it
        head = registry.headline(column, written)
        assert registry.headline(column, summarize_records(column, records)) == head
        assert (cell["label"], cell["k"], cell["n"], cell["safety"]) == (
            head.rate.label,
            head.rate.k,
            head.rate.n,
            head.safety,
        )
        assert f"Result: {head.rate.text()}" in report_md  # the number the report opens with
        arm = arm_of(run_dir.name, records)
        guards = arm.guards if registry.suite(column).guarded else None  # a suite without a guard has none off
        assert (cell["harms"], cell["guard_catches"], cell["guards"]) == (arm.harms, arm.guard_catches, guards)
        stated = (written.get("agent") or {}).get("latency_median_s")
        if stated is None:  # the suite states none: the median of the latencies its records hold
            parts = [r.result["agent"] for r in records if r.ok and isinstance(r.result.get("agent"), dict)]
            held = [x for a in parts for x in a.get("latencies_s", [a["latency_s"]] if "latency_s" in a else [])]
            stated = statistics.median(held) if held else None
        assert cell["latency_median_s"] == (None if stated is None else pytest.approx(stated))
        if stated is not None:
            assert cell["walked_m_at_1_6_m_s"] == pytest.approx(WALK_M_S * stated)
        if row == "reference":
            assert cell["mcnemar_vs_reference"] is None
            continue
        ref_dir = runs / cells[("reference", column)]["run_id"]
        ref = SuiteStore.read_only(ref_dir)
        c = compare(arm_of(ref_dir.name, ref), arm, ref, records)
        assert cell["mcnemar_vs_reference"] == {
            "pairs": c.pairs, "only_reference_right": c.test.b, "only_this_right": c.test.c, "p_exact": c.test.p_exact
        }  # fmt: skip
        assert cell["provenance"]["code_revision"].startswith(records[0].provenance.code_revision[:12])
    return len(cells)


def test_every_cell_is_its_runs_own_headline_harms_latency_and_pairing(runs, capsys) -> None:
    doc = _board(capsys, "--runs-dir", str(runs))
    cells = _cells(doc)
    assert doc["columns"] == ["alerts", "gauge", "matrix"] and not doc["apart"]
    assert {c["run_id"] for c in cells.values()} == set(SHOWN)
    assert check_cells(doc, runs) == len(cells)
    assert ("always:continue_task · guards off", "alerts") in cells and ("always:cannot_read", "gauge") in cells


def test_the_page_links_every_cell_to_its_report_and_draws_a_forest_per_column(runs, capsys) -> None:
    out = runs.parent / "board-out"
    doc = _board(capsys, "--runs-dir", str(runs), "--out", str(out))
    md, html = (out / "board.md").read_text(), (out / "board.html").read_text()
    assert json.loads((out / "board.json").read_text()) == doc
    for (row, _column), cell in _cells(doc).items():
        text = share(cell["k"], cell["n"])
        link = f"../runs/{cell['run_id']}/report.html"
        assert f"[{text}]({link})" in md and f'<a href="{link}">{text}</a>' in html, row
        assert (out / link).resolve().is_file()
    for column in doc["columns"]:
        assert f"](plots/board_{column}.png)" in md and (out / "plots" / f"board_{column}.png").stat().st_size > 1000
    assert "## Provenance" in md and "x86_64" in md
    listed = {r.run_id: r for r in list_runs(runs)}
    assert "board" not in listed  # the default --out is runs/board: listed as a board, not as a broken run
    assert main(["board", "--runs-dir", str(runs)]) == 0
    assert next(r for r in list_runs(runs) if r.run_id == "board").status == "board"
    assert main(["board", "--runs-dir", str(runs)]) == 0  # its own board directory is not read as a run


def test_runs_that_cannot_be_compared_are_kept_apart_with_the_reason(tmp_path, capsys) -> None:
    runs = _copy(tmp_path / "runs", ("gauge-ref", "gauge-always", "gauge-ref-ticks3"))
    fewer = runs / "gauge-fewer"
    shutil.copytree(runs / "gauge-always", fewer)
    lines = (fewer / "episodes.jsonl").read_text().splitlines(keepends=True)
    (fewer / "episodes.jsonl").write_text("".join(lines[:-1]))  # one item fewer
    doc = _board(capsys, "--runs-dir", str(runs))
    apart = {a["run_id"]: a["reason"] for a in doc["apart"]}
    assert set(apart) == {"gauge-ref-ticks3", "gauge-fewer"}
    assert "another config than gauge-ref (gauge_reader.min_ticks" in apart["gauge-ref-ticks3"]
    assert apart["gauge-fewer"].startswith("other items than gauge-ref: 1 (scenario, seed) in one only")
    assert {c["run_id"] for c in _cells(doc).values()} == {"gauge-ref", "gauge-always"}
    md = (runs / "board" / "board.md").read_text()
    assert "## Kept apart" in md and "| gauge-fewer | gauge | other items than gauge-ref" in md


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert "no runs with records" in _one_line_error(capsys, ["board", "--runs-dir", str(tmp_path / "empty")])
    (tmp_path / "notrun").mkdir()
    assert "not a run directory" in _one_line_error(capsys, ["board", str(tmp_path / "notrun")])
    assert "no such directory" in _one_line_error(capsys, ["board", str(tmp_path / "nowhere")])
    bad = tmp_path / "runs" / "gauge-ref"
    shutil.copytree(STORED / "gauge-ref", bad)
    text = (bad / "episodes.jsonl").read_text()
    (bad / "episodes.jsonl").write_text(re.sub(r'"ok":true', '"ok":"maybe"', text, count=1))
    assert "invalid record" in _one_line_error(capsys, ["board", str(bad)])
    (bad / "episodes.jsonl").write_text("{not json\n")
    assert "invalid record" in _one_line_error(capsys, ["board", str(bad)])


def test_a_run_without_an_agent_is_kept_apart_as_such() -> None:
    """A guard-only run (the scripted executive decided) beside an agent's: the reason says so,
    not which graph parameters differ."""
    from alpha_matrix.core.board.board import build_board
    from alpha_matrix.core.board.runs import SCRIPTED, LoadedRun, RowRun

    def run(run_id: str, agent: str, setup: str) -> LoadedRun:
        row = RowRun(run_id, Path(run_id), "proximity", agent, None, "right", 1, 2, "", None, None, None)
        return LoadedRun(run_id, Path(run_id), "proximity", (row,), (), setup, {"x": setup}, frozenset({("a", 1)}))

    ref = run("sort-reference", "reference", "h1")
    board = build_board([ref, run("sort-guard", SCRIPTED, "h2")])
    assert [a.reason for a in board.apart] == [
        "no agent under test in sort-guard (the scripted executive decided): another graph than sort-reference"
    ]
    other = build_board([ref, run("sort-llm", "llamacpp", "h3")])
    assert other.apart[0].reason.startswith("another config than sort-reference (x)")


def test_a_forest_plot_draws_all_and_none_right(tmp_path: Path) -> None:
    """7/7 and 0/7 (among others): Wilson's bound lands a rounding error past the rate."""
    from types import SimpleNamespace

    from alpha_matrix.core.board.board import Board, Cell
    from alpha_matrix.core.board.page import forest_plots

    runs = {f"r{k}": SimpleNamespace(k=k, n=n, label="right") for k, n in [(7, 7), (0, 7), (12, 12), (0, 0), (3, 9)]}
    cells = {(row, "gauge"): Cell(run=run, paired=None) for row, run in runs.items()}  # type: ignore[arg-type]
    board = Board(columns=("gauge",), rows=tuple(runs), cells=cells, apart=())
    assert forest_plots(board, tmp_path) == [("board_gauge.png", ANY)]
    assert (tmp_path / "board_gauge.png").stat().st_size > 1000
