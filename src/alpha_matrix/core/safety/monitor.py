"""The safety monitor's decisions, without ROS: which episode each StepBatch and each end notice
belongs to, every step checked once, stops requested at the step a critical event opens, and
each episode's account closed once.

An episode's account closes when the monitor has both the runner's end notice (episode/end,
``last_step``) and every step up to that step, whichever of the two arrives last. Its record
fields therefore depend on the arrival order of the step stream and episode/end only if steps
past ``last_step`` can reach the monitor before the notice. The simulated driver runs none:
``last_step`` is the last step it ran for the episode, a protective stop's step included (the
commands a stop cuts end at the step it applied, core/robot/driver.py). A real-time driver
streams on after the end; the steps after ``last_step`` that come after the notice belong to no
episode's account (they are acked, so a consumer count stays right), and its records claim no
bit-identity (docs/driver-contract.md).

nodes/safety_monitor.py feeds the messages in and sends what comes out (``MonitorOutputs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from alpha_matrix.core.safety.engine import SafetyConfig, SafetyEngine, SafetyEvent, critical_openings
from alpha_matrix.core.safety.stream import process_batch


@dataclass(frozen=True)
class Account:
    """One finished episode's account (SafetySummary without the threshold's provenance)."""

    episode_id: str
    first_step: int
    last_step: int
    steps_checked: int
    raw_scans: int
    events: int
    critical: int


class MonitorOutputs(Protocol):
    """What the monitor sends, in the order it decides it."""

    def event(self, episode_id: str, event: SafetyEvent, stop_requested: bool) -> None: ...
    def stop(self, episode_id: str, step: int, reason: str) -> None: ...
    def ack(self, episode_id: str, step: int) -> None: ...
    def summary(self, account: Account) -> None: ...


class MonitorCore:
    def __init__(self, config: SafetyConfig, stop_on_critical: bool, out: MonitorOutputs) -> None:
        self.config, self.stop_on_critical, self.out = config, stop_on_critical, out
        self.engine = SafetyEngine(config)
        self.episode = ""
        self.finished: tuple[str, int] = ("", 0)  # the last finished episode and its last step
        self.first_step = 0
        self.last_step = 0
        self.pending_end: dict[str, int] = {}
        self.stopped_events: set[int] = set()

    def on_end(self, episode_id: str, last_step: int) -> None:
        """The runner's end notice: close now if every step up to ``last_step`` was checked."""
        if episode_id == self.episode and self.last_step >= last_step:
            self._finish()
        else:
            self.pending_end[episode_id] = last_step

    def on_batch(self, batch: Any) -> None:
        """Check every step of ``batch`` (a StepBatch, duck-typed), ack it, close a pending end."""
        if batch.episode_id == self.finished[0] and batch.first_step > self.finished[1]:
            # A real-time driver streams on after the episode's end, until the next reset: those
            # steps belong to no episode's account (acked, so a consumer count stays right).
            self.out.ack(batch.episode_id, int(batch.first_step) + int(batch.num_steps) - 1)
            return
        if batch.episode_id != self.episode or batch.first_step <= self.last_step:  # a new episode (or a reset)
            if self.episode:
                self._finish()
            self.engine.reset()
            self.stopped_events.clear()
            self.episode, self.first_step = batch.episode_id, int(batch.first_step)
        for step, changed in process_batch(self.engine, batch):
            if self.stop_on_critical:
                for e in critical_openings(changed, step):
                    self.stopped_events.add(e.event_id)
                    self.out.stop(batch.episode_id, step, f"{e.kind} {e.key} (peak {e.peak:.3g})")
            for e in changed:
                self.out.event(self.episode, e, e.event_id in self.stopped_events)
            self.last_step = step
        self.out.ack(batch.episode_id, self.last_step)
        end = self.pending_end.get(self.episode)
        if end is not None and self.last_step >= end:
            del self.pending_end[self.episode]
            self._finish()

    def _finish(self) -> None:
        for e in self.engine.finish(self.last_step):
            self.out.event(self.episode, e, e.event_id in self.stopped_events)
        events = self.engine.events
        self.out.summary(
            Account(
                episode_id=self.episode,
                first_step=self.first_step,
                last_step=self.last_step,
                steps_checked=self.engine.steps_checked,
                raw_scans=self.engine.raw_scans,
                events=len(events),
                critical=sum(e.severity == "critical" for e in events),
            )
        )
        self.finished = (self.episode, self.last_step)
        self.episode = ""
