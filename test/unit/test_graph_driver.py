"""--driver: the graph description's `drivers` alternative in place of the simulated bridge, what
follows from it (the runner's step budget, the driver path every record names), and records that
stay as they were on the simulated path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from alpha_matrix.cli.common import check_set_names
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.core.records import OutcomeRecord, Provenance
from alpha_matrix.core.resolve import resolve_graph


def test_ros2_control_swaps_the_bridge_for_the_adapter_under_the_same_name() -> None:
    sim, arm = resolve_graph(), resolve_graph(driver="ros2_control")
    bridge = arm.node("sim_bridge")
    assert bridge.executable == "arm_adapter" and bridge.module == "alpha_matrix.nodes.arm_adapter"
    assert "gating_consumers" not in bridge.parameters  # the simulated bridge's settings stay with it
    assert bridge.parameters["batch_steps"] == sim.node("sim_bridge").parameters["batch_steps"]  # shared keys carry
    runner = arm.node("episode_runner").parameters
    assert (runner["step_budget"], runner["driver"]) == (2400, "arm_adapter")
    assert (sim.node("episode_runner").parameters["step_budget"], sim.node("episode_runner").parameters["driver"]) == (
        1260,
        "",
    )
    assert arm.config_hash != sim.config_hash  # a run on the arm never resumes one in simulation
    assert resolve_graph(driver="sim").config_hash == sim.config_hash


def test_the_suite_graph_swaps_too_and_its_runner_names_the_driver() -> None:
    g = resolve_graph(graph_file="graph_alerts.yaml", driver="ros2_control")
    assert g.node("sim_bridge").executable == "arm_adapter"
    assert g.node("sim_bridge").parameters["max_episode_steps"] == 20000  # the suite's budget carries over
    assert g.node("suite_runner").parameters["driver"] == "arm_adapter"
    assert resolve_graph(external=("sim_bridge",)).node("episode_runner").parameters["driver"] == "external"


def test_a_driver_the_graph_has_no_node_for_is_one_line_with_the_choices() -> None:
    with pytest.raises(
        ConfigError, match=r"--driver ur5: graph.yaml has no node for it \(choices: sim, ros2_control\)"
    ):
        resolve_graph(driver="ur5")
    with pytest.raises(ConfigError, match="no node for it"):
        resolve_graph(graph_file="graph_hazards.yaml", driver="ros2_control")


def test_derived_values_are_refused_on_the_runner() -> None:
    with pytest.raises(ConfigError, match="step_budget follows from the graph's driver"):
        resolve_graph(overrides={"episode_runner": {"step_budget": 5000}})


def test_set_names_are_checked_against_the_chosen_driver() -> None:
    check_set_names(["sim_bridge.controller=my_jtc"], None, driver="ros2_control")
    with pytest.raises(ConfigError, match="sim_bridge has no parameter 'controller'"):
        check_set_names(["sim_bridge.controller=my_jtc"], None)
    with pytest.raises(ConfigError, match="has no parameter 'calm_batch_steps'"):
        check_set_names(["sim_bridge.calm_batch_steps=8"], None, driver="ros2_control")


def test_unset_fields_stay_out_of_records_so_older_records_keep_their_hashes() -> None:
    o = OutcomeRecord(success=True, placement_error=0.0, steps_used=1260, reason="")
    assert "step_budget" not in o.model_dump(mode="json")
    assert OutcomeRecord(**o.model_dump(), step_budget=2400).model_dump(mode="json")["step_budget"] == 2400
    p = Provenance(code_revision="x", code_dirty=False, config_hash="h", packages={}, python="3.11")
    assert "driver" not in p.model_dump(mode="json")
    assert Provenance(**p.model_dump(), driver="arm_adapter").model_dump(mode="json")["driver"] == "arm_adapter"


def test_a_bad_value_from_set_is_blamed_on_the_set_not_the_params_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--set sim_bridge.depth_encoding=16UC2: String should match"):
        resolve_graph(overrides={"sim_bridge": {"depth_encoding": "16UC2"}}, graph_file="graph_proximity.yaml")
    config = tmp_path / "config"
    shutil.copytree(default_config_dir(), config)
    params = config / "params.yaml"
    params.write_text(params.read_text().replace("    batch_steps: 16\n", "    batch_steps: 0\n", 1))
    with pytest.raises(ConfigError, match=r"params.yaml: sim_bridge: batch_steps"):  # a file's own value names the file
        resolve_graph(config, overrides={"sim_bridge": {"realtime": True}})
