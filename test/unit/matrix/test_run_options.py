"""Run options: the command line and `ros2 launch` arguments become the same overrides."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from alpha_matrix.cli.launch_args import LIVE_ARGUMENTS
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.run_options import RunOptions, run_overrides

LAUNCH_FILE = Path(__file__).resolve().parents[3] / "launch" / "alpha_matrix.launch.py"


def test_launch_text_and_cli_values_give_the_same_overrides():
    text = {"episodes": "5", "seed": " 7 ", "arms": "oracle,llm", "fault": "F1+F2", "intensity": "0.5",
            "run_id": "r1", "bags_dir": "/tmp/b", "llm_backend": "replay", "replay_from": "runs/x", "matrix": ""}  # fmt: skip
    cli = {"episodes": 5, "seed": 7, "arms": "oracle,llm", "fault": "F1+F2", "intensity": 0.5, "run_id": "r1",
           "bags_dir": "/tmp/b", "llm_backend": "replay", "replay_from": "runs/x", "matrix": False}  # fmt: skip
    launched = run_overrides(RunOptions.parse(text, style="launch"), style="launch")
    assert launched == run_overrides(RunOptions.parse(cli))
    overrides, exclude = launched
    assert exclude == ()
    assert overrides["episode_runner"] == {
        "run_id": "r1", "arms": ["oracle", "llm"], "episodes": 5, "master_seed": 7, "fault": "F1+F2", "intensity": 0.5,
    }  # fmt: skip
    assert overrides["recorder"] == {"bags_dir": "/tmp/b"}
    assert overrides["llm_planner"] == {"replay_from": "runs/x", "backend": "replay"}


def test_no_faults_leaves_the_chaos_node_out():
    overrides, exclude = run_overrides(RunOptions.parse({"no_faults": "true"}, style="launch"), style="launch")
    assert exclude == ("chaos",) and overrides["episode_runner"] == {"chaos": False}
    assert run_overrides(RunOptions.parse({})) == ({}, ())


@pytest.mark.parametrize(
    ("values", "style", "message"),
    [
        ({"episodes": "zero"}, "launch", "episodes:=zero: Input should be a valid integer"),
        ({"episodes": 0}, "cli", "--episodes '0': Input should be greater than or equal to 1"),
        ({"task_variant": "sideways"}, "launch", "task_variant:=sideways"),
        ({"colour": "red"}, "launch", "colour:=red: Extra inputs are not permitted"),
        ({"run_id": "../../etc"}, "launch", "run_id: run id '../../etc' is not a name"),
        ({"run_id": "../x"}, "cli", "--run-id: run id '../x' is not a name"),
        ({"matrix": "true", "no_faults": "true"}, "launch", "matrix needs the chaos node; drop no_faults"),
        ({"matrix": True, "no_faults": True}, "cli", "--matrix needs the chaos node; drop --no-faults"),
        ({"fault": "F2", "no_faults": True}, "cli", "--fault needs the chaos node; drop --no-faults"),
        ({"fault": "F9"}, "cli", "unknown fault 'F9'"),
        ({"intensity": "2"}, "launch", "intensity 2.0 is outside [0, 1]"),
    ],
)
def test_a_bad_option_is_one_line_naming_it_as_spelled(values, style, message):
    with pytest.raises(ConfigError) as err:
        run_overrides(RunOptions.parse(values, style=style), style=style)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_the_launch_file_declares_every_run_option():
    tree = ast.parse(LAUNCH_FILE.read_text())
    (arguments,) = [n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "ARGUMENTS"]
    keys = {ast.literal_eval(k) for k in arguments.keys if k is not None}  # type: ignore[attr-defined]
    if None in arguments.keys:  # type: ignore[attr-defined]  # **LIVE_ARGUMENTS: the live view's
        keys |= set(LIVE_ARGUMENTS)
    assert keys - set(RunOptions.model_fields) == {"config_dir", "external", "driver", "set", *LIVE_ARGUMENTS}
    assert set(RunOptions.model_fields) <= keys
