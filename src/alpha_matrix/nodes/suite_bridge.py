"""suite_bridge: sim_bridge with a suite's world (the confidence suite's four blocks).

The driver contract is unchanged; only the scene differs. The default sim_bridge builds the
three-block world; this subclass rebuilds the world from ``skills_file`` before anything runs.
"""

from __future__ import annotations

from pathlib import Path

from rcl_interfaces.msg import ParameterDescriptor

from alpha_matrix.core.config import SuiteBridgeParams
from alpha_matrix.core.robot.driver import DriverCore
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config
from alpha_matrix.nodes.sim_bridge import SimBridge, _spin
from alpha_matrix.ros.lifecycle import run_node


class SuiteBridge(SimBridge):
    def __init__(self) -> None:
        super().__init__()
        extra = {}
        for name in ("use_skills_world", "skills_file"):
            info = SuiteBridgeParams.model_fields[name]
            self.declare_parameter(name, info.default, ParameterDescriptor(description=info.description or ""))
            extra[name] = self.get_parameter(name).value
        if extra["use_skills_world"]:
            suite = load_skills_config(Path(extra["skills_file"]) if extra["skills_file"] else None)
            p = self.params
            self.world.close()
            self.world = World(suite.world_config())
            self.core = DriverCore(self.world, p.reaction_latency_steps, p.max_episode_steps, p.reach_tolerance)
            self._body_names = self._names_by_id()
            self.get_logger().info(f"world of {suite.path}: blocks {', '.join(suite.blocks)}")


def main(args: list[str] | None = None) -> int:
    return run_node(SuiteBridge, _spin, args)


if __name__ == "__main__":
    raise SystemExit(main())
