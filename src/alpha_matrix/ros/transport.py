"""The DDS transport every participant of ours uses: localhost discovery over UDP only.

rmw_fastrtps gives ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST a shared-memory transport beside UDP,
and prefers it between processes of one host. A process opening a peer's port first checks that
its listeners answer within 1 s; on a loaded machine one may not, and the opener then removes the
port and builds a new one while its owner goes on reading the removed one: every message on that
path is lost, reliable QoS included. (A node deaf for 30 s with every process idle, seen in CI,
was first put down to this; it was seen once more over UDP: README, "Status".) config/dds/fastdds_localhost_udp.xml keeps
LOCALHOST's scope over UDP alone; it needs the range SYSTEM_DEFAULT, the one range rmw_fastrtps
does not rewrite. Measured cost: benchmarks/bench_episode.py, docs/measurements.md.

Publishing is synchronous unless the user says otherwise: asynchronous publishing queues each
message for Fast DDS's sending thread, which has to be woken. On two shared cores the default
graph ran at 1.36x bare physics synchronous against 1.42 with the variable unset and 1.62
asynchronous (docs/measurements.md). Reliability and ordering are the same either way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

RANGE_ENV = "ROS_AUTOMATIC_DISCOVERY_RANGE"
PROFILE_ENV = "FASTDDS_DEFAULT_PROFILES_FILE"
PROFILE_NAME = "dds/fastdds_localhost_udp.xml"  # under config/
PUBLICATION_ENV = "RMW_FASTRTPS_PUBLICATION_MODE"
VARIABLES = (RANGE_ENV, PROFILE_ENV, PUBLICATION_ENV)  # what localhost_udp may set: pass these on


def profile_path() -> Path:
    from alpha_matrix.core.graph import default_config_dir

    return default_config_dir() / PROFILE_NAME


def localhost_udp(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with our transport and synchronous publishing, unless its user chose otherwise.

    An unset range or LOCALHOST becomes LOCALHOST over UDP (the same scope); a range such as
    SUBNET, or a Fast DDS profile of the user's own, is left as it is, and so is a publication
    mode the user set.
    """
    out = dict(env)
    if not out.get(PUBLICATION_ENV):
        out[PUBLICATION_ENV] = "SYNCHRONOUS"
    if out.get(PROFILE_ENV) or out.get(RANGE_ENV, "") not in ("", "LOCALHOST"):
        return out
    out[RANGE_ENV] = "SYSTEM_DEFAULT"
    out[PROFILE_ENV] = str(profile_path())
    return out


def use_localhost_udp() -> None:
    """Give this process's own participants (probes, in-process runners) the graph's transport."""
    os.environ.update(localhost_udp(os.environ))
