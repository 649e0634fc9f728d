"""Where the ROS kit used to live in one file: re-exports for importers not yet moved.

New code imports from the focused modules: params (declare_params), services (call_service,
handshake, wait_reply), stop (STOP, NodeStopped), spin (spin_behind, spin_until_stopped,
ProxyNode, spin_proxy), lifecycle (run_node).
"""

from __future__ import annotations

from alpha_matrix.ros.lifecycle import TEARDOWN_S, die_with_parent, run_node
from alpha_matrix.ros.params import declare_fields, declare_params
from alpha_matrix.ros.services import call_service, handshake, wait_reply
from alpha_matrix.ros.spin import ProxyNode, spin_behind, spin_proxy, spin_until_stopped
from alpha_matrix.ros.stop import SPIN_POLL_S, STOP, WAKE_SIGNAL, NodeStopped

__all__ = [
    "SPIN_POLL_S", "STOP", "TEARDOWN_S", "WAKE_SIGNAL", "NodeStopped", "ProxyNode", "call_service",
    "declare_fields", "declare_params", "die_with_parent", "handshake", "run_node", "spin_behind",
    "spin_proxy", "spin_until_stopped", "wait_reply",
]  # fmt: skip
