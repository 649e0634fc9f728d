"""proximity_agent_link: the agent's eyes and hands in the proximity suite (core/suites/proximity/agent_link.py).

Per camera frame (its tag on ``camera/depth/camera_info``): wait for the detector's estimate,
and at a decision point ask the agent (``agent/decide``) with the window of estimates and the
robot's stop state (with ``images``, also the frame's colour image, PNG, for multimodal
models), then request the stop or release the decision calls for, with decision_step = the
frame's step. A gating consumer: it acks the frame's steps only after the
decision is in, so however long the model thinks, the decision lands at frame + L. It never
sees a ``sim/`` topic; the agent never sees the detector's policy (only its estimates).
"""

from __future__ import annotations

import numpy as np
from alpha_matrix_interfaces.msg import ProximityEstimate, StepBatch, SuiteRequest
from alpha_matrix_interfaces.srv import Decide
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image

from alpha_matrix.core.agent.images import rgb_image
from alpha_matrix.core.agent.protocol import Image as AgentImage
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.proximity.agent_link import AgentLink, sorting_brief
from alpha_matrix.core.suites.proximity.params import ProximityAgentLinkParams
from alpha_matrix.core.suites.proximity.run import SUITE, ProximityScenario, parse_frame_tag, scenario_from_json
from alpha_matrix.core.suites.proximity.situation import frame_estimate
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.mailbox import Mailbox
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, IMAGES, STEP_STREAM
from alpha_matrix.ros.request_queue import RequestQueue
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.spin import spin_behind


class ProximityAgentLinkNode(Node):
    def __init__(self) -> None:
        super().__init__("proximity_agent_link")
        self.params = declare_params(self, ProximityAgentLinkParams)
        self.gating = GatingLink(self, keepalive=True)  # alive while the model thinks, however long
        self.decide_cli = self.create_client(Decide, "agent/decide")
        self.thresholds: Mailbox[str, ProximityScenario] = Mailbox()  # episode -> the run (its threshold, its task)
        self.estimates: Mailbox[tuple[str, int], ProximityEstimate] = Mailbox()
        self.frames: RequestQueue[tuple[str, int]] = RequestQueue()
        self.link: AgentLink | None = None
        self.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.create_subscription(CameraInfo, "camera/depth/camera_info", self._on_info, IMAGES)
        self.create_subscription(
            ProximityEstimate,
            "proximity/estimate",
            lambda m: self.estimates.put((m.episode_id, int(m.step)), m),
            EVENTS,
        )
        self.create_subscription(StepBatch, "robot/step_batch", lambda _m: None, STEP_STREAM)
        self.rgb: Mailbox[tuple[str, int], Image] = Mailbox()
        if self.params.images:  # the frame's colour image goes with each observation (multimodal models)
            self.create_subscription(
                Image,
                "camera/color/image_raw",
                lambda m: self.rgb.put(parse_frame_tag(m.header.frame_id), m),
                IMAGES,
            )

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite == SUITE:
            self.thresholds.put(msg.episode_id, scenario_from_json(msg.scenario_json))

    def _on_info(self, msg: CameraInfo) -> None:
        self.gating.streaming()
        self.frames.put(parse_frame_tag(msg.header.frame_id))

    def serve(self) -> None:
        # An empty observation is answered "invalid" with no side effect: it matches the reply path
        # both ways before the first real decision (whose reply could otherwise be lost).
        handshake(self.decide_cli, Decide.Request(), self.params.decide_timeout_s)
        self.frames.serve(self._on_frame, lambda _none: None)

    def _on_frame(self, frame: tuple[str, int]) -> None:
        episode, step = frame
        p = self.params
        if self.link is None or self.link.episode_id != episode:
            if not self.thresholds.wait_until(lambda: episode in self.thresholds.items, p.service_timeout_s):
                raise AlphaMatrixError(f"{episode}: no suite/request within {p.service_timeout_s:.0f} s")
            sc = self.thresholds.items.pop(episode)
            safe_pose_m, resume_after_s = sorting_brief(sc)  # (None, None) but in a sorting run
            self.link = AgentLink(
                episode, sc.threshold, p.decision_every_frames, p.reaction_latency_steps,
                safe_pose_m=safe_pose_m, resume_after_s=resume_after_s,
            )  # fmt: skip
        link = self.link
        if not link.needs_estimate():
            self.gating.ack(episode, link.on_calibration_frame(step))
            return
        est = self.estimates.take((episode, step), p.service_timeout_s)
        if est is None:
            raise AlphaMatrixError(
                f"{episode}: no proximity/estimate of step {step} within {p.service_timeout_s:.0f} s"
            )
        obs = link.on_estimate(frame_estimate(est), est.action if p.guards else "none")
        if obs is not None:
            if p.images:
                obs = obs.model_copy(update={"images": (self._frame_image(episode, step),)})
            reply = call_service(
                self.decide_cli, Decide.Request(observation=observation_to_msg(obs)), p.decide_timeout_s
            )
            engage = link.on_decision(decision_from_msg(reply.decision), step)
            if engage is not None:
                why = f"agent: {reply.decision.tool}"
                self.gating.request_stop(episode, engage, step, why, self.get_logger().error)
        self.gating.ack(episode, link.ack_step(step))

    def _frame_image(self, episode: str, step: int) -> AgentImage:
        """The colour image of the frame, as PNG; older frames (never decided on) are dropped."""
        msg = self.rgb.take((episode, step), self.params.service_timeout_s)
        with self.rgb.cond:
            for key in [k for k in self.rgb.items if k[0] != episode or k[1] < step]:
                del self.rgb.items[key]
        if msg is None:
            raise AlphaMatrixError(
                f"{episode}: no camera/color/image_raw of step {step} within {self.params.service_timeout_s:.0f} s "
                "(proximity_agent_link.images needs sim_bridge.publish_rgb)"
            )
        if msg.encoding != "rgb8":
            raise AlphaMatrixError(f"camera/color/image_raw: encoding {msg.encoding!r}, expected rgb8")
        rows = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(msg.height, msg.step)
        return rgb_image(rows[:, : msg.width * 3].reshape(msg.height, msg.width, 3), step)


def main(args: list[str] | None = None) -> int:
    return run_node(ProximityAgentLinkNode, lambda node: spin_behind(node, node.serve), args)


if __name__ == "__main__":
    raise SystemExit(main())
