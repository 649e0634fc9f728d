"""recorder: rosbag2 (MCAP) capture of the graph's topics without a ROS install.

Records raw wire bytes (no re-serialisation) into bags/<run_id>/, one closed split per
episode and every few seconds (core/bag.py). The bag's metadata names the run whose records
it backs (custom_data alpha_matrix.run_id), which is how `alpha-matrix audit` finds them. It is a gating consumer of the step stream:
it acknowledges a StepBatch only once it holds it, so the bridge cannot outrun it and no
step is lost. On a ROS 2 install `ros2 bag record` can be used instead.
"""

from __future__ import annotations

import importlib
import struct
import time
from pathlib import Path

from alpha_matrix_interfaces.msg import BagCommit
from rclpy.node import Node
from rclpy.serialization import deserialize_message
from std_srvs.srv import Trigger

from alpha_matrix.core.bag import RUN_ID_KEY, SplitBagWriter, latched_missing
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.evidence import EVENTS_TOPIC, SUITE_RESULT_TOPIC, SUMMARY_TOPIC, TRACKED, EvidenceGate
from alpha_matrix.core.recorder_params import RecorderParams
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import (
    COMMITS_TOPIC,
    END_TOPICS,
    EVENT_TOPICS,
    EVENTS,
    IMAGE_TOPICS,
    IMAGES,
    LATCHED,
    LATCHED_SOURCES,
    LATCHED_TOPICS,
    READY_SERVICE,
    STEP_STREAM,
    STEP_TOPIC,
    STREAM,
)


def message_class(msgtype: str):  # noqa: ANN201
    pkg, kind, name = msgtype.split("/")
    return getattr(importlib.import_module(f"{pkg}.{kind}"), name)


def step_batch_span(raw: bytes) -> tuple[str, int]:
    """(episode_id, last step) straight from StepBatch CDR: encapsulation, string, pad, u64, u32."""
    n = struct.unpack_from("<I", raw, 4)[0]
    episode = raw[8 : 8 + n - 1].decode()
    off = 8 + n
    off += -(off - 4) % 8  # CDR aligns to the type size, relative to the payload start
    first = struct.unpack_from("<Q", raw, off)[0]
    num = struct.unpack_from("<I", raw, off + 8)[0]
    return episode, first + num - 1


class Recorder(Node):
    def __init__(self) -> None:
        super().__init__("recorder")
        self.params = declare_params(self, RecorderParams)
        topics = {}
        for item in self.params.topics:
            name, sep, msgtype = item.partition("=")
            if not sep:
                raise ConfigError(f"recorder topic {item!r}: expected TOPIC=TYPE")
            topics[name] = msgtype
        run_id = self.params.run_id or time.strftime("run-%Y%m%d-%H%M%S")
        records_run_id = self.params.records_run_id or run_id.partition("/")[0]
        self.bag = SplitBagWriter(
            Path(self.params.bags_dir) / run_id,
            topics,
            {RUN_ID_KEY: records_run_id},
            latched=LATCHED_TOPICS & set(topics),
        )
        self.counts = dict.fromkeys(topics, 0)
        self.gate = EvidenceGate()
        # hello until the first batch, then acks (every ack_every_steps: the resolver sets it from the bridge's flow window)
        self.gating = GatingLink(self, stops=False, ack_every=self.params.ack_every_steps)
        self.commit_pub = self.create_publisher(BagCommit, f"~/{COMMITS_TOPIC}", EVENTS)
        self.classes = {name: message_class(msgtype) for name, msgtype in topics.items()}
        self.subs = {
            name: self.create_subscription(cls, name, self._writer(name), self._qos(name), raw=True)
            for name, cls in self.classes.items()
        }
        self.create_service(Trigger, f"~/{READY_SERVICE}", self._on_ready)
        self.create_timer(self.params.split_every_s, self._on_split_timer)
        self.get_logger().info(f"recording {len(topics)} topics to {self.bag.bag_dir}")

    @staticmethod
    def _qos(topic: str):  # noqa: ANN205 - rclpy QoSProfile
        if topic in EVENT_TOPICS:
            return EVENTS
        if topic in LATCHED_TOPICS:
            return LATCHED
        return STEP_STREAM if topic == STEP_TOPIC else IMAGES if topic in IMAGE_TOPICS else STREAM

    def _writer(self, topic: str):  # noqa: ANN202
        def write(raw: bytes) -> None:
            self.bag.write(topic, time.time_ns(), raw)
            self.counts[topic] += 1
            if topic == STEP_TOPIC:
                self.gating.streaming()
                self.gating.ack(*step_batch_span(raw))
            elif topic in END_TOPICS:  # an episode is complete: once its evidence is in, commit it
                msg = deserialize_message(raw, self.classes[topic])
                episode, decisions, of = msg.episode_id, 0, ""
                if topic == SUITE_RESULT_TOPIC:
                    decisions, of = int(msg.agent_decisions), msg.agent_episode_id
                self._commit(self.gate.ended(topic, episode, decisions=decisions, decisions_of=of))
                if missing := self.gate.missing(episode):
                    self.get_logger().info(f"{episode}: commit waits for {', '.join(missing)}")
            elif topic in TRACKED:
                msg = deserialize_message(raw, self.classes[topic])
                closed = topic == EVENTS_TOPIC and msg.closed
                events = int(msg.events) if topic == SUMMARY_TOPIC else 0
                self._commit(self.gate.seen(topic, msg.episode_id, closed=closed, events=events))

        return write

    def _commit(self, episodes: list[str]) -> None:
        """Make the episode durable (close the split, list it), then say so on ~/commits."""
        for episode in episodes:
            split = self.bag.rotate()
            self.commit_pub.publish(BagCommit(episode_id=episode, split=split or ""))

    def _latched_missing(self) -> list[str]:
        published = [t for t in LATCHED_TOPICS & set(self.subs) if self.count_publishers(t)]
        return latched_missing(published, self.bag.held, LATCHED_SOURCES)

    def _on_split_timer(self) -> None:
        """Close the split by time, but not before it holds every latched message on its way
        (scene_markers draws /scene/robot only once /robot_description reaches it)."""
        if not self._latched_missing():
            self.bag.rotate()

    def _on_ready(self, _req: Trigger.Request, res: Trigger.Response) -> Trigger.Response:
        """Ready once every node of the graph is discovered, every publisher on a recorded topic
        is matched with this recorder (what they publish from then on reaches the bag even if they
        die right after), and every latched message on its way has arrived (each split holds it).
        Matched against discovered publishers only, the check is vacuous for a node not
        discovered yet, hence the graph's node list (graph_nodes, from the resolver)."""
        unseen = sorted(set(self.params.graph_nodes) - set(self.get_node_names()))
        waiting = [t for t, sub in self.subs.items() if sub.get_publisher_count() < self.count_publishers(t)]
        latched = self._latched_missing()
        res.success = not unseen and not waiting and not latched
        res.message = "; ".join(
            [f"nodes not discovered: {', '.join(unseen)}"] * bool(unseen)
            + [f"publishers not matched on: {', '.join(waiting)}"] * bool(waiting)
            + [f"latched messages not received on: {', '.join(latched)}"] * bool(latched)
        )
        return res

    def destroy_node(self) -> None:
        self.bag.close()  # a bag that recorded nothing is removed, and nothing is said
        if counts := ", ".join(f"{t} {n}" for t, n in self.counts.items() if n):
            print(f"recorder: bag closed: {counts}", flush=True)
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run_node(Recorder, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
