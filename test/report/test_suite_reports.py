"""Suite reports as pages: report.md, report.html and plots/ from the records alone, counted right.

Fast (no browser): test_report_pages.py renders the same pages in Chromium.
"""

from __future__ import annotations

import argparse
import re

import pytest
from matplotlib.image import imread
from report_runs import SUITE_RUNS, alerts_run, compare_runs, confidence_run, matrix_run, proximity_run

from alpha_matrix.cli.compare import cmd_compare
from alpha_matrix.core.matrix.report import build_report
from alpha_matrix.core.pages.blocks import Bullets, Heading, Para, Table, render_html, render_markdown
from alpha_matrix.core.pages.markdown import parse_markdown
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.suites.alerts.plots import _rates as alerts_rates
from alpha_matrix.core.suites.confidence.plots import _rates as confidence_rates
from alpha_matrix.core.suites.proximity.plots import _rates as proximity_rates
from alpha_matrix.core.suites.records import SuiteStore
from alpha_matrix.core.suites.report import write_report


def _done(run_dir):
    return [r.result for r in SuiteStore.read_only(run_dir) if r.ok]


@pytest.mark.parametrize("suite", sorted(SUITE_RUNS))
def test_a_suite_report_is_markdown_html_and_plots_with_the_same_bytes_again(tmp_path, suite) -> None:
    run_dir = SUITE_RUNS[suite](tmp_path / "run")
    md = write_report(suite, run_dir).read_text()
    html = (run_dir / "report.html").read_text()
    pngs = sorted(p.name for p in (run_dir / "plots").glob("*.png"))
    assert pngs == sorted({f"{suite}_rates.png", *re.findall(rf"plots/({suite}_\w+\.png)", md)}) and len(pngs) == 2
    for name in pngs:
        assert f"](plots/{name})" in md and f'<img src="plots/{name}"' in html
        assert imread(run_dir / "plots" / name).shape[0] > 100
    assert html.count("<table>") == sum(line.startswith("|---") for line in md.splitlines()) >= 2
    assert "| not run: no result within 300 s |" in md and "<td>not run: no result within 300 s</td>" in html
    first = {p.name: p.read_bytes() for p in [run_dir / "report.md", run_dir / "report.html", *run_dir.glob("plots/*")]}
    (run_dir / "plots" / f"{suite}_left_from_before.png").write_bytes(b"stale")
    write_report(suite, run_dir)
    again = {p.name: p.read_bytes() for p in [run_dir / "report.md", run_dir / "report.html", *run_dir.glob("plots/*")]}
    assert again == first  # the same records, the same bytes; a plot the records do not give is gone


def test_a_run_with_nothing_done_writes_no_plot_and_says_so(tmp_path) -> None:
    store_dir = alerts_run(tmp_path / "run")
    lines = (store_dir / "episodes.jsonl").read_text().splitlines()
    (store_dir / "episodes.jsonl").write_text("\n".join(x for x in lines if '"ok":false' in x) + "\n")
    md = write_report("alerts", store_dir).read_text()
    assert "| battery_out | not run: no result within 300 s |" in md
    assert "### Plots" not in md and not list((store_dir / "plots").glob("*.png"))
    assert "<img" not in (store_dir / "report.html").read_text()


def test_proximity_rates_are_counted_per_threshold(tmp_path) -> None:
    labels, counts = proximity_rates(_done(proximity_run(tmp_path / "run")))
    got = dict(zip(labels, counts, strict=True))
    assert got["1 m: breaches stopped in time"] == (1, 1) and got["1.5 m: breaches stopped in time"] == (0, 1)
    assert got["1.5 m: frames judged right"] == (8, 9) and got["1 m: stops justified"] == (1, 1)
    assert not any(label.startswith("agent") for label in labels)


def test_alerts_rates_are_counted_per_class_and_command(tmp_path) -> None:
    labels, counts = alerts_rates(_done(alerts_run(tmp_path / "run")))
    assert dict(zip(labels, counts, strict=True)) == {
        "battery_low: response as configured": (2, 2),
        "estop_button: response as configured": (1, 2),
        "commands refused while stopped": (1, 2),
        "commands admitted while free": (4, 4),
        "resumes followed by motion": (2, 2),
        "tasks succeeded (pick and place)": (1, 2),
    }


def test_confidence_rates_are_counted_per_call_and_task(tmp_path) -> None:
    labels, counts = confidence_rates(_done(confidence_run(tmp_path / "run")))
    assert dict(zip(labels, counts, strict=True)) == {
        "tasks completed by the rules": (1, 2),
        "skill calls checked first": (5, 5),
        "skill calls at or above the threshold": (4, 5),
        "sub-steps succeeded": (3, 5),
        "robot stopped at the end": (2, 2),
    }


def test_markdown_parses_back_into_the_matrix_reports_blocks(tmp_path) -> None:
    records = sorted(RunStore.read_only(matrix_run(tmp_path / "m")).values(), key=lambda r: (r.arm, r.episode_index))
    blocks = build_report(records, [("oracle", "oracle-text")], {"success": True, "f1": True, "f3": True})
    blocks.append(Table(("a | b", "c"), (("x|y", "`z`"),)))
    assert parse_markdown(render_markdown(blocks)) == blocks
    assert render_html(parse_markdown(render_markdown(blocks)), "t") == render_html(blocks, "t")


def test_a_page_renders_code_and_bold_only_when_asked() -> None:
    blocks = [Heading(1, "Suite `alerts`"), Para("**3** harms <b>"), Bullets(("`x`",))]
    plain, marked = render_html(blocks, "t"), render_html(blocks, "t", inline=True)
    assert "**3** harms &lt;b&gt;" in plain and "`x`" in plain
    assert "<h1>Suite <code>alerts</code></h1>" in marked and "<strong>3</strong> harms &lt;b&gt;" in marked


def test_compare_writes_its_page_too(tmp_path, capsys) -> None:
    a, b = compare_runs(tmp_path)
    assert cmd_compare(argparse.Namespace(run_a=str(a), run_b=str(b))) == 0
    md, html = (a / "compare-gemma.md").read_text(), (a / "compare-gemma.html").read_text()
    assert "<title>st.reference vs gemma: paired decisions</title>" in html
    assert "<td><code>gemma</code></td>" in html and "| `gemma` |" in md
    assert "written:" in capsys.readouterr().out
