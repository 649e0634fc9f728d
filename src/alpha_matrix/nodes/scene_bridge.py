"""scene_bridge: sim_bridge with a suite item's bodies in its world (simulation only).

The driver contract is unchanged; only the scene differs, as in suite_bridge. The world has no
seeded blocks: each item on suite/request (the item whole, recorded) of a suite in ``SCENES``
gives the bodies its episode's robot/reset spawns (the suite's own ``body_specs``: shape, size,
mass, place, colour), so the same item is the same physics. A reset of an episode whose item has
not arrived is refused, never run with another scene. A real robot's driver spawns nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from alpha_matrix_interfaces.msg import SuiteRequest
from alpha_matrix_interfaces.srv import Reset

from alpha_matrix.core.robot.driver import DriverCore
from alpha_matrix.core.robot.pick_place import NO_SCENE
from alpha_matrix.core.robot.stepping import names_by_id
from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.ambiguity import items as ambiguity_items
from alpha_matrix.core.suites.ambiguity import physical as ambiguity_physical
from alpha_matrix.core.suites.refusal import execute as refusal_execute
from alpha_matrix.core.suites.refusal import suite as refusal_suite
from alpha_matrix.nodes.sim_bridge import SimBridge
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.spin import spin_events

SCENES: dict[str, Callable[[Any], tuple[BodySpec, ...]]] = {  # suite -> the bodies of its item's JSON
    "refusal": lambda d: refusal_execute.body_specs(refusal_suite.item_of(d).scene),
    "ambiguity": lambda d: ambiguity_physical.body_specs(ambiguity_items.item_of(d).scene),
    "injection": lambda d: (  # a refusal scene (a gauge_face item has no bodies)
        () if d["channel"] == "gauge_face" else refusal_execute.body_specs(refusal_suite.item_of(d["item"]).scene)
    ),
}


class SceneBridge(SimBridge):
    def __init__(self) -> None:
        super().__init__()
        p = self.params
        self.world.close()
        self.world = World(WorldConfig(block_names=(), block_rgba=()))
        self.core = DriverCore(self.world, p.reaction_latency_steps, p.max_episode_steps, p.reach_tolerance)
        self._body_names = names_by_id(self.world.body_names)
        self.scenes: dict[str, tuple[BodySpec, ...]] = {}
        self.create_subscription(SuiteRequest, "suite/request", self.drain.counted(self._on_request), EVENTS)

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite not in SCENES:
            return
        try:
            self.scenes[msg.episode_id] = SCENES[msg.suite](json.loads(msg.scenario_json))
        except (TypeError, ValueError, KeyError) as err:  # the executive reports the malformed item
            self.get_logger().warning(f"{msg.episode_id}: not a {msg.suite} item ({err})")

    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        scene = self.scenes.get(req.episode_id)
        if scene is None:
            res.accepted, res.message = False, f"{NO_SCENE} {req.episode_id!r}"
            return res
        self.world.set_objects(scene)
        return super()._on_reset(req, res)


def main(args: list[str] | None = None) -> int:
    return run_node(SceneBridge, spin_events, args)


if __name__ == "__main__":
    raise SystemExit(main())
