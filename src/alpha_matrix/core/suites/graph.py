"""The confidence and alerts suites through the ROS graph: the ROS-free parts.

* ``GuardCore``: the alert guard's decisions. It wraps ``AlertMonitor`` and merges the driver
  side's two streams -- ``HardwareAlert`` (raised/cleared, stamped with a step) and
  ``RobotStatus`` (stamped, counting the alerts sent before it) -- in step order: a status is
  credited only once every alert it counts has arrived, so alerts and statuses are always
  processed in the same order whatever DDS delivered first. Stops and resumes are decided at
  the alert's step and land at step + L on the robot. Admission is latency-aware: between a
  clear at step c and c + L the robot is still stopped, so commands stay refused, with the
  cleared alert's reason code.
* Scenario <-> JSON for the ``SuiteRequest`` message, and results <-> records.
* ``SuiteStore``: append-only, idempotent, resumable JSONL of suite records (like RunStore).
* Summaries and the Markdown report.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from alpha_matrix.core.outcome import SETTLE_STEPS, Outcome
from alpha_matrix.core.planning.plan import Plan
from alpha_matrix.core.records import Provenance, RunStore, canonical_json
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.alerts.policy import (
    Admission,
    Alert,
    AlertClass,
    AlertMonitor,
    AlertPolicy,
    Decision,
    ReasonCode,
    Response,
    RobotStatus,
    Severity,
    StatusConfig,
)
from alpha_matrix.core.suites.alerts.run import AlertResult, AlertRow, CommandRow, summarize_alerts
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario
from alpha_matrix.core.suites.confidence.agent import Call, ConfidenceLedger, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.agent import Decision as AgentDecision
from alpha_matrix.core.suites.confidence.run import (
    STOP_HOLD_STEPS,
    ConfidenceResult,
    Scorer,
    SubStepRow,
    observe_state,
    summarize,
)
from alpha_matrix.core.suites.confidence.scenarios import ConfidenceScenario, SkillsSuite
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    SkillState,
    compile_skill,
    place_target,
    skill_succeeded,
)
from alpha_matrix.core.suites.proximity.run import render_proximity_lines, summarize_proximity

SUITE_SCHEMA_VERSION = 1


# ----------------------------------------------------------------------------- scenarios as JSON
def confidence_scenario_json(s: ConfidenceScenario) -> str:
    return canonical_json(
        {
            "name": s.task.name,
            "instruction": s.task.instruction,
            "goals": [g.text for g in s.task.goals],
            "expected": s.expected,
            "seed": s.seed,
        }
    )


def alert_scenario_json(s: AlertScenario) -> str:
    return canonical_json(
        {
            "name": s.name,
            "seed": s.seed,
            "phase": s.phase,
            "max_steps": s.max_steps,
            "status_every": s.status_every,
            "retry_every": s.retry_every,
            "status": asdict(s.status),
            "alerts": [
                {
                    "id": a.alert_id,
                    "class": a.cls.value,
                    "severity": a.severity.value,
                    "at_step": a.at_step,
                    "cleared_at_step": a.cleared_at_step,
                    "payload": a.payload,
                }
                for a in s.alerts
            ],
        }
    )


def alert_scenario_from_json(text: str) -> AlertScenario:
    d = json.loads(text)
    alerts = tuple(
        Alert(
            a["id"], AlertClass(a["class"]), Severity(a["severity"]), a["at_step"], a["payload"], a["cleared_at_step"]
        )
        for a in d["alerts"]
    )
    return AlertScenario(
        d["name"],
        d["seed"],
        alerts,
        StatusConfig(**d["status"]),
        d["max_steps"],
        d["status_every"],
        d["retry_every"],
        d["phase"],
    )


def last_event_step(s: AlertScenario) -> int:
    return max([a.at_step for a in s.alerts] + [a.cleared_at_step or 0 for a in s.alerts], default=0)


# ----------------------------------------------------------------------------- the guard
@dataclass(frozen=True)
class AlertEvent:
    """One HardwareAlert message as the guard received it."""

    alert: Alert
    step: int
    cleared: bool


@dataclass(frozen=True)
class StopRequest:
    engage: bool
    decision_step: int
    reason: str


@dataclass
class GuardCore:
    policy: AlertPolicy
    status: StatusConfig
    latency: int
    monitor: AlertMonitor = field(init=False)
    watermark: int = 0  # every alert and status up to this step has been processed
    alerts_received: int = 0
    _alerts: list[tuple[int, int, AlertEvent]] = field(default_factory=list)
    _statuses: list[tuple[RobotStatus, int]] = field(default_factory=list)
    _resume: tuple[int, ReasonCode, str] | None = None  # (apply step, code, alert id) of a pending resume
    rows: list[AlertRow] = field(default_factory=list)
    admissions: list[CommandRow] = field(default_factory=list)
    windows: dict[str, list[int | None]] = field(default_factory=dict)  # stop alert id -> [start, end)
    resume_steps: list[int] = field(default_factory=list)
    stop_requests: list[StopRequest] = field(default_factory=list)
    battery_pct: float = 0.0

    def __post_init__(self) -> None:
        self.monitor = AlertMonitor(self.policy, self.status)

    # -- frames in --------------------------------------------------------------------
    def on_alert(self, event: AlertEvent) -> list[StopRequest]:
        self._alerts.append((event.step, self.alerts_received, event))
        self.alerts_received += 1
        return self._drain()

    def on_status(self, status: RobotStatus, alerts_issued: int) -> list[StopRequest]:
        self._statuses.append((status, alerts_issued))
        return self._drain()

    def _drain(self) -> list[StopRequest]:
        out: list[StopRequest] = []
        while self._statuses and self._statuses[0][1] <= self.alerts_received:
            status, _ = self._statuses.pop(0)
            self._alerts.sort(key=lambda t: (t[0], t[1]))
            while self._alerts and self._alerts[0][0] <= status.step:
                _, _, ev = self._alerts.pop(0)
                if ev.cleared:
                    d = self.monitor.on_clear(ev.alert.alert_id, ev.step)
                    out += self._apply(d, None) if d else []
                else:
                    out += self._apply(self.monitor.on_alert(ev.alert, ev.step), ev.alert)
            decisions = self.monitor.on_status(status)
            by_id = {a.alert_id: a for a in self.monitor.alerts}
            for d in decisions:
                out += self._apply(d, by_id[d.alert_id] if d.action in ("stop", "warn") else None)
            self.battery_pct = status.battery_pct
            self.watermark = max(self.watermark, status.step)
        self.stop_requests += out
        return out

    def _apply(self, d: Decision, alert: Alert | None) -> list[StopRequest]:
        out: list[StopRequest] = []
        if d.action == "stop":  # engaging again while stopped is harmless: the robot stays stopped
            out.append(StopRequest(True, d.step, d.message))
        elif d.action == "resume":
            out.append(StopRequest(False, d.step, d.message))
            cleared = next(a for a in self.monitor.alerts if a.alert_id == d.alert_id)
            self._resume = (d.step + self.latency, ReasonCode(cleared.cls.value), d.alert_id)
            self.resume_steps.append(d.step)
        if alert is not None and d.action in ("stop", "warn"):
            want, got = self.policy.response(alert), self.monitor.responses[alert.alert_id]
            others = any(self.monitor.responses[a] == Response.STOP for a in self.monitor.active if a != alert.alert_id)
            stopped = self.monitor.stopped
            self.rows.append(
                AlertRow(
                    alert.alert_id,
                    alert.cls.value,
                    alert.severity.value,
                    alert.source,
                    alert.at_step,
                    alert.cleared_at_step,
                    want.value,
                    got.value,
                    stopped,
                    want == got and stopped == (want == Response.STOP or others),
                )
            )
            if want == Response.STOP:
                self.windows[alert.alert_id] = [d.step, None]
        elif d.action in ("resume", "clear") and d.alert_id in self.windows:
            self.windows[d.alert_id][1] = d.step + (self.latency if d.action == "resume" else 0)
        return out

    # -- commands ---------------------------------------------------------------------
    def admit(self, command: str, step: int) -> Admission:
        """Admit or refuse a command the robot would start at ``step``; every refusal is typed."""
        adm = self.monitor.admit(command, step)
        if adm.accepted and self._resume is not None:
            apply_step, code, alert_id = self._resume
            if step < apply_step:
                msg = f"step {step}: {command} refused: {alert_id} cleared, the resume lands at step {apply_step}"
                adm = Admission(False, code, msg)
            else:
                self._resume = None
        self.admissions.append(CommandRow(step, command, adm.accepted, adm.reason_code.value, adm.message, False))
        return adm

    def export(self) -> dict[str, Any]:
        """The guard's raw account of the episode (JSON-able), for ``compose_alert_result``."""
        return {
            "alerts": [asdict(r) for r in self.rows],
            "admissions": [asdict(c) for c in self.admissions],
            "windows": [[s, e] for s, e in self.windows.values()],
            "resume_steps": list(self.resume_steps),
            "stop_requests": [asdict(r) for r in self.stop_requests],
            "battery_pct": round(self.battery_pct, 6),
            "stopped": self.monitor.stopped,
            "watermark": self.watermark,
        }


def compose_alert_result(
    name: str, seed: int, guard: dict[str, Any], end_step: int, plan_complete: bool, outcome: Outcome
) -> dict[str, Any]:
    """An ``AlertResult`` as a record: the guard's account plus ground truth and the task outcome.

    Ground truth for refusals: inside a stop window of the configured policy, which runs from the
    alert's step to its clear + L (the step the resume lands on the robot), or to the end.
    A resume counts when a command was admitted after it, or the plan was complete and the robot
    was free at the end.
    """
    intervals = [(s, e if e is not None else end_step + 1) for s, e in guard["windows"]]
    admissions = [CommandRow(**c) for c in guard["admissions"]]
    commands = [replace(c, should_refuse=any(s <= c.step < e for s, e in intervals)) for c in admissions]
    resumes = [
        [c, any(a.accepted and a.step >= c for a in admissions) or (plan_complete and not guard["stopped"])]
        for c in guard["resume_steps"]
    ]
    return {
        "name": name,
        "seed": seed,
        "alerts": guard["alerts"],
        "commands": [asdict(c) for c in commands],
        "resumes": resumes,
        "outcome": asdict(outcome),
        "steps": end_step,
        "battery_pct": guard["battery_pct"],
        "stop_requests": guard["stop_requests"],
        "plan_complete": plan_complete,
    }


# ----------------------------------------------------------------------------- records
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuiteTiming(_Strict):
    started_at: str
    wall_s: float


class SuiteRecord(_Strict):
    """One scenario of a suite run. Everything but ``timing`` is deterministic for a seed."""

    schema_version: Literal[1] = SUITE_SCHEMA_VERSION
    suite: Literal["confidence", "alerts", "proximity"]
    run_id: str
    episode_id: str
    index: int
    scenario: str
    seed: int
    ok: bool  # the executive ran it (False: message says why)
    message: str
    result: dict[str, Any]
    provenance: Provenance
    timing: SuiteTiming


class SuiteStore(RunStore[SuiteRecord]):
    """``episodes.jsonl`` + ``manifest.json`` of a suite run: RunStore with suite records."""

    def __init__(self, run_dir: Path, config_hash: str) -> None:
        super().__init__(run_dir, config_hash, SuiteRecord, SUITE_SCHEMA_VERSION)

    @staticmethod
    def read_only(run_dir: Path) -> list[SuiteRecord]:  # type: ignore[override]
        """The suite's records in scenario order, without creating or repairing anything."""
        return sorted(RunStore.read_only(run_dir, SuiteRecord).values(), key=lambda r: r.index)


def episode_id(suite: str, name: str) -> str:
    return f"{suite}-{name}"


def confidence_from_result(d: dict[str, Any]) -> ConfidenceResult:
    rows = tuple(SubStepRow(**r) for r in d["rows"])
    fields = {k: v for k, v in d.items() if k != "rows"}
    fields["violations"] = tuple(fields["violations"])
    return ConfidenceResult(rows=rows, wall_time_s=0.0, **fields)


def confidence_result_dict(r: ConfidenceResult) -> dict[str, Any]:
    d = asdict(r)
    del d["wall_time_s"]
    return d


def alert_from_result(d: dict[str, Any]) -> AlertResult:
    return AlertResult(
        d["name"],
        d["seed"],
        tuple(AlertRow(**a) for a in d["alerts"]),
        tuple(CommandRow(**c) for c in d["commands"]),
        tuple((int(s), bool(ok)) for s, ok in d["resumes"]),
        Outcome(**d["outcome"]),
        d["steps"],
        d["battery_pct"],
        0.0,
    )


# ----------------------------------------------------------------------------- summary and report
def summarize_records(suite: str, records: Iterable[SuiteRecord]) -> dict[str, Any]:
    recs = list(records)
    done = [r for r in recs if r.ok]
    if suite == "proximity":
        out: dict[str, Any] = summarize_proximity(r.result for r in done)
    elif suite == "confidence":
        out = dict(summarize([confidence_from_result(r.result) for r in done]))
    else:
        out = dict(summarize_alerts([alert_from_result(r.result) for r in done]))
        out["refusal_typed_rate"] = (
            out["refusals_with_typed_reason"] / out["commands_refused"] if out["commands_refused"] else 1.0
        )
        out["resume_rate"] = out["resumed_after_clear"] / out["resumes"] if out["resumes"] else 1.0
    out["not_run"] = len(recs) - len(done)
    out["wall_s"] = round(sum(r.timing.wall_s for r in recs), 2)
    return out


def _pct(x: float) -> str:
    return f"{100.0 * x:.1f} %"


def render_report(suite: str, run_id: str, records: Sequence[SuiteRecord]) -> str:
    s = summarize_records(suite, records)
    lines = [f"# Suite `{suite}` through the ROS graph: run `{run_id}`", ""]
    if suite == "proximity":
        lines += render_proximity_lines([(r.scenario, r.result if r.ok else None, r.message) for r in records])
    elif suite == "confidence":
        lines += [
            "Skill-confidence gating (DESIGN §7 item 4): the `skill_executive` node queries the `skill_confidence`",
            "service before every skill call; the ledger judges every call from the service's own answers.",
            "",
            "| metric | value |",
            "|---|---|",
            f"| tasks | {s['tasks']} |",
            f"| task completion | {_pct(s['task_completion'])} |",
            f"| confidence-check rate | {_pct(s['confidence_check_rate'])} ({s['skill_calls']} calls) |",
            f"| sub-step completion | {_pct(s['substep_completion'])} |",
            f"| calls below threshold | {s['calls_below_threshold']} |",
            f"| rule violations | {s['rule_violations']} |",
            f"| re-planned calls (not first choice) | {s['replanned_calls']} |",
            f"| robot stopped at the end | {s['robot_stopped_at_end']} / {s['tasks']} |",
            f"| scenarios not run | {s['not_run']} |",
            "",
            "| task | completed | calls | checked | steps | goals |",
            "|---|---|---|---|---|---|",
        ]
        for r in records:
            if not r.ok:
                lines.append(f"| {r.scenario} | not run: {r.message} | | | | |")
                continue
            c = confidence_from_result(r.result)
            goals = ", ".join(f"{o}: {st}" for o, st in c.goal_status.items())
            lines.append(
                f"| {r.scenario} | {'yes' if c.task_completed else 'no'} | {c.calls} | {c.checked} | {c.steps} | {goals} |"
            )
    else:
        lines += [
            "Hardware alerts (DESIGN §7 item 3): `alert_source` publishes alerts and robot status per step batch;",
            "`alert_guard` sits between the executive and the robot (remapping only), stops and resumes the",
            "robot at decision step + L, and refuses every command while stopped with a typed reason code.",
            "",
            "| metric | value |",
            "|---|---|",
            f"| scenarios | {s['scenarios']} |",
            f"| alerts | {s['alerts']} |",
            f"| correct response rate | {_pct(s['correct_response_rate'])} |",
            f"| commands | {s['commands']} |",
            f"| commands refused while stopped | {s['commands_refused']} |",
            f"| refusals with a typed reason | {s['refusals_with_typed_reason']} ({_pct(s['refusal_typed_rate'])}) |",
            f"| wrongly refused / wrongly admitted | {s['wrongly_refused']} / {s['wrongly_admitted']} |",
            f"| resumes after clear | {s['resumed_after_clear']} / {s['resumes']} |",
            f"| task success (pick and place) | {s['task_success']} / {s['scenarios']} |",
            f"| scenarios not run | {s['not_run']} |",
            "",
            "| scenario | alerts (class -> response) | refused | reason codes | resumes | success |",
            "|---|---|---|---|---|---|",
        ]
        for r in records:
            if not r.ok:
                lines.append(f"| {r.scenario} | not run: {r.message} | | | | |")
                continue
            a = alert_from_result(r.result)
            acts = ", ".join(f"{x.cls} -> {x.actual}{'' if x.correct else ' (WRONG)'}" for x in a.alerts) or "-"
            codes = ", ".join(sorted({c.reason_code for c in a.refused})) or "-"
            res = f"{sum(ok for _, ok in a.resumes)}/{len(a.resumes)}"
            lines.append(
                f"| {r.scenario} | {acts} | {len(a.refused)} | {codes} | {res} | {'yes' if a.outcome.success else 'no'} |"
            )
    lines += ["", f"Wall time of the scenarios (sum): {s['wall_s']:.1f} s.", ""]
    return "\n".join(lines)


def write_report(suite: str, run_dir: Path) -> Path:
    records = SuiteStore.read_only(run_dir)
    path = run_dir / "report.md"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(render_report(suite, run_dir.name, records), encoding="utf-8")
    os.replace(tmp, path)
    return path


# ----------------------------------------------------------------------------- the skill executive's loop
class SkillRobot(Protocol):
    """What the skill executive needs from the robot: the driver contract, seen as skill frames."""

    def start(self) -> tuple[SkillState, int]: ...  # reset + settle: (state, step)

    def execute(self, plan: Plan) -> tuple[SkillState, int]: ...  # run the commands: (state after, last step)

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]: ...  # hold, then stop: (state, steps, stopped)


def run_skill_task(
    task: Task,
    seed: int,
    suite: SkillsSuite,
    expected: dict[str, bool],
    scorer: Scorer,
    robot: SkillRobot,
    hold_steps: int = STOP_HOLD_STEPS,
    agent: SkillAgent | None = None,
    on_answer: Callable[[Query, list[float], AgentDecision, int], None] | None = None,
) -> ConfidenceResult:
    """The gating loop of ``skill_run._run`` over any robot and any scorer (ROS services, a World).

    Every query goes to ``scorer`` and into the ledger; every call passes the ledger before it is
    compiled and executed; the robot is always stopped at the end; goals are judged physically.
    ``on_answer(query, scores, next decision, step)`` sees every answer and what the agent made of
    it (the executive records them on skill/queries); it cannot change the run.
    """
    t0 = time.perf_counter()
    geo, cfg = suite.geometry, suite.confidence
    agent = agent or SkillAgent(task, geo, cfg.threshold, suite.max_attempts)
    ledger = ConfidenceLedger(cfg.threshold)
    state, step = robot.start()
    decision = agent.observe(state)
    rows: list[SubStepRow] = []
    while not isinstance(decision, Stop):
        if isinstance(decision, Query):
            scores = scorer.confidences(decision.candidates, decision.state, decision.index)
            ledger.record_query([c.text for c in decision.candidates], scores, decision.hypothetical)
            query, decision = decision, agent.on_confidence(scores)
            if on_answer is not None:
                on_answer(query, list(scores), decision, step)
            continue
        assert isinstance(decision, Call)
        call, start = decision, step + 1
        violation = ledger.admit(call.skill.text)
        if violation:
            rows.append(
                SubStepRow(
                    task.name, seed, len(rows), call.skill.text, call.query_index, call.confidence, call.rank,
                    start, step, False, violation,
                )
            )  # fmt: skip
            decision = Stop(f"rule violation: {violation}")
            break
        target = place_target(call.skill, state, geo)
        state, step = robot.execute(compile_skill(call.skill, state, geo))
        ok = skill_succeeded(call.skill, target, state, geo)
        rows.append(
            SubStepRow(
                task.name, seed, len(rows), call.skill.text, call.query_index, call.confidence, call.rank,
                start, step, ok, "",
            )
        )  # fmt: skip
        ledger.skill_finished()
        decision = agent.observe(state)
    final, steps, stopped = robot.finish(hold_steps)
    if stopped:
        ledger.record_stop()
    achieved = {
        g.obj: any(skill_succeeded(t, place_target(t, final, geo), final, geo) for t in g.targets) for g in task.goals
    }
    return ConfidenceResult(
        task.name,
        seed,
        tuple(rows),
        {g.goal.obj: g.status.value for g in agent.goals},
        achieved,
        dict(expected),
        ledger.queries,
        ledger.calls,
        ledger.checked,
        ledger.below_threshold,
        tuple(ledger.violations),
        decision.reason,
        stopped,
        steps,
        time.perf_counter() - t0,
    )


class WorldSkillRobot:
    """``SkillRobot`` on a bare World (tests: the graph's loop must equal the bare suite's)."""

    def __init__(self, world: World, seed: int, geo: SceneGeometry) -> None:
        self.world, self.seed, self.geo = world, seed, geo

    def _idle(self) -> SkillState:
        sample = self.world.step()
        while self.world.busy:
            sample = self.world.step()
        return observe_state(self.world, sample, self.geo)

    def start(self) -> tuple[SkillState, int]:
        self.world.reset(self.seed)
        self.world.start_hold(SETTLE_STEPS)
        return self._idle(), self.world.step_count

    def execute(self, plan: Plan) -> tuple[SkillState, int]:
        state = None
        for cmd in plan_to_commands(plan):
            start_command(self.world, cmd)
            state = self._idle()
        assert state is not None
        return state, self.world.step_count

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]:
        self.world.start_hold(hold_steps)
        state = self._idle()
        self.world.protective_stop()
        return state, self.world.step_count, self.world.stopped
