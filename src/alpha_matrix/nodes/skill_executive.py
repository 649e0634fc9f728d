"""skill_executive: runs SkillAgent through the graph (DESIGN §7 item 4).

For each confidence scenario on suite/request: reset the robot, then the gating loop of
core/suite_graph.run_skill_task -- the skill_confidence service is queried before every skill
call, the ledger refuses any call below threshold or unchecked, skills run as driver commands
(robot/move_to, robot/gripper), and the robot is stopped at the end (a protective stop decided
after the final hold, landing L steps later). The result goes out on suite/result; every query,
its answer and what the agent did next go out on skill/queries (ConfidenceQuery), so the bag
holds what the gate acted on (service calls are not recorded). The graph adapters (scorer,
robot, query record) are ros/skill_link.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

from alpha_matrix_interfaces.msg import ConfidenceQuery, SuiteRequest

from alpha_matrix.core.config import SkillExecutiveParams
from alpha_matrix.core.suites.confidence.agent import Decision, Query, SkillAgent, Task
from alpha_matrix.core.suites.confidence.run import confidence_result_dict, run_skill_task
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config, parse_goal
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.robot_client import RobotClient
from alpha_matrix.ros.skill_link import GraphSkillRobot, ServiceScorer, query_record
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for


class SkillExecutive(SuiteExecutive):
    suite = "confidence"

    def __init__(self) -> None:
        super().__init__("skill_executive")
        self.params = declare_params(self, SkillExecutiveParams)
        self.suite_config = load_skills_config(Path(self.params.skills_file) if self.params.skills_file else None)
        self.robot = RobotClient(self, self.params.service_timeout_s)
        self.query_pub = self.create_publisher(ConfidenceQuery, "skill/queries", EVENTS)

    def run_request(self, req: SuiteRequest) -> dict:
        sc, p, cfg = json.loads(req.scenario_json), self.params, self.suite_config
        task = Task(sc["name"], tuple(parse_goal(g) for g in sc["goals"]), sc["instruction"])
        agent = SkillAgent(task, cfg.geometry, cfg.confidence.threshold, cfg.max_attempts)
        scorer = ServiceScorer(self, task.name, req.seed, p.service_timeout_s, agent)

        def record(query: Query, _scores: list[float], then: Decision, step: int) -> None:
            self.query_pub.publish(query_record(req.episode_id, query, scorer, then, step))

        try:
            robot = GraphSkillRobot(
                self.robot, cfg.geometry, req.episode_id, req.seed, p.settle_steps, p.reaction_latency_steps,
                self.get_name(), self.get_logger().warning,
            )  # fmt: skip
            result = run_skill_task(
                task, req.seed, cfg, sc["expected"], scorer, robot, p.stop_hold_steps, agent, record
            )
        finally:
            self.destroy_client(scorer.cli)
        return confidence_result_dict(result)


def main(args: list[str] | None = None) -> int:
    return main_for(SkillExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
