"""The live view's plain-Python side (core/live.py) and how --live / live:=true reach the graph."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from alpha_matrix.cli import main as cli_main
from alpha_matrix.cli.launch_args import live_launch_sets, run_launch_graph
from alpha_matrix.core.bag import make_typestore
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.live import (
    LiveParams,
    asset,
    check_port,
    latched,
    live_sets,
    plumbing,
    schema_text,
    served_topics,
    viewer_ready,
    wanted,
    watched_text,
    watching_line,
)
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.core.run_plan import config_view

CONFIG = Path(__file__).resolve().parents[2] / "config"
LIVE = {"foxglove_live": {"enabled": True}}


def test_every_topic_but_the_plumbing_by_default() -> None:
    discovered = [
        ("/rosout", ["rcl_interfaces/msg/Log"]),
        ("/parameter_events", ["rcl_interfaces/msg/ParameterEvent"]),
        ("/robot/step_ack", ["alpha_matrix_interfaces/msg/StepAck"]),
        ("/recorder/commits", ["alpha_matrix_interfaces/msg/BagCommit"]),
        ("/joint_states", ["sensor_msgs/msg/JointState"]),
        ("/camera/depth/image_raw", ["sensor_msgs/msg/Image"]),
        ("/robot/step_batch", ["alpha_matrix_interfaces/msg/StepBatch"]),
        ("/agent/decisions", ["alpha_matrix_interfaces/msg/AgentDecision"]),
        ("/twice", ["std_msgs/msg/String", "std_msgs/msg/Int32"]),  # no one schema: left out
    ]
    assert served_topics(discovered, []) == {
        "/agent/decisions": "alpha_matrix_interfaces/msg/AgentDecision",
        "/camera/depth/image_raw": "sensor_msgs/msg/Image",
        "/joint_states": "sensor_msgs/msg/JointState",
        "/robot/step_batch": "alpha_matrix_interfaces/msg/StepBatch",
    }
    assert list(served_topics(discovered, ["/camera/*", "/robot/step_ack"])) == [
        "/camera/depth/image_raw",
        "/robot/step_ack",  # named: served even though it is plumbing
    ]
    assert plumbing("/rosout") and not plumbing("/tf") and wanted("/tf", [])
    assert not wanted("/cameras", ["/camera/*"])


def test_latched_topics_are_read_once_the_rest_best_effort() -> None:
    assert latched([(True, 1)]) and latched([(True, 1), (True, 1)])
    assert not latched([(True, 1000)])  # the events: a deep history, not a latch
    assert not latched([(False, 10)]) and not latched([])


def test_schema_is_the_message_definition_with_its_dependencies() -> None:
    store = make_typestore()
    text = schema_text("sensor_msgs/msg/JointState", store)
    assert text is not None and text.startswith("std_msgs/Header header\nstring[] name\n")
    assert "\nMSG: std_msgs/Header\n" in text and "\nMSG: builtin_interfaces/Time\n" in text
    ours = schema_text("alpha_matrix_interfaces/msg/StepBatch", store)
    assert ours is not None and ours.startswith("string episode_id\n") and "\nMSG: geometry_msgs/Pose\n" in ours
    assert schema_text("no_such_pkg/msg/Nothing", store) is None


def test_params_refuse_a_bad_port_and_relative_topics() -> None:
    assert LiveParams().host == "127.0.0.1" and LiveParams().port == 8765
    for bad in ({"port": 0}, {"port": 65536}, {"topics": ["joint_states"]}, {"host": ""}):
        with pytest.raises(ValueError):
            LiveParams(**bad)


def test_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=rf"cannot listen on 127.0.0.1:{port}: in use"):
            check_port("127.0.0.1", port)
    check_port("127.0.0.1", port)  # free again


def test_the_live_node_is_in_the_graph_only_when_asked_and_changes_nothing_of_the_run() -> None:
    plain, live = resolve_graph(CONFIG), resolve_graph(CONFIG, LIVE)
    assert "foxglove_live" not in [n.name for n in plain.nodes]
    node = live.node("foxglove_live")
    assert node.observer and node.parameters["port"] == 8765 and node.parameters["host"] == "127.0.0.1"
    assert live.config_hash == plain.config_hash and live.run_id == plain.run_id
    assert config_view(live) == config_view(plain)
    assert "foxglove_live" not in live.node("recorder").parameters["graph_nodes"]
    others = [n for n in live.nodes if n.name != "foxglove_live"]
    assert [n.parameters for n in others] == [n.parameters for n in plain.nodes]


def test_a_run_held_for_its_viewer_runs_the_same_and_its_job_knows_what_to_wait_for() -> None:
    plain = resolve_graph(CONFIG)
    wait = {"wait_s": 30.0, "wait_for": ["/joint_states", "/camera/*"]}
    held = resolve_graph(CONFIG, {"foxglove_live": {"enabled": True, **wait}})
    assert (held.config_hash, held.run_id, config_view(held)) == (plain.config_hash, plain.run_id, config_view(plain))
    job = held.node("episode_runner").parameters
    assert (job["live_wait_s"], job["live_wait_for"]) == (30.0, ["/joint_states", "/camera/*"])
    assert plain.node("episode_runner").parameters["live_wait_s"] == 0.0  # no live view: never held
    suite = resolve_graph(
        CONFIG, {"foxglove_live": {"enabled": True, "wait_s": 5.0}}, graph_file="graph_proximity.yaml"
    )
    assert suite.node("suite_runner").parameters["live_wait_s"] == 5.0


def test_what_a_held_run_waits_for() -> None:
    assert watched_text(["/b", "/a", "/b"]) == "/a\n/b"
    assert not viewer_ready("", []) and viewer_ready("/joint_states", [])
    both = ["/joint_states", "/camera/*"]
    assert not viewer_ready(watched_text(["/joint_states"]), both)
    assert viewer_ready(watched_text(["/joint_states", "/camera/depth/image_raw", "/tf"]), both)
    assert not viewer_ready(watched_text(["/joint_states", "/camera"]), both)  # /camera is not under /camera/*
    assert watching_line([]) == "no viewer watches a topic"
    assert watching_line(["/tf"]) == "viewers watch 1 topic: /tf"
    assert watching_line([f"/t{i}" for i in range(8)], shown=2) == "viewers watch 8 topics: /t0, /t1 and 6 more"


@pytest.mark.parametrize("graph_file", sorted(p.name for p in CONFIG.glob("graph*.yaml")))
def test_every_graph_file_has_the_live_entry(graph_file: str) -> None:
    text = (CONFIG / graph_file).read_text()
    assert "name: foxglove_live" in text and "when: foxglove_live.enabled" in text and "observer: true" in text


def test_launch_arguments() -> None:
    assert live_launch_sets({}) == [] and live_launch_sets({"live": "false"}) == []
    assert live_launch_sets({"live": "true", "live_port": "9000"}) == live_sets(9000)
    for values, needle in (
        ({"live": "yes"}, "live:=yes: true or false"),
        ({"live_port": "9000"}, "give live:=true"),
        ({"live": "true", "live_port": "0"}, "live_port:=0: a port from 1 to 65535"),
        ({"live": "true", "live_port": "http"}, "a port from 1 to 65535"),
        ({"live_wait": "30"}, "give live:=true"),
        ({"live": "true", "live_wait": "0"}, "live_wait:=0: seconds, more than 0"),
        ({"live": "true", "live_wait": "nan"}, "live_wait:=nan: seconds"),
        ({"live": "true", "live_wait": "soon"}, "live_wait:=soon: seconds"),
    ):
        with pytest.raises(ConfigError, match=needle):
            live_launch_sets(values)
    graph = run_launch_graph({"live": "true", "live_port": "9001", "live_wait": "12.5"})
    assert graph.node("foxglove_live").parameters["port"] == 9001
    assert graph.node("episode_runner").parameters["live_wait_s"] == 12.5


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["launch", "--live", "--live-port", "0"], "--live-port 0: a port from 1 to 65535"),
        (["run", "--live-port", "9000"], "give --live too"),
        (["run", "--live", "--workers", "2"], "does not go with --workers"),
        (["suite", "proximity", "--live-wait", "30"], "--live-wait holds the run for a viewer"),
        (["run", "--live", "--live-wait", "-1"], "--live-wait -1: seconds, more than 0"),
        (["launch", "--live", "--live-wait", "inf"], "--live-wait inf: seconds"),
    ],
)
def test_bad_live_options_are_one_line_exit_2(argv: list[str], needle: str, capsys: pytest.CaptureFixture) -> None:
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_launch_with_the_live_port_in_use_starts_nothing(capsys: pytest.CaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli_main(["launch", "--live", "--live-port", str(port), "--domain-id", "24"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot listen on 127.0.0.1:{port}: in use" in err[0] and "nothing was started" in err[0]


def test_an_asset_request_is_answered_with_the_robot_s_mesh_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "link.obj").write_bytes(b"v 0 0 0\n")
    (tmp_path / "secret.txt").write_text("no")
    (tmp_path.parent / "outside.obj").write_text("v 1 1 1\n")
    assert asset("package://meshes/link.obj", tmp_path) == b"v 0 0 0\n"
    assert asset("package://meshes/missing.obj", tmp_path) is None
    assert asset("package://secret.txt", tmp_path) is None  # not a mesh or texture
    assert asset("package://../outside.obj", tmp_path) is None  # above the root
    assert asset("file:///etc/hostname.obj", tmp_path) is None  # only package:// URIs
    assert asset("https://example.com/x.obj", tmp_path) is None


def test_a_list_two_nodes_share_is_written_out_for_rcl(tmp_path: Path) -> None:
    """wait_for reaches the job as the same list: rcl refuses the YAML anchor PyYAML would write."""
    import rclpy
    from rclpy.context import Context

    graph = resolve_graph(CONFIG, {"foxglove_live": {"enabled": True, "wait_s": 5.0, "wait_for": ["/joint_states"]}})
    params = tmp_path / "params.yaml"
    params.write_text(graph.params_yaml())
    assert "&" not in params.read_text()
    context = Context()
    rclpy.init(args=["--ros-args", "--params-file", str(params)], context=context)  # raises on a file rcl refuses
    context.try_shutdown()
