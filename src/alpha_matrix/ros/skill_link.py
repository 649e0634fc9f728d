"""The confidence suite through the graph: the skill/confidence service as the agent's scorer, the
query record for skill/queries, and the driver contract as the agent's robot (``SkillRobot``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from alpha_matrix_interfaces.msg import CommandStatus, ConfidenceQuery, ObjectState
from alpha_matrix_interfaces.srv import SkillConfidence
from geometry_msgs.msg import Pose
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.planning.plan import Plan
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.suites.confidence.agent import Call, Decision, Query, Stop
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, Skill, SkillState
from alpha_matrix.ros.convert import point
from alpha_matrix.ros.robot_client import RobotClient, skill_state
from alpha_matrix.ros.services import call_service


class ServiceScorer:
    """Scorer over the skill/confidence service; keeps the last exchange for the query record."""

    def __init__(self, node: Node, episode_id: str, seed: int, timeout_s: float) -> None:
        self.cli = node.create_client(SkillConfidence, "skill/confidence")  # noise stream: (seed, task name, query)
        self.node, self.episode_id, self.seed, self.timeout = node, episode_id, seed, timeout_s
        self.last: tuple[SkillConfidence.Request, SkillConfidence.Response] | None = None

    def confidences(
        self, candidates: Sequence[Skill], state: SkillState, query_index: int, hypothetical: bool = False
    ) -> list[float]:
        objects = []
        for name, pos in state.positions.items():
            pose = Pose()
            pose.position = point(pos)
            pose.orientation.w = 1.0
            objects.append(ObjectState(name=name, pose=pose))
        req = SkillConfidence.Request(
            episode_id=self.episode_id,
            seed=self.seed,
            query_index=query_index,
            hypothetical=hypothetical,
            candidates=[c.text for c in candidates],
            objects=objects,
            holding=state.holding or "",
            gripper_width=state.gripper_width,
        )
        res = call_service(self.cli, req, self.timeout)
        self.last = (req, res)
        return list(res.confidence)


def query_record(
    suite_episode: str, scorer: ServiceScorer, purpose: str, step: int, then: str, then_skill: str = "",
    stop_reason: str = "",
) -> ConfidenceQuery:  # fmt: skip
    """The skill/queries record of one answered query (request and answer as exchanged)."""
    assert scorer.last is not None
    req, res = scorer.last
    return ConfidenceQuery(
        episode_id=suite_episode,
        stream_id=req.episode_id,
        seed=req.seed,
        query_index=req.query_index,
        hypothetical=req.hypothetical,
        purpose=purpose,
        candidates=list(req.candidates),
        objects=list(req.objects),
        holding=req.holding,
        gripper_width=req.gripper_width,
        confidence=list(res.confidence),
        in_distribution=list(res.in_distribution),
        feasible=list(res.feasible),
        reason=list(res.reason),
        step=step,
        next_action=then,
        next_skill=then_skill,
        stop_reason=stop_reason,
    )


def skill_agent_record(
    suite_episode: str, query: Query, scorer: ServiceScorer, then: Decision, step: int
) -> ConfidenceQuery:
    """``query_record`` of a SkillAgent's query and what it decided next."""
    action = "query" if isinstance(then, Query) else "call" if isinstance(then, Call) else "stop"
    skill = then.skill.text if isinstance(then, Call) else ""
    return query_record(
        suite_episode, scorer, query.purpose, step, action, skill, then.reason if isinstance(then, Stop) else ""
    )


class GraphSkillRobot:
    """``SkillRobot`` over the driver contract; stopped at the end by a protective stop from ``requester``."""

    def __init__(
        self, robot: RobotClient, geo: SceneGeometry, episode_id: str, seed: int, settle_steps: int, latency: int,
        requester: str, warn: Callable[[str], object],
    ) -> None:  # fmt: skip
        self.robot, self.geo, self.episode_id, self.seed = robot, geo, episode_id, seed
        self.settle_steps, self.latency, self.requester, self.warn = settle_steps, latency, requester, warn

    def start(self) -> tuple[SkillState, int]:
        status = self.robot.reset(self.episode_id, self.seed, self.settle_steps)
        return skill_state(status, self.geo), status.end_step

    def execute(self, plan: Plan) -> tuple[SkillState, int]:
        ids = []
        for cmd in plan_to_commands(plan):
            reply = self.robot.send(cmd)
            if not reply.accepted:
                self.warn(f"{self.episode_id}: {cmd.kind} refused: {reply.message}")
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
        reply = self.robot.stop(end, self.requester, "task finished")
        after: CommandStatus = self.robot.hold(self.latency + 1)
        stopped = reply.accepted and after.state == CommandStatus.CANCELLED and "protective stop" in after.message
        return state, after.end_step, stopped
