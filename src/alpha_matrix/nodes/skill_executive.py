"""skill_executive: the confidence suite's task through the graph.

For each confidence scenario on suite/request: reset the robot, then run the task's skill loop
over the driver contract (robot/move_to, robot/gripper) and the skill_confidence service, and
stop the robot at the end (a protective stop decided after the final hold, landing L steps
later). Who decides is the ``agent`` parameter:

* none (""): SkillAgent, the scripted executive (core/suites/confidence/run.run_skill_task);
* an agent under test: every decision is asked of agent/decide
  (core/suites/confidence/agent_run.run_agent_skill_task), with the confidence gate under it
  (``guards``); the record's ``agent`` part is judged from the decisions and the answers
  (core/suites/confidence/agent_score.py).

Every query, its answer and what the decider did next go out on skill/queries
(ConfidenceQuery), so the bag holds what the gate acted on (service calls are not recorded).
The result goes out on suite/result. The graph adapters are ros/skill_link.py's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from alpha_matrix_interfaces.msg import AgentDecision, ConfidenceQuery, SuiteRequest
from alpha_matrix_interfaces.srv import Decide

from alpha_matrix.core.agent.protocol import Decision as AgentAnswer
from alpha_matrix.core.agent.protocol import Observation
from alpha_matrix.core.suites.confidence.agent import Decision, Query, SkillAgent, Task
from alpha_matrix.core.suites.confidence.agent_run import CheckAnswer, run_agent_skill_task
from alpha_matrix.core.suites.confidence.agent_score import Answer, confidence_agent_part
from alpha_matrix.core.suites.confidence.params import SkillExecutiveParams
from alpha_matrix.core.suites.confidence.run import confidence_result_dict, run_skill_task
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config, parse_goal
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.robot_client import RobotClient
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.skill_link import GraphSkillRobot, ServiceScorer, query_record, skill_agent_record
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for

AGENT_PURPOSE = "check"  # the purpose of an agent's check in the skill/queries record


class SkillExecutive(SuiteExecutive):
    suite = "confidence"

    def __init__(self) -> None:
        super().__init__("skill_executive")
        self.params = declare_params(self, SkillExecutiveParams)
        self.suite_config = load_skills_config(Path(self.params.skills_file) if self.params.skills_file else None)
        self.robot = RobotClient(self, self.params.service_timeout_s)
        self.query_pub = self.create_publisher(ConfidenceQuery, "skill/queries", EVENTS)
        self.decide_cli = self.create_client(Decide, "agent/decide") if self.params.agent else None
        self.agent_ready = False

    def run_request(self, req: SuiteRequest) -> dict:
        sc, p, cfg = json.loads(req.scenario_json), self.params, self.suite_config
        task = Task(sc["name"], tuple(parse_goal(g) for g in sc["goals"]), sc["instruction"])
        scorer = ServiceScorer(self, task.name, req.seed, p.service_timeout_s)
        try:
            robot = GraphSkillRobot(
                self.robot, cfg.geometry, req.episode_id, req.seed, p.settle_steps, p.reaction_latency_steps,
                self.get_name(), self.get_logger().warning,
            )  # fmt: skip
            if p.agent:
                return self._run_agent(req, task, sc["expected"], scorer, robot)
            agent = SkillAgent(task, cfg.geometry, cfg.confidence.threshold, cfg.max_attempts)

            def record(query: Query, _scores: list[float], then: Decision, step: int) -> None:
                self.query_pub.publish(skill_agent_record(req.episode_id, query, scorer, then, step))

            result = run_skill_task(
                task, req.seed, cfg, sc["expected"], scorer, robot, p.stop_hold_steps, agent, record
            )
        finally:
            self.destroy_client(scorer.cli)
        return confidence_result_dict(result)

    def _run_agent(
        self, req: SuiteRequest, task: Task, expected: dict[str, bool], scorer: ServiceScorer, robot: GraphSkillRobot
    ) -> dict[str, Any]:
        p, cfg = self.params, self.suite_config
        assert self.decide_cli is not None
        if not self.agent_ready:  # an empty observation is answered "invalid" with no side effect
            handshake(self.decide_cli, Decide.Request(), p.decide_timeout_s)
            self.agent_ready = True
        replies: list[AgentDecision] = []

        def ask(obs: Observation) -> AgentAnswer:
            reply = call_service(
                self.decide_cli, Decide.Request(observation=observation_to_msg(obs)), p.decide_timeout_s
            )
            replies.append(reply.decision)
            return decision_from_msg(reply.decision)

        def record(check: CheckAnswer) -> None:
            msg = query_record(req.episode_id, scorer, AGENT_PURPOSE, check.step, check.then, check.then_skill,
                               check.stop_reason)  # fmt: skip
            self.query_pub.publish(msg)

        result, run = run_agent_skill_task(
            task, req.seed, cfg, expected, scorer, robot, ask, guards=p.guards, max_decisions=p.max_decisions,
            hold_steps=p.stop_hold_steps, episode_id=req.episode_id, on_check=record,
        )  # fmt: skip
        answers = [Answer(c.instruction, c.confidence, c.hypothetical) for c in run.checks]
        out = confidence_result_dict(result)
        out["agent"] = confidence_agent_part(
            replies, answers, cfg.confidence.threshold, p.agent, p.guards, result.task_completed, run.budget_spent
        )
        return out


def main(args: list[str] | None = None) -> int:
    return main_for(SkillExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
