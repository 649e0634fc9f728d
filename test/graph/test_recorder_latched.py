"""Every bag split holds the latched messages, even one that reaches the recorder late.

A clean-clone CI once wrote a first split without /scene/robot: scene_markers draws it only once
/robot_description reaches it, and the recorder closed its first split by time before it came (it
is sent once, so that split lacked it for good). Here the lateness is made certain: scene_markers'
scene/robot is remapped to a holding relay in this process, which passes it on only once the run
says it waits for it. The recorder neither says ready nor closes a split before it has it.

The relay is in the graph file as an external node: the recorder's ready check then waits until it
has discovered it, as it does for every node of a graph. Without that, a loaded CI machine once let
the recorder say ready before it saw the relay's publisher at all, so nothing was held up.
"""

from __future__ import annotations

import threading
from pathlib import Path

import yaml
from mcap.reader import make_reader
from rclpy.context import Context
from rclpy.node import Node
from visualization_msgs.msg import MarkerArray

from alpha_matrix.ros.qos import LATCHED
from conftest import cli_beside, remapped_config, wait_until

HELD = "held/scene/robot"
RELAY = "held_robot_relay"
WAITS = "latched messages not received on: /scene/robot"  # the runner's log line (ros/recorder_link.py)


class HoldingRelay(Node):
    """held/scene/robot -> /scene/robot (both latched), held until ``release()``."""

    def __init__(self, context: Context) -> None:
        super().__init__(RELAY, context=context)
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
    cfg = remapped_config(tmp_path / "config", "graph.yaml", "scene_markers", {"scene/robot": HELD})
    graph = yaml.safe_load((cfg / "graph.yaml").read_text())
    graph["nodes"].append({"name": RELAY, "executable": "relay", "package": "this_test", "external": True})
    (cfg / "graph.yaml").write_text(yaml.safe_dump(graph, sort_keys=False))
    log = tmp_path / "run.log"
    args = ["--config", str(cfg), "run", "--episodes", "2", "--run-id", "late"]
    with cli_beside(HoldingRelay, args, tmp_path, log) as (relay, proc):
        wait_until(
            lambda: proc.poll() is not None or WAITS in log.read_text(errors="replace"),
            180,
            "the run to wait for /scene/robot, or to end",
        )
        assert WAITS in log.read_text(errors="replace"), "the recorder said ready without /scene/robot"
        assert relay.held is not None, "scene_markers drew no robot"
        relay.release()
        assert proc.wait(timeout=180) == 0, log.read_text()[-3000:]

    splits = sorted((tmp_path / "bags" / "late").glob("*.mcap"))
    assert splits
    for split in splits:
        counts = _counts(split)
        assert counts.get("/scene/robot") == 1, (split.name, counts)
        assert counts.get("/robot_description") == 1, (split.name, counts)
