"""foxglove_live: the graph's topics over the Foxglove WebSocket protocol (--live, live:=true).

An observer (core/live.py): every topic of the graph is advertised as a channel with its message
definition (``ros2msg``); the ROS topic is subscribed only while a Foxglove client subscribes to
its channel, best effort, and each message's CDR bytes are forwarded as ROS sent them. A
viewer's request for the URDF's ``package://`` meshes is answered from ``mesh_root``. Which topics
a viewer watches is published on /live/watched (latched): a run held for its viewer reads it.
"""

from __future__ import annotations

import importlib
import queue
from typing import Any

import foxglove
from foxglove.websocket import ServerListener
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from alpha_matrix.core.bag import make_typestore
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.live import (
    MESSAGE_ENCODING,
    SCHEMA_ENCODING,
    WATCHED_TOPIC,
    LiveParams,
    asset,
    latched,
    live_url,
    schema_text,
    served_topics,
    watched_text,
    watching_line,
)
from alpha_matrix.core.viz.robot_shapes import mesh_root_of
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import LATCHED

# Best effort and volatile: the writer sends once and never waits for, or resends to, a viewer.
WATCH = QoSProfile(
    depth=4,
    reliability=ReliabilityPolicy.BEST_EFFORT,
    durability=DurabilityPolicy.VOLATILE,
    history=HistoryPolicy.KEEP_LAST,
)


def message_class(msgtype: str) -> Any:
    pkg, kind, name = msgtype.split("/")
    return getattr(importlib.import_module(f"{pkg}.{kind}"), name)


def importable(msgtype: str) -> bool:
    try:
        message_class(msgtype)
    except (ImportError, AttributeError, ValueError):
        return False
    return True


class _Watchers(ServerListener):
    """The server's subscribe/unsubscribe calls (its own thread), queued for the node's executor."""

    def __init__(self) -> None:
        self.changes: queue.SimpleQueue[tuple[str, int]] = queue.SimpleQueue()

    def on_subscribe(self, client: Any, channel: Any) -> None:
        self.changes.put((channel.topic, 1))

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        self.changes.put((channel.topic, -1))


class FoxgloveLive(Node):
    def __init__(self) -> None:
        super().__init__("foxglove_live")
        self.params = declare_params(self, LiveParams)
        self.store = make_typestore()
        self.watchers = _Watchers()
        p = self.params
        try:
            root = mesh_root_of(p.mesh_root)
            self.server = foxglove.start_server(
                name="alpha_matrix",
                host=p.host,
                port=p.port,
                server_listener=self.watchers,
                asset_handler=lambda uri: asset(uri, root),
            )
        except (RuntimeError, OverflowError) as err:
            raise ConfigError(f"live view: cannot listen on {p.host}:{p.port}: {err}") from None
        self.channels: dict[str, tuple[foxglove.Channel, str]] = {}  # topic -> channel, type
        self.watching: dict[str, int] = {}  # topic -> clients subscribed
        self.subs: dict[str, Any] = {}
        self.skipped: set[str] = set()
        self.watched_pub = self.create_publisher(String, WATCHED_TOPIC, LATCHED)
        self.watched_pub.publish(String(data=""))
        self.create_timer(p.discover_every_s, self._discover)
        self.create_timer(0.1, self._apply)
        self.get_logger().info(f"live view on {live_url(p.host, self.server.port)} (Foxglove WebSocket)")
        self._discover()

    def _discover(self) -> None:
        for topic, msgtype in served_topics(self.get_topic_names_and_types(), self.params.topics).items():
            if topic in self.channels or topic in self.skipped:
                continue
            text = schema_text(msgtype, self.store)
            if text is None or not importable(msgtype):
                self.skipped.add(topic)
                self.get_logger().info(f"not served: {topic} ({msgtype}: no message definition here)")
                continue
            schema = foxglove.Schema(name=msgtype, encoding=SCHEMA_ENCODING, data=text.encode())
            self.channels[topic] = (foxglove.Channel(topic, schema=schema, message_encoding=MESSAGE_ENCODING), msgtype)

    def _apply(self) -> None:
        """Subscribe while a client watches a channel, unsubscribe when the last one leaves."""
        changed = False
        while True:
            try:
                topic, delta = self.watchers.changes.get_nowait()
            except queue.Empty:
                break
            changed = True
            self.watching[topic] = max(0, self.watching.get(topic, 0) + delta)
            if self.watching[topic] and topic not in self.subs and topic in self.channels:
                channel, msgtype = self.channels[topic]
                self.subs[topic] = self.create_subscription(
                    message_class(msgtype), topic, self._forward(channel), self._qos(topic), raw=True
                )
            elif not self.watching[topic] and topic in self.subs:
                self.destroy_subscription(self.subs.pop(topic))
        if changed:  # what a held run waits for: the topics a viewer watches now
            self.watched_pub.publish(String(data=watched_text(self.subs)))
            self.get_logger().info(watching_line(self.subs))

    def _qos(self, topic: str) -> QoSProfile:
        pubs = [
            (i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL, i.qos_profile.depth)
            for i in self.get_publishers_info_by_topic(topic)
        ]
        return LATCHED if latched(pubs) else WATCH

    @staticmethod
    def _forward(channel: foxglove.Channel) -> Any:
        def forward(data: bytes) -> None:
            channel.log(data)

        return forward

    def destroy_node(self) -> None:
        if (server := getattr(self, "server", None)) is not None:
            server.stop()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run_node(FoxgloveLive, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
