"""skill_confidence: the VLA-confidence emulator as a service (core/suites/confidence/emulator.py).

skill/confidence: candidate instructions + state -> confidence per candidate, with whether
each is in the training distribution, feasible now, and why not. Stateless apart from its
config: the same request always gets the same answer, so a real policy can replace it.
"""

from __future__ import annotations

from pathlib import Path

from alpha_matrix_interfaces.srv import SkillConfidence
from rclpy.node import Node

from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.params import SkillConfidenceParams
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config
from alpha_matrix.core.suites.confidence.skills import SkillState
from alpha_matrix.ros.convert import poses_of
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params


class SkillConfidenceNode(Node):
    def __init__(self) -> None:
        super().__init__("skill_confidence")
        self.params = declare_params(self, SkillConfidenceParams)
        self.suite = load_skills_config(Path(self.params.skills_file) if self.params.skills_file else None)
        self.create_service(SkillConfidence, "skill/confidence", self._on_request)
        self.get_logger().info(f"emulator of {self.suite.path}: threshold {self.suite.confidence.threshold}")

    def _on_request(self, req: SkillConfidence.Request, res: SkillConfidence.Response) -> SkillConfidence.Response:
        emulator = ConfidenceEmulator(self.suite.confidence, req.seed, episode_id=req.episode_id)
        positions = {name: pos for name, (pos, _q) in poses_of(req.objects).items()}
        state = SkillState(positions, req.holding or None, req.gripper_width)
        scored = emulator.score(list(req.candidates), state, req.query_index)
        res.confidence = [a.confidence for a in scored]
        res.in_distribution = [a.in_distribution for a in scored]
        res.feasible = [a.feasible for a in scored]
        res.reason = [a.reason for a in scored]
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(SkillConfidenceNode, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
