import shutil
from pathlib import Path

import pytest
import yaml

from alpha_matrix.cli import main as cli_main
from alpha_matrix.core.errors import ConfigError, GraphError
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.launcher import discard_unrecorded, node_command, unmade_dirs

CONFIG = Path(__file__).resolve().parents[2] / "config"


@pytest.fixture
def cfg(tmp_path):
    d = tmp_path / "config"
    shutil.copytree(CONFIG, d)
    return d


def test_shipped_graph_resolves():
    g = resolve_graph(CONFIG)
    assert [n.name for n in g.nodes] == [
        "sim_bridge",
        "safety_monitor",
        "recorder",
        "scene_markers",
        "chaos",
        "oracle",
        "executive",
        "episode_runner",
    ]
    assert g.node("episode_runner").role == "job" and g.node("recorder").stop_last
    assert g.node("episode_runner").parameters["config_hash"] == g.config_hash
    # records and bag share one run id, derived from the config when not given
    assert g.node("episode_runner").parameters["run_id"] == g.node("recorder").parameters["run_id"] == g.run_id
    assert g.run_id == f"oracle-{g.config_hash[:12]}"


def test_the_recorder_knows_the_nodes_it_must_discover_before_it_is_ready():
    g = resolve_graph(CONFIG, exclude=("chaos",))
    assert g.node("recorder").parameters["graph_nodes"] == [n.name for n in g.nodes if n.name != "recorder"]
    assert "chaos" not in g.node("recorder").parameters["graph_nodes"]
    agent = resolve_graph(CONFIG, {"/**": {"agent": "reference"}}, graph_file="graph_confidence.yaml")
    assert "agent" in agent.node("recorder").parameters["graph_nodes"]
    # the list follows from the nodes, which are hashed already; it does not change the hash
    assert resolve_graph(CONFIG, {"recorder": {"graph_nodes": ["x"]}}).config_hash == resolve_graph(CONFIG).config_hash


def test_the_recorder_acks_as_sparsely_as_the_bridge_window_allows():
    g = resolve_graph(CONFIG)
    assert g.node("recorder").parameters["ack_every_steps"] == 192  # flow window 768, batches up to 192
    wide = resolve_graph(CONFIG, {"sim_bridge": {"flow_window_steps": 384}}, exclude=("chaos",))
    assert wide.node("recorder").parameters["ack_every_steps"] == 2  # 384 - 2 * 192 + 2: every calm batch
    matrix = resolve_graph(CONFIG, {"sim_bridge": {"flow_window_steps": 384}, "episode_runner": {"matrix": True}})
    assert matrix.node("recorder").parameters["ack_every_steps"] == 96  # batches of 16 while chaos serves F1
    unscreened = resolve_graph(CONFIG, {"sim_bridge": {"flow_window_steps": 64, "screened_consumers": []}})
    assert unscreened.node("recorder").parameters["ack_every_steps"] == 16  # batches of 16
    held = resolve_graph(CONFIG, {"sim_bridge": {"flow_consumers": []}})  # gated within L: every batch
    assert held.node("recorder").parameters["ack_every_steps"] == 1
    # set from the bridge's hashed parameters, never by hand: it does not change the hash
    assert (
        resolve_graph(CONFIG, {"recorder": {"ack_every_steps": 5}}).node("recorder").parameters["ack_every_steps"]
        == 192
    )
    assert resolve_graph(CONFIG, {"recorder": {"ack_every_steps": 5}}).config_hash == g.config_hash


def test_batches_stay_short_while_the_chaos_node_may_serve_f1_from_its_pose_history():
    from alpha_matrix.core.robot.params import SimBridgeParams

    def calm(overrides: dict | None = None, exclude: tuple[str, ...] = ()) -> int | None:
        graph = resolve_graph(CONFIG, overrides, exclude=exclude)
        return SimBridgeParams.model_validate(graph.node("sim_bridge").parameters).calm_steps()

    # F1 serves observations from batch-end poses: the matrix has F1 cells, and so may a graph
    # without a runner (whoever drives it may configure the chaos node)
    for overrides, exclude in (
        ({"episode_runner": {"matrix": True}}, ()),
        ({"episode_runner": {"fault": "F1+F2"}}, ()),
        (None, ("episode_runner",)),
    ):
        assert calm(overrides, exclude) is None
    assert resolve_graph(CONFIG, exclude=("episode_runner",)).node("sim_bridge").parameters["history_consumers"] == [
        "chaos"
    ]
    assert calm() == 192 and calm({"episode_runner": {"fault": "F3"}}) == 192  # no F1 in the run
    assert calm(exclude=("chaos", "episode_runner")) == 192  # --no-faults, the benchmark's graph
    assert calm(exclude=("chaos", "safety_monitor")) is None  # nothing screened
    # a flow window too short for calm batches fails when the graph is resolved, not at the bridge's start
    with pytest.raises(ConfigError, match="2 \\* calm_batch_steps - 1"):
        resolve_graph(CONFIG, {"sim_bridge": {"flow_window_steps": 300}}, exclude=("chaos",))
    assert calm({"sim_bridge": {"flow_window_steps": 300}, "episode_runner": {"matrix": True}}) is None


def test_the_bridge_screens_with_the_monitors_own_contact_threshold():
    bridge = resolve_graph(CONFIG, {"safety_monitor": {"contact_threshold": 12.5}}).node("sim_bridge").parameters
    assert bridge["screened_consumers"] == ["safety_monitor"] and bridge["screen_contact_threshold"] == 12.5
    # set from the monitor's parameter, never by hand
    forced = resolve_graph(CONFIG, {"sim_bridge": {"screen_contact_threshold": 500.0}}).node("sim_bridge")
    assert forced.parameters["screen_contact_threshold"] == 47.5
    # a monitor out of the graph, or running on its own (its threshold unknown here), is not screened
    for other in (
        resolve_graph(CONFIG, exclude=("safety_monitor",)),
        resolve_graph(CONFIG, external=("safety_monitor",)),
    ):
        assert other.node("sim_bridge").parameters["screened_consumers"] == []
    with pytest.raises(ConfigError, match="recorder is not a safety monitor"):
        resolve_graph(CONFIG, {"sim_bridge": {"screened_consumers": ["recorder"], "flow_consumers": []}})


def test_chaos_intercepts_only_while_present():
    with_chaos = resolve_graph(CONFIG)
    assert ("robot/move_to", "chaos/move_to") in with_chaos.node("executive").remappings
    assert ("planner/get_plan_text", "chaos/get_plan_text") in with_chaos.node("episode_runner").remappings
    without = resolve_graph(CONFIG, {"episode_runner": {"chaos": False}}, exclude=("chaos",))
    assert without.node("executive").remappings == () and without.node("episode_runner").remappings == ()


def test_hash_ignores_bookkeeping_but_not_behaviour():
    base = resolve_graph(CONFIG).config_hash
    assert resolve_graph(CONFIG, {"episode_runner": {"episodes": 3, "run_id": "x"}}).config_hash == base
    assert resolve_graph(CONFIG, {"sim_bridge": {"batch_steps": 8}}).config_hash != base


def test_unknown_param_key(cfg):
    p = cfg / "params.yaml"
    p.write_text(p.read_text().replace("batch_steps:", "batch_stepz:"))
    with pytest.raises(ConfigError, match=r"params.yaml: sim_bridge: batch_stepz: unknown parameter"):
        resolve_graph(cfg)


def test_unknown_graph_key(cfg):
    g = cfg / "graph.yaml"
    g.write_text(g.read_text() + "colour: red\n")
    with pytest.raises(ConfigError, match="graph.yaml: colour: unknown key"):
        resolve_graph(cfg)


def test_malformed_yaml(cfg):
    (cfg / "params.yaml").write_text("sim_bridge:\n  ros__parameters: [1,\n")
    with pytest.raises(ConfigError, match=r"malformed YAML at line \d+"):
        resolve_graph(cfg)


def test_bad_value_range():
    with pytest.raises(ConfigError, match=r"reaction_latency_steps=0: Input should be greater than or equal to 1"):
        resolve_graph(CONFIG, {"/**": {"reaction_latency_steps": 0}})


def test_a_shared_value_reaches_every_node_that_has_it_and_is_set_once():
    g = resolve_graph(CONFIG, {"/**": {"reaction_latency_steps": 48}}, graph_file="graph_alerts.yaml")
    have = {n.name: n.parameters["reaction_latency_steps"] for n in g.nodes if "reaction_latency_steps" in n.parameters}
    assert have == {"sim_bridge": 48, "alert_guard": 48, "alert_executive": 48}
    with pytest.raises(ConfigError, match=r"--set alert_guard.reaction_latency_steps: .* set once for the graph"):
        resolve_graph(CONFIG, {"alert_guard": {"reaction_latency_steps": 12}}, graph_file="graph_alerts.yaml")


def test_a_node_section_may_not_repeat_a_shared_value(cfg):
    p = cfg / "params.yaml"
    p.write_text(p.read_text().replace("    batch_steps: 16", "    batch_steps: 16\n    reaction_latency_steps: 24", 1))
    with pytest.raises(ConfigError, match=r"params.yaml: sim_bridge: reaction_latency_steps is set once for the graph"):
        resolve_graph(cfg)


def test_a_shared_value_no_node_has_is_an_error():
    with pytest.raises(ConfigError, match=r"/\*\*: colour: no node of the graph has this parameter"):
        resolve_graph(CONFIG, {"/**": {"colour": "red"}})


def test_unknown_executable(cfg):
    g = cfg / "graph.yaml"
    g.write_text(g.read_text().replace("executable: oracle", "executable: orakel"))
    with pytest.raises(ConfigError, match="unknown node executable 'orakel'"):
        resolve_graph(cfg)


def test_exclude_and_remap_reach_the_command_line(cfg):
    g = cfg / "graph.yaml"
    g.write_text(
        g.read_text().replace(
            "executable: executive\n", "executable: executive\n    remappings: {robot/move_to: chaos/move_to}\n"
        )
    )
    graph = resolve_graph(cfg, {"episode_runner": {"chaos": False}}, exclude=("episode_runner", "chaos"))
    assert "episode_runner" not in [n.name for n in graph.nodes]
    cmd = node_command(graph.node("executive"), Path("p.yaml"))
    assert cmd[-2:] == ["-r", "robot/move_to:=chaos/move_to"]


def test_cli_bad_input_is_one_line(cfg, capsys):
    (cfg / "params.yaml").write_text("oracle: {ros__parameters: {nope: 1}}\n")
    assert cli_main(["--config", str(cfg), "run", "--episodes", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("alpha-matrix: error:") and "nope: unknown parameter" in err[0]


def test_cli_bad_set(capsys):
    assert cli_main(["--set", "nodot=1", "graph"]) == 2
    assert "expected NODE.PARAM=VALUE" in capsys.readouterr().err


def test_missing_interface_build_is_named(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "alpha_matrix_interfaces" else real(name, *a)
    )
    assert cli_main(["run", "--episodes", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "alpha-matrix: error: alpha_matrix_interfaces is not built: run scripts/setup.sh "
        "(or colcon build and source install/setup.bash)"
    )


def test_a_suite_config_file_is_hashed_by_content_not_by_path(tmp_path):
    import shutil

    moved = tmp_path / "elsewhere"
    shutil.copytree(CONFIG, moved)
    here = resolve_graph(CONFIG, graph_file="graph_alerts.yaml")
    there = resolve_graph(
        moved, {"alert_guard": {"alerts_file": str(moved / "alerts.yaml")}}, graph_file="graph_alerts.yaml"
    )
    assert here.config_hash == there.config_hash
    (moved / "alerts.yaml").write_text((moved / "alerts.yaml").read_text() + "\n# changed\n")
    changed = resolve_graph(
        moved, {"alert_guard": {"alerts_file": str(moved / "alerts.yaml")}}, graph_file="graph_alerts.yaml"
    )
    assert changed.config_hash != here.config_hash


def test_a_driver_of_another_package_is_named_by_package_and_started_from_the_ament_index(cfg):
    g = cfg / "graph.yaml"
    g.write_text(g.read_text().replace("executable: sim_bridge", "executable: panda_driver\n    package: my_robot"))
    p = cfg / "params.yaml"
    p.write_text(p.read_text() + "\nsim_bridge:\n  ros__parameters: {ip: 10.0.0.2, rate_hz: 1000}\n")
    graph = resolve_graph(cfg)
    spec = graph.node("sim_bridge")
    assert (spec.package, spec.executable, spec.module) == ("my_robot", "panda_driver", "")
    assert spec.parameters["ip"] == "10.0.0.2"  # another package's parameters pass unchecked
    assert graph.config_hash != resolve_graph(CONFIG).config_hash
    with pytest.raises(GraphError, match="package 'my_robot' not found in the ament index"):
        node_command(spec, cfg / "params.yaml")


def test_an_external_node_is_in_the_graph_and_its_hash_but_never_started(cfg):
    graph = resolve_graph(cfg, external=("sim_bridge",))
    assert graph.node("sim_bridge").external and not graph.node("oracle").external
    assert graph.config_hash != resolve_graph(cfg).config_hash  # a run against your driver is another run
    with pytest.raises(ConfigError, match="--external sim_brige: no node of that name"):
        resolve_graph(cfg, external=("sim_brige",))


def test_graph_is_the_dry_run_of_run_with_the_same_options(capsys):
    assert cli_main(["graph", "--episodes", "3", "--arms", "oracle,oracle-text", "--run-id", "dry"]) == 0
    out = capsys.readouterr().out
    assert "run id: dry" in out and "episodes: 3" in out and "arms: ['oracle', 'oracle-text']" in out
    assert cli_main(["graph", "--workers", "2", "--run-id", "dry"]) == 0
    out = capsys.readouterr().out
    assert "worker 1 of 2: run id: dry" in out and "run_id: 'dry/worker-1'" in out
    assert cli_main(["graph", "--fault", "F9"]) == 2
    assert "unknown fault 'F9'" in capsys.readouterr().err


def test_config_and_set_after_the_command_are_the_same_as_before_it(cfg, capsys):
    assert cli_main(["--config", str(cfg), "--set", "episode_runner.episodes=7", "graph"]) == 0
    before = capsys.readouterr().out
    assert cli_main(["graph", "--config", str(cfg), "--set", "episode_runner.episodes=7"]) == 0
    assert capsys.readouterr().out == before and "episodes: 7" in before
    with pytest.raises(SystemExit):
        cli_main(["run", "--help"])
    shown = capsys.readouterr().out
    assert "--config DIR" in shown and "--set NODE.PARAM=VALUE" in shown


def test_a_failed_run_that_recorded_nothing_leaves_no_directories(tmp_path):
    graph = resolve_graph(
        None, {"episode_runner": {"runs_dir": str(tmp_path / "runs")}, "recorder": {"bags_dir": str(tmp_path / "bags")}}
    )
    made = unmade_dirs(graph)
    assert {p.parent.name for p in made} == {"runs", "bags"}
    for d in made:  # what the failed graph wrote before it failed: a bag, a manifest
        d.mkdir(parents=True)
        (d / "something").write_text("x")
    assert discard_unrecorded(made, tmp_path / "runs" / graph.run_id) == made
    assert not any(d.exists() for d in made)


def test_a_run_that_recorded_anything_or_was_there_before_is_kept(tmp_path):
    graph = resolve_graph(
        None, {"episode_runner": {"runs_dir": str(tmp_path / "runs")}, "recorder": {"bags_dir": str(tmp_path / "bags")}}
    )
    made = unmade_dirs(graph)
    for d in made:
        d.mkdir(parents=True)
    run_dir = tmp_path / "runs" / graph.run_id
    (run_dir / "episodes.jsonl").write_text('{"episode_id": "x"}\n')
    assert discard_unrecorded(made, run_dir) == []
    assert all(d.exists() for d in made)
    (run_dir / "episodes.jsonl").write_text("")
    bag = tmp_path / "bags" / graph.run_id
    steps = {"topic_metadata": {"name": "/robot/step_batch"}, "message_count": 3}
    info = {"relative_file_paths": ["x_0.mcap"], "topics_with_message_count": [steps]}
    (bag / "metadata.yaml").write_text(yaml.safe_dump({"rosbag2_bagfile_information": info}))
    assert discard_unrecorded(made, run_dir) == []  # a bag of robot steps is evidence, records or not
    steps["message_count"] = 0
    (bag / "metadata.yaml").write_text(yaml.safe_dump({"rosbag2_bagfile_information": info}))
    (bag / ".split-0001").mkdir()  # a split left open: it may hold steps
    assert discard_unrecorded(made, run_dir) == []
    (bag / ".split-0001").rmdir()
    assert unmade_dirs(graph) == [] and discard_unrecorded(unmade_dirs(graph), run_dir) == []  # resumed: not made
    assert all(d.exists() for d in made)
    assert discard_unrecorded(made, run_dir) == made  # no record, no step: a failed start, removed


def test_flow_window_params_are_checked():
    import pytest

    from alpha_matrix.core.robot.params import SimBridgeParams

    p = SimBridgeParams(gating_consumers=["safety_monitor", "recorder"], flow_consumers=["recorder", "gone"])
    assert p.gate_windows() == {"recorder": 192}  # a flow consumer that does not gate is ignored
    with pytest.raises(ValueError, match="at least reaction_latency_steps"):
        SimBridgeParams(gating_consumers=["recorder"], flow_consumers=["recorder"], flow_window_steps=8)
    with pytest.raises(ValueError, match="spans more than 127 batches of 1 steps"):
        SimBridgeParams(gating_consumers=["recorder"], flow_consumers=["recorder"], batch_steps=1)


def test_ros2_launch_gets_every_parameter_but_the_empty_lists_it_cannot_type():
    import dataclasses

    from alpha_matrix.core.resolve import launch_parameters

    bridge = resolve_graph(CONFIG).node("sim_bridge")  # no F1 in the run: no history consumer
    assert bridge.parameters["history_consumers"] == []
    params = launch_parameters(bridge)
    assert "history_consumers" not in params and params["screened_consumers"] == ["safety_monitor"]
    assert {k: v for k, v in bridge.parameters.items() if v != []} == params
    runner = resolve_graph(CONFIG).node("episode_runner")
    with pytest.raises(ConfigError, match="arms: an empty list cannot go through ros2 launch"):
        launch_parameters(dataclasses.replace(runner, parameters={**runner.parameters, "arms": []}))
    other = dataclasses.replace(bridge, package="my_robot")  # another package's node: passed as it is
    assert launch_parameters(other) == bridge.parameters


def test_every_wait_behind_a_decision_follows_from_the_agents_deadline():
    from alpha_matrix.core.config import DECIDE_MARGIN_S

    g = resolve_graph(
        graph_file="graph_alerts.yaml",
        overrides={"/**": {"agent": "openai:m"}, "agent": {"decide_timeout_s": 90.0}},
    )
    wait = 90.0 + DECIDE_MARGIN_S
    assert g.node("agent").parameters["decide_timeout_s"] == 90.0
    assert g.node("alert_guard").parameters["decide_timeout_s"] == wait  # asks the agent itself
    assert g.node("alert_executive").parameters["agent_wait_s"] == wait  # its commands wait behind the guard
    assert g.node("suite_runner").parameters["agent_wait_s"] == wait
    for suite in ("proximity", "refusal", "hazards", "gauge", "ambiguity", "confidence"):
        graph = resolve_graph(graph_file=f"graph_{suite}.yaml", overrides={"/**": {"agent": "reference"}})
        waits = {n.name: n.parameters.get("decide_timeout_s", n.parameters.get("agent_wait_s")) for n in graph.nodes}
        deadline = graph.node("agent").parameters["decide_timeout_s"]
        assert {v for k, v in waits.items() if v is not None and k != "agent"} == {deadline + DECIDE_MARGIN_S}, suite
    plain = resolve_graph(graph_file="graph_alerts.yaml")  # no agent: nothing waits on one
    assert plain.node("alert_executive").parameters["agent_wait_s"] == 0.0


def test_a_wait_derived_from_the_agent_is_not_set_by_hand():
    for node, key in (("alert_guard", "decide_timeout_s"), ("suite_runner", "agent_wait_s")):
        with pytest.raises(ConfigError, match=f"{node}.{key} follows from the agent's deadline: set agent.decide"):
            resolve_graph(graph_file="graph_alerts.yaml", overrides={"/**": {"agent": "reference"}, node: {key: 5.0}})
