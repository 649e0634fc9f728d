"""Audit of an alerts bag by replay: the guard's decisions recomputed from the recorded inputs.

Per episode, the recorded ``robot/alerts`` and ``robot/status`` go through the same
``GuardCore`` as the live ``alert_guard``, with the scenario's status model (in the recorded
request) and the policy file and L recorded in the request's context -- never today's config;
a request without a context is a problem of the episode. Each recorded command is admitted at
its recorded step after every status before that step (as the guard does: the robot is idle
when it asks). Alert responses, stop/resume requests, stop windows and every admission must
equal the recorded result's, re-composed with ``compose_alert_result``; the result must equal
the run's JSONL record, if given.

With an agent under test (the result's ``agent`` part), its link is replayed alongside the
guard (core/suites/alerts/agent_link.py) with the recorded decisions: every observation it
builds must equal the recorded one (the agent saw what had been received and nothing else),
each admission is the guard's and the agent's combined as the node combines them, and the
agent's part is re-judged from the recorded observations and decisions (agent_score.py). Each
decision is checked as said (agent_common.said_again): the embedded model's text judged again,
and, when the reference decided, the reference (with the recorded policy) asked again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.outcome import Outcome
from alpha_matrix.core.suites import audit_common, registry
from alpha_matrix.core.suites.agent_common import said_again
from alpha_matrix.core.suites.alerts.agent_link import AlertAgentLink, final_admission
from alpha_matrix.core.suites.alerts.agent_score import alerts_agent_part
from alpha_matrix.core.suites.alerts.context import AlertsContext
from alpha_matrix.core.suites.alerts.guard import AlertEvent, GuardCore, compose_alert_result
from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, AlertPolicy, Severity
from alpha_matrix.core.suites.alerts.policy import RobotStatus as CoreStatus
from alpha_matrix.core.suites.alerts.scenarios import alert_scenario_from_json, load_alert_policy
from alpha_matrix.core.suites.audit_common import into
from alpha_matrix.core.suites.suite import SuiteAudit

SUITE = "alerts"


@dataclass
class AlertEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0  # other attempts of this episode id in the bag
    alerts: list[Any] = field(default_factory=list)
    statuses: list[Any] = field(default_factory=list)
    result: Any = None
    observations: list[Any] = field(default_factory=list)  # AgentObservation (an agent under test)
    decisions: list[Any] = field(default_factory=list)  # AgentDecision

    @property
    def scenario_json(self) -> str | None:
        return self.request.scenario_json if self.request is not None else None


def _episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == SUITE else None
    if topic in ("/robot/alerts", "/robot/status", "/suite/result", "/agent/observations", "/agent/decisions"):
        return msg.episode_id
    return None


_INTO = {
    "/suite/request": into("request"), "/robot/alerts": into("alerts"), "/robot/status": into("statuses"),
    "/suite/result": into("result"), "/agent/observations": into("observations"), "/agent/decisions": into("decisions"),
}  # fmt: skip


def load_alerts(bag_dir: Path) -> dict[str, AlertEpisode]:
    out = audit_common.load_episodes(bag_dir, _episode_of, lambda others: AlertEpisode(interrupted=others), _INTO)
    for ep in out.values():
        # Statuses by step (one writer: strictly increasing). Alerts by step, stable: same-step
        # alerts keep their publication order (one writer, in order), which the guard also sees.
        ep.statuses.sort(key=lambda m: int(m.step))
        ep.alerts.sort(key=lambda m: int(m.step))
    return out


class AgentReplay:
    """The agent's link replayed with its recorded decisions (by decision index)."""

    def __init__(self, ep: AlertEpisode, latency: int, guards: bool, reference: Any = None) -> None:
        self.obs = {int(m.decision_index): m for m in ep.observations}
        self.dec = {int(m.decision_index): m for m in ep.decisions}
        first = self.obs.get(0)
        task = json.loads(first.situation_json)["brief"]["task"] if first is not None else "?"
        self.link = AlertAgentLink(ep.request.episode_id if ep.request else "", task, latency)
        self.guards, self.reference = guards, reference  # a ReferenceAgent when the reference decided
        self.problems: list[str] = []

    def _take(self, obs: Any) -> Any:
        i = obs.decision_index
        if i not in self.obs or i not in self.dec:
            self.problems.append(f"decision {i} ({obs.situation['event']['kind']} at step {obs.step}): not recorded")
            return None
        if observation_of(self.obs[i]) != obs:
            self.problems.append(
                f"decision {i} (step {obs.step}): the recorded observation differs from the link's replay"
            )
            return None
        decision = decision_of(self.dec[i])
        if problem := said_again(obs, decision, self.reference):
            self.problems.append(problem)
            return None
        return decision

    def events(self, core: GuardCore) -> None:
        """Every event the guard processed that the agent has not decided on yet."""
        while not self.problems and len(self.link.received) < len(core.events):
            ev = core.events[len(self.link.received)]
            obs = self.link.on_event(ev, self.guards and core.stopped_at(ev.step))
            if obs is not None and (d := self._take(obs)) is not None:
                self.link.on_event_decision(d, ev.step)

    def command(self, core: GuardCore, command: str, step: int) -> None:
        """The command's admission as the node decides it: the guard's and the agent's."""
        self.events(core)
        if self.problems:
            return
        last = core.admissions[-1]
        obs = self.link.on_command(command, step, self.guards and core.stopped_at(step))
        if (d := self._take(obs)) is None:
            return
        ok, _change, why = self.link.on_command_decision(d, step)
        core.overrule(*final_admission((last.accepted, last.reason_code, last.message), ok, why, self.guards))

    def recorded(self) -> int:
        return len(self.dec)


def replay_guard(
    ep: AlertEpisode, commands: list[dict[str, Any]], policy: AlertPolicy, latency: int,
    agent: AgentReplay | None = None, accounted_to: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The guard's account of one episode, replayed with the live node's GuardCore.

    Alerts are only acted on when a status covering their step is credited, so giving the core
    every alert first changes nothing; statuses go in their recorded order. A command the
    robot would start at step s is admitted once every status before s is processed and
    before any later one, as the live guard does (the robot is idle while it asks).
    """
    sc = alert_scenario_from_json(ep.scenario_json or "")
    core = GuardCore(policy, sc.status, latency)
    for m in ep.alerts:  # as alert_guard._feed builds them
        alert = Alert(
            m.alert_id, AlertClass(m.alert_class), Severity(m.severity), int(m.step), json.loads(m.payload_json or "{}")
        )
        core.on_alert(AlertEvent(alert, int(m.step), bool(m.cleared)))
    todo = sorted(commands, key=lambda c: c["step"])  # stable: same-step commands keep their order

    def admit(c: dict[str, Any]) -> None:
        core.admit(c["command"], int(c["step"]))
        if agent is not None:
            agent.command(core, c["command"], int(c["step"]))

    for m in ep.statuses:
        if accounted_to is not None and int(m.step) > accounted_to:
            break  # streamed after the guard's account (a real-time driver runs on until the next reset)
        while todo and todo[0]["step"] <= int(m.step):
            admit(todo.pop(0))
        core.on_status(
            CoreStatus(int(m.step), m.battery_pct, tuple(m.joint_temp_c), tuple(m.actuator_ok)), m.alerts_issued
        )
    for c in todo:
        admit(c)
    if agent is not None:
        agent.events(core)
    return core.export()


def audit_alerts_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    policies = audit_common.FileLoads(load_alert_policy)

    def audit_one(ep_id: str, ep: AlertEpisode) -> SuiteAudit:
        recorded_n = replayed_n = 0
        ctx, where, problem = audit_common.request_context(SUITE, ep.request, needs="alert_guard policy file and L")
        problems = audit_common.not_replayable(ep, problem)
        if not problems and ep.result.ok and isinstance(ctx, AlertsContext):
            rec = json.loads(ep.result.result_json)
            try:
                policy = policies(ctx.policy).policy
            except ConfigError as err:
                policy, problems = None, [f"recorded policy: {err}"]
            if policy is not None:
                part, latency = rec.get("agent"), ctx.reaction_latency_steps
                agent = None
                if isinstance(part, dict):  # the reference is asked again with the recorded policy
                    reference = (
                        ReferenceAgent(registry.suite(SUITE), alerts=policy)
                        if part.get("agent") == "reference"
                        else None
                    )
                    agent = AgentReplay(ep, latency, bool(part["guards"]), reference)
                until = int(rec.get("accounted_to", rec["steps"]))  # the statuses the live account covered
                account = replay_guard(ep, rec["commands"], policy, latency, agent, until)
                if agent is not None and isinstance(part, dict):
                    problems += agent.problems
                    pairs = [(agent.obs[i], agent.dec[i]) for i in sorted(agent.dec) if i in agent.obs]
                    account["agent"] = alerts_agent_part(pairs, policy, latency, part["agent"], bool(part["guards"]))
                replay = audit_common.as_json(
                    compose_alert_result(
                        rec["name"], rec["seed"], account, rec["steps"], rec["plan_complete"], Outcome(**rec["outcome"])
                    )
                )
                recorded_n = len(rec["alerts"]) + len(rec["commands"]) + len(rec["stop_requests"])
                replayed_n = len(replay["alerts"]) + len(replay["commands"]) + len(replay["stop_requests"])
                d = audit_common.first_difference(rec, replay)
                if d:
                    problems.append(f"suite/result differs from the guard's replay at {d}")
        inputs = len(ep.alerts) + len(ep.statuses)
        return SuiteAudit(ep_id, inputs, recorded_n, replayed_n, tuple(problems), ep.interrupted, where)

    return audit_common.audit_episodes(load_alerts(bag_dir), run_dir, audit_one)


__all__ = ["AlertEpisode", "audit_alerts_bag", "load_alerts", "replay_guard"]
