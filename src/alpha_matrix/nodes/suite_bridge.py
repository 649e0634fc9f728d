"""suite_bridge: sim_bridge with a suite's world (the confidence suite's four blocks).

The driver contract is unchanged; only the scene differs. The default sim_bridge builds the
three-block world; this subclass rebuilds the world from ``skills_file`` before anything runs.
"""

from __future__ import annotations

from pathlib import Path

from alpha_matrix.core.robot.driver import DriverCore
from alpha_matrix.core.robot.stepping import names_by_id
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config
from alpha_matrix.core.suites.params import SuiteBridgeParams
from alpha_matrix.nodes.sim_bridge import SimBridge
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_fields
from alpha_matrix.ros.spin import spin_events


class SuiteBridge(SimBridge):
    def __init__(self) -> None:
        super().__init__()
        extra = declare_fields(self, SuiteBridgeParams, ("use_skills_world", "skills_file"))
        if extra["use_skills_world"]:
            suite = load_skills_config(Path(extra["skills_file"]) if extra["skills_file"] else None)
            p = self.params
            self.world.close()
            self.world = World(suite.world_config())
            self.core = DriverCore(self.world, p.reaction_latency_steps, p.max_episode_steps, p.reach_tolerance)
            self._body_names = names_by_id(self.world.body_names)
            self.get_logger().info(f"world of {suite.path}: blocks {', '.join(suite.blocks)}")


def main(args: list[str] | None = None) -> int:
    return run_node(SuiteBridge, spin_events, args)


if __name__ == "__main__":
    raise SystemExit(main())
