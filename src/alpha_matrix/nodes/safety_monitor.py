"""safety_monitor: checks every physics step of the step stream (core/safety/engine.py).

A gating consumer: it acknowledges each StepBatch after checking it, so the bridge never
runs more than the reaction latency ahead, and a critical event opened at step k requests a
protective stop decided at k, applied by the bridge at k + L in every run. The request is
counted in the next ack (StepAck.requests_issued), so the ack cannot overtake it.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import EpisodeEnd, SafetyEvent, SafetySummary, StepBatch
from rclpy.node import Node

from alpha_matrix.core.safety.engine import SafetyConfig, SafetyEngine, critical_openings
from alpha_matrix.core.safety.engine import SafetyEvent as CoreEvent
from alpha_matrix.core.safety.params import SafetyMonitorParams
from alpha_matrix.core.safety.stream import process_batch
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM


class SafetyMonitor(Node):
    def __init__(self) -> None:
        super().__init__("safety_monitor")
        self.params = declare_params(self, SafetyMonitorParams)
        self.config = SafetyConfig(contact_threshold=self.params.contact_threshold, window=self.params.window)
        self.engine = SafetyEngine(self.config)
        self.episode = ""
        self.finished: tuple[str, int] = ("", 0)  # the last finished episode and its last step
        self.first_step = 0
        self.last_step = 0
        self.pending_end: dict[str, int] = {}
        self.stopped_events: set[int] = set()
        self.gating = GatingLink(self)  # hello until the first batch, then acks
        self.event_pub = self.create_publisher(SafetyEvent, "safety/events", EVENTS)
        self.summary_pub = self.create_publisher(SafetySummary, "safety/summary", EVENTS)
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        self.create_subscription(EpisodeEnd, "episode/end", self._on_end, EVENTS)

    def _publish(self, e: CoreEvent) -> None:
        self.event_pub.publish(
            SafetyEvent(
                episode_id=self.episode,
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
                stop_requested=e.event_id in self.stopped_events,
            )
        )

    def _finish(self) -> None:
        for e in self.engine.finish(self.last_step):
            self._publish(e)
        events = self.engine.events
        self.summary_pub.publish(
            SafetySummary(
                episode_id=self.episode,
                first_step=self.first_step,
                last_step=self.last_step,
                steps_checked=self.engine.steps_checked,
                raw_scans=self.engine.raw_scans,
                events=len(events),
                critical=sum(e.severity == "critical" for e in events),
                contact_threshold=self.config.contact_threshold,
                threshold_source=self.params.threshold_source,
                window=self.config.window,
            )
        )
        self.finished = (self.episode, self.last_step)
        self.episode = ""

    def _on_end(self, msg: EpisodeEnd) -> None:
        if msg.episode_id == self.episode and self.last_step >= msg.last_step:
            self._finish()
        else:
            self.pending_end[msg.episode_id] = msg.last_step

    def _on_batch(self, msg: StepBatch) -> None:
        self.gating.streaming()
        if msg.episode_id == self.finished[0] and msg.first_step > self.finished[1]:
            # A real-time driver streams on after the episode's end, until the next reset: those
            # steps belong to no episode's account (acked, so a consumer count stays right).
            self.gating.ack(msg.episode_id, int(msg.first_step) + int(msg.num_steps) - 1)
            return
        if msg.episode_id != self.episode or msg.first_step <= self.last_step:  # a new episode (or a reset)
            if self.episode:
                self._finish()
            self.engine.reset()
            self.stopped_events.clear()
            self.episode, self.first_step = msg.episode_id, msg.first_step
        for step, changed in process_batch(self.engine, msg):
            if self.params.stop_on_critical:
                for e in critical_openings(changed, step):
                    self.stopped_events.add(e.event_id)
                    self.gating.request_stop(msg.episode_id, True, step, f"{e.kind} {e.key} (peak {e.peak:.3g})")
            for e in changed:
                self._publish(e)
            self.last_step = step
        self.gating.ack(msg.episode_id, self.last_step)
        end = self.pending_end.get(self.episode)
        if end is not None and self.last_step >= end:
            del self.pending_end[self.episode]
            self._finish()


def main(args: list[str] | None = None) -> int:
    return run_node(SafetyMonitor, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
