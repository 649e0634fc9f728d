"""skill_executive: runs SkillAgent through the graph (DESIGN §7 item 4).

For each confidence scenario on suite/request: reset the robot, then the gating loop of
core/suite_graph.run_skill_task -- the skill_confidence service is queried before every skill
call, the ledger refuses any call below threshold or unchecked, skills run as driver commands
(robot/move_to, robot/gripper), and the robot is stopped at the end (a protective stop decided
after the final hold, landing L steps later). The result goes out on suite/result; every query,
its answer and what the agent did next go out on skill/queries (ConfidenceQuery), so the bag
holds what the gate acted on (service calls are not recorded).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from alpha_matrix_interfaces.msg import CommandStatus, ConfidenceQuery, ObjectState, SuiteRequest
from alpha_matrix_interfaces.srv import SkillConfidence
from geometry_msgs.msg import Pose
from rclpy.node import Node

from alpha_matrix.core.config import SkillExecutiveParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.planning.plan import Plan
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.suites.confidence.agent import Call, Decision, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config, parse_goal
from alpha_matrix.core.suites.confidence.skills import Skill, SkillState
from alpha_matrix.core.suites.graph import confidence_result_dict, run_skill_task
from alpha_matrix.ros.convert import point
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.robot_client import RobotClient, skill_state
from alpha_matrix.ros.services import call_service
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for


class ServiceScorer:
    """Scorer over the skill/confidence service; keeps the last exchange for the query record."""

    def __init__(self, node: Node, episode_id: str, seed: int, timeout_s: float, agent: SkillAgent) -> None:
        self.cli = node.create_client(SkillConfidence, "skill/confidence")  # noise stream: (seed, task name, query)
        self.node, self.episode_id, self.seed, self.timeout = node, episode_id, seed, timeout_s
        self.agent = agent  # the query being answered says whether it is hypothetical
        self.last: tuple[SkillConfidence.Request, SkillConfidence.Response] | None = None

    def confidences(self, candidates: Sequence[Skill], state: SkillState, query_index: int) -> list[float]:
        objects = []
        for name, pos in state.positions.items():
            pose = Pose()
            pose.position = point(pos)
            pose.orientation.w = 1.0
            objects.append(ObjectState(name=name, pose=pose))
        pending = self.agent.pending
        req = SkillConfidence.Request(
            episode_id=self.episode_id,
            seed=self.seed,
            query_index=query_index,
            hypothetical=bool(pending is not None and pending.hypothetical),
            candidates=[c.text for c in candidates],
            objects=objects,
            holding=state.holding or "",
            gripper_width=state.gripper_width,
        )
        res = call_service(self.cli, req, self.timeout)
        self.last = (req, res)
        return list(res.confidence)


def query_record(suite_episode: str, query: Query, scorer: ServiceScorer, then: Decision, step: int) -> ConfidenceQuery:
    """The skill/queries record of one answered query (request and answer as exchanged)."""
    assert scorer.last is not None
    req, res = scorer.last
    return ConfidenceQuery(
        episode_id=suite_episode,
        stream_id=req.episode_id,
        seed=req.seed,
        query_index=req.query_index,
        hypothetical=query.hypothetical,
        purpose=query.purpose,
        candidates=list(req.candidates),
        objects=list(req.objects),
        holding=req.holding,
        gripper_width=req.gripper_width,
        confidence=list(res.confidence),
        in_distribution=list(res.in_distribution),
        feasible=list(res.feasible),
        reason=list(res.reason),
        step=step,
        next_action="query" if isinstance(then, Query) else "call" if isinstance(then, Call) else "stop",
        next_skill=then.skill.text if isinstance(then, Call) else "",
        stop_reason=then.reason if isinstance(then, Stop) else "",
    )


class GraphSkillRobot:
    """``SkillRobot`` over the driver contract."""

    def __init__(self, exe: SkillExecutive, episode_id: str, seed: int) -> None:
        self.exe, self.robot, self.episode_id, self.seed = exe, exe.robot, episode_id, seed
        self.geo = exe.suite_config.geometry

    def start(self) -> tuple[SkillState, int]:
        status = self.robot.reset(self.episode_id, self.seed, self.exe.params.settle_steps)
        return skill_state(status, self.geo), status.end_step

    def execute(self, plan: Plan) -> tuple[SkillState, int]:
        ids = []
        for cmd in plan_to_commands(plan):
            reply = self.robot.send(cmd)
            if not reply.accepted:
                self.exe.get_logger().warning(f"{self.episode_id}: {cmd.kind} refused: {reply.message}")
                break
            ids.append(reply.command_id)
        status = None
        for cid in ids:
            status = self.robot.wait(cid)
        if status is None:
            raise AlphaMatrixError(f"{self.episode_id}: the robot refused the skill's first command")
        return skill_state(status, self.geo), status.end_step

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]:
        status = self.robot.hold(hold_steps)
        state, end = skill_state(status, self.geo), status.end_step
        # Stop the robot: decided now, it lands L steps later; a hold lets time pass until it does.
        reply = self.robot.stop(end, self.exe.get_name(), "task finished")
        after: CommandStatus = self.robot.hold(self.exe.params.reaction_latency_steps + 1)
        stopped = reply.accepted and after.state == CommandStatus.CANCELLED and "protective stop" in after.message
        return state, after.end_step + 1 if stopped else after.end_step, stopped


class SkillExecutive(SuiteExecutive):
    suite = "confidence"

    def __init__(self) -> None:
        super().__init__("skill_executive")
        self.params = declare_params(self, SkillExecutiveParams)
        self.suite_config = load_skills_config(Path(self.params.skills_file) if self.params.skills_file else None)
        self.robot = RobotClient(self, self.params.service_timeout_s)
        self.query_pub = self.create_publisher(ConfidenceQuery, "skill/queries", EVENTS)

    def run_request(self, req: SuiteRequest) -> dict:
        sc = json.loads(req.scenario_json)
        task = Task(sc["name"], tuple(parse_goal(g) for g in sc["goals"]), sc["instruction"])
        cfg = self.suite_config
        agent = SkillAgent(task, cfg.geometry, cfg.confidence.threshold, cfg.max_attempts)
        scorer = ServiceScorer(self, task.name, req.seed, self.params.service_timeout_s, agent)

        def record(query: Query, _scores: list[float], then: Decision, step: int) -> None:
            self.query_pub.publish(query_record(req.episode_id, query, scorer, then, step))

        try:
            robot = GraphSkillRobot(self, req.episode_id, req.seed)
            result = run_skill_task(
                task, req.seed, cfg, sc["expected"], scorer, robot, self.params.stop_hold_steps, agent, record
            )
        finally:
            self.destroy_client(scorer.cli)
        return confidence_result_dict(result)


def main(args: list[str] | None = None) -> int:
    return main_for(SkillExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
