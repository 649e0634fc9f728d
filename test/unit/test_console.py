"""The plain launcher's console: clean prefixes, no banners, a bar only on a terminal."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

from alpha_matrix.console import Console, clean, progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rclpy_severity_becomes_a_label_only_where_it_says_something() -> None:
    assert clean("INFO run r1: 3 episodes\n") == "run r1: 3 episodes"
    assert clean("WARN commit waits for /safety/summary\n") == "warning: commit waits for /safety/summary"
    assert clean("ERROR arm llm: Ollama not reachable\n") == "error: arm llm: Ollama not reachable"
    assert clean("episode_runner: error: bad\n") == "episode_runner: error: bad"  # a plain print is kept
    assert clean("INFORMATION is not a severity\n") == "INFORMATION is not a severity"


def test_pybullet_banner_is_dropped_and_nothing_else() -> None:
    assert clean("pybullet build time: Jan 29 2025 23:17:20\n") is None
    assert clean("the pybullet build time: is data here\n") is not None
    assert clean("\n") == ""


def test_progress_lines_of_a_job() -> None:
    assert progress("[3/75] oracle-0002 ok   error 0.02 mm") == (3, 75)
    assert progress("[alerts] 3/75") is None
    assert progress("run r1 -> runs/r1/episodes.jsonl") is None


def test_no_bar_without_a_terminal() -> None:
    out = io.StringIO()
    console = Console(out)
    console.advance("episode_runner", 1, 3)
    console.write("[episode_runner] [1/3] oracle-0000 ok\n")
    console.close()
    assert out.getvalue() == "[episode_runner] [1/3] oracle-0000 ok\n"


def test_bar_on_a_terminal_counts_what_the_job_reported() -> None:
    out = Terminal()
    console = Console(out)
    console.advance("episode_runner", 5, 8)  # resumed: four were recorded before
    assert console.bars["episode_runner"].n == 5
    console.write("[episode_runner] [5/8] oracle-0004 ok\n")
    console.advance("episode_runner", 6, 8)
    assert console.bars["episode_runner"].n == 6
    console.close()
    assert not console.bars
    assert "[episode_runner] [5/8] oracle-0004 ok" in out.getvalue()
    assert "6/8" in out.getvalue()


def test_a_command_importing_pybullet_prints_no_banner() -> None:
    def output(code: str) -> str:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    assert "pybullet build time" in output("import pybullet; print('ok')")  # what it keeps out
    assert output("from alpha_matrix.console import import_pybullet_quietly as q; q(); print('ok')") == "ok\n"


def test_report_loads_pybullet_for_a_suite_run_only_and_quietly(tmp_path) -> None:  # noqa: ANN001
    runs = Path(__file__).resolve().parents[1] / "bags" / "runs"
    code = (
        "import sys; from alpha_matrix.cli import main; main(['report', sys.argv[1]]); print('pybullet' in sys.modules)"
    )
    for run, loads in (("matrix-pre-layout", "False"), ("alerts-pre-layout", "True")):
        shutil.copytree(runs / run, tmp_path / run)
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / run)], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [f"report: {tmp_path / run / 'report.md'} (and report.html, plots/)", loads]
        assert "pybullet build time" not in done.stderr
