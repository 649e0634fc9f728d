"""A runner's side of the chaos node: each episode's fault set before it runs, its injections after.

chaos/set_fault configures the episode's cell (fault, intensity, the streams of its seed);
chaos/fault_report returns the injections in canonical order once the episode is over. Without
chaos in the graph both are no-ops.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.srv import FaultReport, SetFault
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.cells import Cell
from alpha_matrix.core.matrix.episode import fault_records
from alpha_matrix.core.records import FaultRecord
from alpha_matrix.ros.services import call_service


class ChaosLink:
    def __init__(self, node: Node, enabled: bool, timeout_s: float) -> None:
        self.enabled, self.timeout_s = enabled, timeout_s
        self.set_cli = node.create_client(SetFault, "chaos/set_fault")
        self.report_cli = node.create_client(FaultReport, "chaos/fault_report")

    def clients(self) -> list[Any]:
        """The services a run waits for."""
        return [self.set_cli, self.report_cli] if self.enabled else []

    def probes(self) -> list[tuple[Any, Any]]:
        """One harmless exchange (a report of no episode), so the first real reply is not lost."""
        return [(self.report_cli, FaultReport.Request())] if self.enabled else []

    def configure(self, episode_id: str, index: int, master_seed: int, cell: Cell) -> None:
        if not self.enabled:
            return
        req = SetFault.Request(
            episode_id=episode_id, episode_index=index, master_seed=master_seed, fault=cell.fault,
            intensity=cell.intensity,
        )  # fmt: skip
        reply = call_service(self.set_cli, req, self.timeout_s)
        if not reply.accepted:
            raise AlphaMatrixError(f"chaos refused {cell.fault} at I={cell.intensity}: {reply.message}")

    def injections(self, episode_id: str) -> list[FaultRecord]:
        if not self.enabled:
            return []
        reply = call_service(self.report_cli, FaultReport.Request(episode_id=episode_id), self.timeout_s)
        return fault_records(reply.events)
