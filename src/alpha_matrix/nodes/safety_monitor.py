"""safety_monitor: checks every physics step of the step stream (core/safety/engine.py; what it
decides, and when an episode's account closes: core/safety/monitor.py).

A gating consumer: it acknowledges each StepBatch after checking it, so the bridge never
runs more than the reaction latency ahead, and a critical event opened at step k requests a
protective stop decided at k, applied by the bridge at k + L in every run. The request is
counted in the next ack (StepAck.requests_issued), so the ack cannot overtake it.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import EpisodeEnd, SafetyEvent, SafetySummary, StepBatch
from rclpy.node import Node

from alpha_matrix.core.safety.engine import SafetyConfig
from alpha_matrix.core.safety.engine import SafetyEvent as CoreEvent
from alpha_matrix.core.safety.monitor import Account, MonitorCore
from alpha_matrix.core.safety.params import SafetyMonitorParams
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM


class SafetyMonitor(Node):
    def __init__(self) -> None:
        super().__init__("safety_monitor")
        self.params = declare_params(self, SafetyMonitorParams)
        self.config = SafetyConfig(contact_threshold=self.params.contact_threshold, window=self.params.window)
        self.core = MonitorCore(self.config, self.params.stop_on_critical, self)  # core/safety/monitor.py
        self.gating = GatingLink(self)  # hello until the first batch, then acks
        self.event_pub = self.create_publisher(SafetyEvent, "safety/events", EVENTS)
        self.summary_pub = self.create_publisher(SafetySummary, "safety/summary", EVENTS)
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        self.create_subscription(EpisodeEnd, "episode/end", self._on_end, EVENTS)

    # -- MonitorOutputs -------------------------------------------------------------------
    def event(self, episode_id: str, event: CoreEvent, stop_requested: bool) -> None:
        e = event
        self.event_pub.publish(
            SafetyEvent(
                episode_id=episode_id,
                kind=e.kind,
                key=e.key,
                severity=e.severity,
                closed=not e.is_open,
                start_step=e.start_step,
                last_unsafe_step=e.last_unsafe_step,
                close_step=e.close_step or 0,
                scans=e.scans,
                peak=e.peak,
                window=self.config.window,
                stop_requested=stop_requested,
            )
        )

    def stop(self, episode_id: str, step: int, reason: str) -> None:
        self.gating.request_stop(episode_id, True, step, reason)

    def ack(self, episode_id: str, step: int) -> None:
        self.gating.ack(episode_id, step)

    def summary(self, account: Account) -> None:
        self.summary_pub.publish(
            SafetySummary(
                episode_id=account.episode_id,
                first_step=account.first_step,
                last_step=account.last_step,
                steps_checked=account.steps_checked,
                raw_scans=account.raw_scans,
                events=account.events,
                critical=account.critical,
                contact_threshold=self.config.contact_threshold,
                threshold_source=self.params.threshold_source,
                window=self.config.window,
            )
        )

    # -- inputs ---------------------------------------------------------------------------
    def _on_end(self, msg: EpisodeEnd) -> None:
        self.core.on_end(msg.episode_id, int(msg.last_step))

    def _on_batch(self, msg: StepBatch) -> None:
        self.gating.streaming()
        self.core.on_batch(msg)


def main(args: list[str] | None = None) -> int:
    return run_node(SafetyMonitor, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
