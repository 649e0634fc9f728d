"""Every bag split holds the latched messages, even one that reaches the recorder late.

A clean-clone CI once wrote a first split without /scene/robot: scene_markers draws it only once
/robot_description reaches it, and the recorder closed its first split by time before it came (it
is sent once, so that split lacked it for good). Here the lateness is made certain: scene_markers'
scene/robot is remapped to a holding relay in this process, which passes it on only once the run
says it waits for it. The recorder neither says ready nor closes a split before it has it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

import rclpy
import yaml
from mcap.reader import make_reader
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from visualization_msgs.msg import MarkerArray

from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.launcher import PROBE_ENV, graph_env
from alpha_matrix.ros.qos import LATCHED
from conftest import next_domain_id, wait_until

HELD = "held/scene/robot"
WAITS = "latched messages not received on: /scene/robot"  # the runner's log line (ros/recorder_link.py)


class HoldingRelay(Node):
    """held/scene/robot -> /scene/robot (both latched), held until ``release()``."""

    def __init__(self, context: Context) -> None:
        super().__init__("held_robot_relay", context=context)
        self.lock = threading.Lock()
        self.held: MarkerArray | None = None
        self.released = False
        self.pub = self.create_publisher(MarkerArray, "/scene/robot", LATCHED)
        self.create_subscription(MarkerArray, f"/{HELD}", self._on, LATCHED)

    def _on(self, msg: MarkerArray) -> None:
        with self.lock:
            if not self.released:
                self.held = msg
                return
        self.pub.publish(msg)

    def release(self) -> None:
        with self.lock:
            self.released, held = True, self.held
        if held is not None:
            self.pub.publish(held)


def _counts(split: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    with split.open("rb") as f:
        for _schema, channel, _msg in make_reader(f).iter_messages():
            out[channel.topic] = out.get(channel.topic, 0) + 1
    return out


def test_a_late_latched_message_is_in_every_split(tmp_path: Path) -> None:
    cfg = tmp_path / "config"
    shutil.copytree(default_config_dir(), cfg)
    graph_file = cfg / "graph.yaml"
    graph = yaml.safe_load(graph_file.read_text())
    (markers,) = [n for n in graph["nodes"] if n["name"] == "scene_markers"]
    markers["remappings"] = {"scene/robot": HELD}
    graph_file.write_text(yaml.safe_dump(graph, sort_keys=False))

    domain = next_domain_id()
    context = Context()
    rclpy.init(context=context, domain_id=domain)
    relay = HoldingRelay(context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(relay)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    log = tmp_path / "run.log"
    try:
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "alpha_matrix.cli", "--config", str(cfg), "run", "--episodes", "2",
                 "--run-id", "late"],
                env={**graph_env(domain), PROBE_ENV: "1.0"}, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        try:
            wait_until(
                lambda: proc.poll() is not None or WAITS in log.read_text(errors="replace"),
                180,
                "the run to wait for /scene/robot, or to end",
            )
            assert relay.held is not None, "scene_markers drew no robot"
            relay.release()
            assert proc.wait(timeout=180) == 0, log.read_text()[-3000:]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        executor.shutdown()
        spinner.join(timeout=10)
        relay.destroy_node()
        rclpy.shutdown(context=context)

    splits = sorted((tmp_path / "bags" / "late").glob("*.mcap"))
    assert splits
    for split in splits:
        counts = _counts(split)
        assert counts.get("/scene/robot") == 1, (split.name, counts)
        assert counts.get("/robot_description") == 1, (split.name, counts)
    assert WAITS in log.read_text()  # it did reach the recorder late
