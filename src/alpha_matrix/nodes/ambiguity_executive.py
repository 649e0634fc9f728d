"""ambiguity_executive: the instruction-ambiguity suite through the graph.

For each ambiguity item on suite/request: run the episode (core/suites/ambiguity/episode.py's
``EpisodeRun``) with one agent/decide call per decision. The decision is data, judged by the
agent node against the closed tools; this node acts on it only by the tool's name as the episode
defines it: ``ask_clarification`` is answered by the scripted operator, ``pick_and_place`` is
executed on the robot over the driver contract, ``task_done`` ends it. The first executed call
resets the robot's episode (scene_bridge spawns the item's blocks); each call is planned from the
block's measured position to its goal (core/suites/ambiguity/physical.py, core/robot/pick_place.py)
and run to its end (ros/pick_place_link.py), and the placement is what the step stream's object
poses then measure.

Every turn (decision, question, answer, what the move did, the placement after) goes out on
ambiguity/dialogue (a SuiteResult per turn: result_json = the turn), so the bag holds the
dialogue; the agent node records the observations and decisions; the result goes out on
suite/result.
"""

from __future__ import annotations

import json
import time
from typing import Any

from alpha_matrix_interfaces.msg import AgentDecision, SuiteRequest, SuiteResult

from alpha_matrix.core.suites.ambiguity.episode import EpisodeRun, episode_id, turn_json
from alpha_matrix.core.suites.ambiguity.items import item_of
from alpha_matrix.core.suites.ambiguity.params import AmbiguityExecutiveParams
from alpha_matrix.core.suites.ambiguity.physical import DriverRobot, PhysicalMoves
from alpha_matrix.core.suites.ambiguity.suite import graph_result
from alpha_matrix.ros.agent_msgs import decision_from_msg
from alpha_matrix.ros.pick_place_link import PickPlaceLink
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.suite_executive import DecidingExecutive, main_for


class AmbiguityExecutive(DecidingExecutive):
    suite = "ambiguity"
    params_model = AmbiguityExecutiveParams

    def __init__(self) -> None:
        super().__init__("ambiguity_executive")
        self.dialogue_pub = self.create_publisher(SuiteResult, "ambiguity/dialogue", EVENTS)
        self.link = PickPlaceLink(self, self.params.service_timeout_s)

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        p = self.params
        item = item_of(json.loads(req.scenario_json))
        link = self.link
        robot = DriverRobot(
            link.reachable, lambda: link.reset(req.episode_id, req.seed), lambda cmds: link.run(cmds)[1]
        )
        run, replies = EpisodeRun(item, PhysicalMoves(item.scene, robot)), list[AgentDecision]()
        while (obs := run.observation()) is not None:
            replies.append(answer := self.decide(obs))
            t0 = time.monotonic()
            turn = run.apply(decision_from_msg(answer))
            if "end_step" in turn.get("motion", {}):
                self.get_logger().info(
                    f"{req.episode_id}: {turn['event']} in {time.monotonic() - t0:.2f} s "
                    f"(to step {turn['motion']['end_step']})"
                )
            what = turn.get("event") or (
                f"answered: {turn['answer']}" if "answer" in turn else turn["tool"] or turn["kind"]
            )
            self.dialogue_pub.publish(
                SuiteResult(episode_id=req.episode_id, ok=True, message=what, result_json=turn_json(turn))
            )
        return graph_result(item, run.result(), p.agent, replies)

    def agent_episode_id(self, req: SuiteRequest) -> str:
        return episode_id(item_of(json.loads(req.scenario_json)))


def main(args: list[str] | None = None) -> int:
    return main_for(AmbiguityExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
