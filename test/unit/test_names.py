"""Run ids are names, never paths: hostile ids are refused wherever they enter."""

from __future__ import annotations

import pytest

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.cells import default_run_id
from alpha_matrix.core.names import (
    RUN_ID_MAX,
    bag_name_problem,
    check_run_id,
    is_run_id,
    name_part,
    worker_bag_name,
)
from alpha_matrix.core.node_params import validate_params

GOOD = ["t", "a", "run-1", "oracle-0123abcdef12", "x.y_z-1", "A" * RUN_ID_MAX, "1", "a..b"]
HOSTILE = [
    "",
    ".",
    "..",
    "../x",
    "../../etc/evil",
    "a/../b",
    "a/b",
    "/etc/passwd",
    "/",
    "a\\b",
    "a\x00b",
    "a\nb",
    "a\n",
    "a\r",
    "a b",
    " a",
    "-rf",
    ".hidden",
    "_x",
    "~",
    "~root",
    "$HOME",
    "a*",
    "A" * (RUN_ID_MAX + 1),
    "ｒｕｎ",  # fullwidth letters
    "run\u2044x",  # fraction slash
    "run\u2215x",  # division slash
    "\u2024\u2024",  # one-dot leaders (look like "..")
    "ru\u0301n",  # combining accent
    "run\u202e",  # right-to-left override
    "run\u200b",  # zero-width space
    "аbc",  # Cyrillic a
    "\u212a",  # Kelvin sign
]


@pytest.mark.parametrize("value", GOOD)
def test_names_are_accepted(value):
    assert is_run_id(value) and check_run_id(value) == value


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_ids_are_refused_in_one_line(value):
    assert not is_run_id(value)
    with pytest.raises(ConfigError) as err:
        check_run_id(value, "--run-id")
    msg = str(err.value)
    assert msg.startswith("--run-id: ") and "\n" not in msg and "\x00" not in msg and len(msg) < 250


@pytest.mark.parametrize("value", [None, 3, b"abc", ["a"]])
def test_non_strings_are_refused(value):
    assert not is_run_id(value)


def test_worker_bags_are_a_run_id_and_a_worker():
    assert worker_bag_name("run-1", 3) == "run-1/worker-3"
    assert bag_name_problem("run-1/worker-3") is None and bag_name_problem("run-1") is None
    for bad in (
        "../worker-1",
        "../x/worker-1",
        "a/worker-1/..",
        "a/worker-x",
        "a/worker-01",
        "a/b/worker-1",
        "/worker-1",
    ):
        assert bag_name_problem(bad) is not None, bad
    with pytest.raises(ConfigError):
        worker_bag_name("../x", 0)


@pytest.mark.parametrize(
    ("executable", "value"), [("episode_runner", "../x"), ("suite_runner", "/abs"), ("recorder", "a/../../b")]
)
def test_params_refuse_a_path_as_run_id(executable, value):
    """`--set NODE.run_id=../x` and `ros2 launch ... run_id:=../x` end here: one line."""
    with pytest.raises(ConfigError) as err:
        validate_params(executable, {"run_id": value}, "params.yaml")
    assert str(err.value).startswith("params.yaml: run_id: run id ") and "not a path" in str(err.value)


@pytest.mark.parametrize("executable", ["episode_runner", "suite_runner", "recorder"])
def test_params_take_empty_and_names(executable):
    for value in ("", "t", "oracle-abc123"):
        assert validate_params(executable, {"run_id": value}, "p").run_id == value


def test_only_the_recorder_takes_a_worker_bag():
    assert validate_params("recorder", {"run_id": "r/worker-1"}, "p").run_id == "r/worker-1"
    with pytest.raises(ConfigError):
        validate_params("episode_runner", {"run_id": "r/worker-1"}, "p")


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--run-id", "../../etc/evil"],
        ["run", "--set", "episode_runner.run_id=../x"],
        ["run", "--set", "recorder.run_id=/tmp/x"],
        ["run", "--domain-id", "150"],
        ["launch", "--domain-id", "102"],
        ["suite", "alerts", "--run-id", "../x"],
        ["suite", "alerts", "--domain-id", "232"],
    ],
)
def test_the_cli_refuses_before_anything_is_written(argv, tmp_path, monkeypatch, capsys):
    from alpha_matrix.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("alpha-matrix: error: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_the_recorders_records_run_id_is_a_name():
    assert validate_params("recorder", {"records_run_id": "r"}, "p").records_run_id == "r"
    with pytest.raises(ConfigError, match="not a path"):
        validate_params("recorder", {"records_run_id": "../r"}, "p")


def test_the_default_run_ids_are_run_ids():
    assert is_run_id(default_run_id(["oracle", "oracle-text"], "0" * 64))
    assert default_run_id(["oracle", "llm:qwen2.5:7b"], "0" * 64) == "oracle+llm-qwen2.5-7b-000000000000"
    assert is_run_id(default_run_id([f"llm:{'m' * 120}-{i}" for i in range(5)], "0" * 64))


@pytest.mark.parametrize("stem", ["my scenarios", "../x", "ümlaut-ß", "...", "a" * 300])
def test_a_file_stem_becomes_part_of_a_run_id(stem):
    assert is_run_id(f"alerts-{name_part(stem)}-0123456789ab")
