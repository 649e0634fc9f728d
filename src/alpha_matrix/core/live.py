"""The live view: the graph's topics served over the Foxglove WebSocket protocol while it runs.

`alpha-matrix launch|run|suite --live` (launch argument ``live:=true``) adds the foxglove_live node
(every graph file's entry, ``when: foxglove_live.enabled``). It only watches: it is an observer
(not in the config hash, not awaited by the recorder), it subscribes to a ROS topic only while a
Foxglove client subscribes to its channel, best effort (a slow viewer never holds a publisher
back), and forwards each message as the CDR bytes ROS sent, with the message definition as its
``ros2msg`` schema. It answers a viewer's asset requests for the URDF's ``package://`` meshes, so
a web viewer draws the robot's own meshes live. What is served, each schema, the assets and the
port check are here; the node is thin.

A run can wait for its viewer (--live-wait S, ``live_wait:=S``): the node publishes which topics a
viewer watches on WATCHED_TOPIC (latched), and the run's job holds its first episode until a viewer
watches (every topic of ``wait_for``, or any one), for S seconds at most: a short run is not over
before Foxglove has connected.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from alpha_matrix.core.config import NodeParams
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.viz.robot_shapes import resolve_mesh

NODE = "foxglove_live"  # the graph files' entry
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MESSAGE_ENCODING = "cdr"  # ROS 2's own serialization, forwarded as received
SCHEMA_ENCODING = "ros2msg"  # the .msg text with its dependencies, as in an MCAP file
# ROS 2's plumbing and the graph's flow control: never served unless named in ``topics``.
WATCHED_TOPIC = "/live/watched"  # std_msgs/String: the topics a viewer watches, one per line (latched)
PLUMBING = frozenset({"/rosout", "/parameter_events", "/robot/step_ack", WATCHED_TOPIC})
MAX_WAIT_S = 3600.0
PLUMBING_SUFFIXES = ("/commits", "/_action/status", "/_action/feedback")


class LiveParams(NodeParams):
    enabled: bool = Field(
        False, description="Start the live view (--live, live:=true): the graph files' `when:` reads this."
    )
    host: str = Field(DEFAULT_HOST, min_length=1, description="Address the WebSocket server binds (localhost only).")
    port: int = Field(DEFAULT_PORT, ge=1, le=65535, description="Port of the WebSocket server (--live-port).")
    topics: list[str] = Field(
        default_factory=list,
        description="Topics to serve (exact names, or PREFIX/* for a namespace); empty: every topic of the graph "
        "but ROS 2's plumbing.",
    )
    discover_every_s: float = Field(1.0, gt=0.0, le=60.0, description="How often new topics are looked for.")
    wait_s: float = Field(
        0.0,
        ge=0.0,
        le=MAX_WAIT_S,
        description="Hold the run's first episode until a viewer watches (--live-wait): up to this long, then the "
        "run goes on; 0: never hold.",
    )
    wait_for: list[str] = Field(
        default_factory=list,
        description="With wait_s: the topics a viewer must watch before the run goes on (names, or PREFIX/*); "
        "empty: any one topic.",
    )
    mesh_root: str = Field(
        "",
        description="Where the robot's meshes are: a viewer's package:// asset requests are answered from under it "
        "(the URDF's meshes; nothing above it, only mesh and texture files). Empty: the simulated Panda's folder.",
    )

    @field_validator("topics", "wait_for")
    @classmethod
    def _absolute(cls, value: list[str]) -> list[str]:
        for t in value:
            if not t.startswith("/") or t.strip() != t or len(t) < 2:
                raise ValueError(f"{t!r}: a topic is an absolute name (/joint_states) or a prefix (/camera/*)")
        return value


class LiveWaitParams(NodeParams):
    """A run's job held for its viewer: both fields set from the graph's foxglove_live entry."""

    live_wait_s: float = Field(
        0.0, ge=0.0, le=MAX_WAIT_S, description="Set from the graph: foxglove_live's wait_s (--live-wait); 0 = none."
    )
    live_wait_for: list[str] = Field(default_factory=list, description="Set from the graph: foxglove_live's wait_for.")


ASSET_SUFFIXES = (".obj", ".mtl", ".stl", ".dae", ".png", ".jpg", ".jpeg")  # a mesh and its materials


def asset(uri: str, mesh_root: Path) -> bytes | None:
    """A viewer's asset request (Foxglove's fetchAsset, what its web app sends for a URDF's
    ``package://`` mesh): the file's bytes from under ``mesh_root``, or None (the viewer reports
    it missing). Only ``package://`` URIs, only mesh and texture files, never above the root."""
    if not uri.startswith("package://") or not uri.lower().endswith(ASSET_SUFFIXES):
        return None
    try:
        path = resolve_mesh(uri, mesh_root)
        return path.read_bytes() if path.is_file() else None
    except (OSError, ValueError):
        return None


def plumbing(topic: str) -> bool:
    return topic in PLUMBING or topic.endswith(PLUMBING_SUFFIXES)


def wanted(topic: str, topics: Sequence[str]) -> bool:
    """Whether ``topic`` is served under the ``topics`` parameter (empty: all but the plumbing)."""
    if not topics:
        return not plumbing(topic)
    return any(topic == t or (t.endswith("/*") and topic.startswith(t[:-1])) for t in topics)


def served_topics(discovered: Iterable[tuple[str, Sequence[str]]], topics: Sequence[str]) -> dict[str, str]:
    """The discovered (topic, types) pairs to serve -> their one message type, sorted by topic.
    A topic seen with two types at once is left out (no one schema describes it)."""
    out = {}
    for topic, types in discovered:
        if len(set(types)) == 1 and wanted(topic, topics):
            out[topic] = next(iter(types))
    return dict(sorted(out.items()))


def watched_text(topics: Iterable[str]) -> str:
    """The watched topics as WATCHED_TOPIC carries them: sorted, one per line."""
    return "\n".join(sorted(set(topics)))


def watching_line(topics: Iterable[str], shown: int = 6) -> str:
    """The node's log line when what viewers watch changes: the first ``shown`` topics, then a count."""
    names = sorted(set(topics))
    if not names:
        return "no viewer watches a topic"
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"viewers watch {len(names)} topic{'s' if len(names) > 1 else ''}: {', '.join(names[:shown])}{more}"


def viewer_ready(text: str, wait_for: Sequence[str]) -> bool:
    """Whether a viewer watches what a held run waits for (WATCHED_TOPIC's ``text``): every topic
    of ``wait_for`` (a name, or PREFIX/*: one under it), or, with it empty, any one."""
    watched = [t for t in text.splitlines() if t]
    return all(any(wanted(w, [t]) for w in watched) for t in wait_for) if wait_for else bool(watched)


def latched(publishers: Iterable[tuple[bool, int]]) -> bool:
    """Whether a topic is latched: every publisher keeps only its last message for late joiners
    ((transient local, history depth) of each: /robot_description, /tf_static). The view reads
    those reliably, transient local, depth 1 (one small message, once); every other topic best
    effort, volatile, so a viewer never makes a publisher wait or resend."""
    pubs = list(publishers)
    return bool(pubs) and all(transient and depth <= 1 for transient, depth in pubs)


def schema_text(typename: str, store: Any) -> str | None:
    """The ``ros2msg`` schema of a ROS 2 message type: its definition, then each type it uses after
    a separator line and ``MSG: <type>`` (the layout Foxglove and MCAP read). None when the type is
    not known (another package's message: not served). ``store``: core.bag.make_typestore()."""
    try:
        text, _md5 = store.generate_msgdef(typename, ros_version=2)
    except Exception:  # rosbags raises its own errors for an unknown type
        return None
    return str(text)


def check_port(host: str, port: int) -> None:
    """ConfigError (one line) when the live view cannot listen at host:port: the port is taken,
    or the address is not this machine's. Checked before anything starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # what a listener may reuse, so may it
        try:
            probe.bind((host, port))
        except OSError as err:
            why = (
                "in use (another live view or server listens there)" if err.errno == errno.EADDRINUSE else err.strerror
            )
            raise ConfigError(
                f"live view: cannot listen on {host}:{port}: {why}; pass another --live-port (nothing was started)"
            ) from None
        except (OverflowError, socket.gaierror) as err:
            raise ConfigError(f"live view: cannot listen on {host}:{port}: {err}") from None


def check_graph_ports(graph: Any) -> None:
    """check_port for the graph's live view, if it has one (a resolved core.graph.Graph)."""
    for node in graph.nodes:
        if node.executable == NODE and not node.external:
            check_port(str(node.parameters["host"]), int(node.parameters["port"]))


def wait_seconds(seconds: float, given: str) -> float:
    """A run's wait for its viewer (--live-wait, ``live_wait:=``): more than 0 and at most
    ``MAX_WAIT_S`` seconds (nan is neither), or one line naming how it was ``given``."""
    if not 0 < seconds <= MAX_WAIT_S:
        raise ConfigError(f"{given}: seconds, more than 0 and at most {MAX_WAIT_S:g}")
    return seconds


def live_sets(port: int | None, host: str | None = None, wait_s: float | None = None) -> list[str]:
    """--live [--live-port N] [--live-wait S] as --set items for the foxglove_live entry."""
    out = [f"{NODE}.enabled=true"]
    if wait_s is not None:
        out.append(f"{NODE}.wait_s={wait_s}")
    if port is not None:
        out.append(f"{NODE}.port={port}")
    if host:
        out.append(f"{NODE}.host={host}")
    return out


def live_url(host: str, port: int) -> str:
    return f"ws://{host}:{port}"
