"""What the command line checks before any graph starts, once, one line, exit 2 (issue 47, findings
4 and 7): the llm arm's backend and model, a scenario file of another suite, a --set name with a
typo; and what the README and the shipped config say (run-id characters, the seven suites, the
ros2 recipes, no citations of documents the repository does not have)."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

import alpha_matrix.launcher as launcher
from alpha_matrix.cli import build_parser, main
from alpha_matrix.core.names import RULE
from alpha_matrix.core.suites.registry import SUITE_NAMES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.fixture
def no_graph(monkeypatch):
    """Any attempt to start a graph fails the test: every check here comes before one."""

    def never(*_a, **_k):
        raise AssertionError("a graph was started")

    for name in ("run_graphs", "run_graph", "guarded"):
        monkeypatch.setattr(launcher, name, never)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in err if line.startswith("alpha-matrix: error:")]
    assert len(errors) == 1 and "Traceback" not in "\n".join(err), err
    return errors[0]


def test_a_named_model_with_no_ollama_daemon_is_refused_not_the_embedded_one(tmp_path, no_graph, capsys):
    host = f"http://127.0.0.1:{_closed_port()}"
    base = ["run", "--arms", "oracle,llm:qwen2.5:7b", "--episodes", "1", "--runs-dir", str(tmp_path)]
    assert main([*base, "--set", f"llm_planner.ollama_host={host}"]) == 2  # --llm-backend auto
    line = _one_line_error(capsys)
    assert "no Ollama daemon answered" in line and "cannot serve qwen2.5:7b" in line and "--llm-backend" in line
    assert main([*base, "--llm-backend", "llamacpp"]) == 2
    assert "--llm-backend llamacpp cannot serve a named model" in _one_line_error(capsys)
    assert not any(tmp_path.iterdir())


def test_an_unreachable_ollama_is_one_line_before_start(tmp_path, no_graph, capsys):
    host = f"http://127.0.0.1:{_closed_port()}"
    argv = ["run", "--arms", "oracle,llm", "--llm-backend", "ollama", "--episodes", "1", "--runs-dir", str(tmp_path)]
    assert main([*argv, "--set", f"llm_planner.ollama_host={host}"]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("alpha-matrix: error: arm llm: Ollama not reachable at") and "nothing was started" in line


def test_a_model_the_daemon_has_not_pulled_is_one_line_before_start(tmp_path, no_graph, capsys, ollama_server):
    argv = ["run", "--arms", "oracle,llm:nope", "--llm-backend", "ollama", "--episodes", "1"]
    assert main([*argv, "--runs-dir", str(tmp_path), "--set", f"llm_planner.ollama_host={ollama_server.host}"]) == 2
    line = _one_line_error(capsys)
    assert "arm llm:nope: model 'nope' is not pulled" in line
    assert not any(path == "/api/chat" for _m, path, _b in ollama_server.state.requests)


def test_a_scenario_file_of_another_suite_names_that_suite(tmp_path, no_graph, capsys):
    hazards = ROOT / "config" / "scenarios" / "hazards_short.yaml"
    assert main(["suite", "alerts", "--scenarios", str(hazards), "--runs-dir", str(tmp_path)]) == 2
    line = _one_line_error(capsys)
    assert "a scenario file of the hazards suite, not of alerts" in line
    assert f"alpha-matrix suite hazards --scenarios {hazards}" in line and "_ScenarioFile" not in line


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            "sim_bridge.realtim=true",
            "--set sim_bridge.realtim: sim_bridge has no parameter 'realtim' (did you mean realtime?)",
        ),
        (
            "sim_bridg.realtime=true",
            "--set sim_bridg.realtime: no node 'sim_bridg' in graph.yaml (did you mean sim_bridge?)",
        ),
    ],
)
def test_a_set_with_a_typo_suggests_the_near_name(item, expected, capsys):
    assert main(["graph", "--set", item]) == 2
    line = _one_line_error(capsys)
    assert expected in line and "params.yaml" not in line


def test_a_suite_set_with_a_typo_suggests_the_near_name(capsys):
    assert main(["suite", "alerts", "--set", "alert_guard.polcy=x"]) == 2
    assert "alert_guard has no parameter 'polcy'" in _one_line_error(capsys)


# ----------------------------------------------------------------------------- README and shipped config
def _help(command: str, option: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    action = next(a for a in sub.choices[command]._actions if option in a.option_strings)
    return str(action.help)


def test_run_id_characters_agree_between_help_readme_and_code():
    assert "[A-Za-z0-9._+-]" in RULE
    for command in ("run", "suite"):
        assert RULE in _help(command, "--run-id")
    assert "`[A-Za-z0-9._+-]`, starting with a letter or digit" in README
    for launch_file in ("alpha_matrix.launch.py", "suite.launch.py"):
        assert "[A-Za-z0-9._-]" not in (ROOT / "launch" / launch_file).read_text()


def test_the_readme_command_line_lists_every_suite():
    section = README.split("## The command line", 1)[1].split("\n## ", 1)[0]
    listed = re.search(r"alpha-matrix suite ([a-z|]+)", section)
    assert listed is not None and set(listed.group(1).split("|")) == set(SUITE_NAMES)
    assert "All three\nnow also run" not in README and "All seven\nnow also run" in README


def test_readme_ros2_commands_discover_long_enough_and_leave_no_daemon():
    block = README.split("Watch a running graph from another terminal", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split(".venv/bin/ros2 ", 1)[1] for line in block.splitlines() if ".venv/bin/ros2 " in line]
    for command in commands:
        verb = " ".join(command.split()[:2])
        if verb in ("node list", "topic list", "topic echo", "param get"):  # the verbs that start a daemon
            assert "--no-daemon" in command, command
        if verb in ("node list", "topic list"):
            assert "--spin-time 3" in command, command


def test_shipped_config_cites_no_document_the_repository_lacks():
    cited = []
    for path in sorted((ROOT / "config").rglob("*.yaml")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "DESIGN §" in line or "seed 003" in line:
                cited.append(f"{path.relative_to(ROOT)}:{n}")
    assert not cited
