"""Audit of a safety-suite bag by replay: recompute the suite's decisions and scores, compare.

Proximity (``audit_proximity_bag``): per episode, the recorded depth frames go through the
same ``DetectorCore`` (``ProximityDetector`` + ``StopPolicy``) as the live detector node, with
the policy of the episode's recorded ``SuiteRequest`` and the intrinsics of its first recorded
``CameraInfo`` (exactly what the node uses, so no config drift); every replayed estimate must
equal the recorded ``proximity/estimate`` (detected, distance, confidence, blobs, action, stop
state, limit: exact, the code is deterministic). The run is then re-scored from the recorded
``sim/proximity_truth`` and estimates with the executive's own ``compose_result`` and must
equal the recorded ``suite/result`` and, if given, the run's JSONL record. Each stop/resume
decision must also be in effect on the robot ``reaction_steps`` later (the truth's ``stopped``).

The arm's account (commands, refusals, whether the block was placed) is taken from the
recorded result: it is the executive's own bookkeeping, not a decision replayed here.

Alerts (``audit_alerts_bag``): per episode, the recorded ``robot/alerts`` and ``robot/status``
go through the same ``GuardCore`` as the live ``alert_guard``, with the scenario's status
model, the policy of ``config/alerts.yaml`` and L = the scenario's recorded latency; each
recorded command is admitted at its recorded step after every status before that step (as
the guard does: the robot is idle when it asks). Alert responses, stop/resume requests, stop
windows and every admission must equal the recorded result's, re-composed with
``compose_alert_result``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from alpha_matrix.core.bag import BagError, read_bag
from alpha_matrix.core.proximity_graph import (
    SUITE,
    ArmAccount,
    DetectorCore,
    ProximityScenario,
    camera_info_from_k,
    compose_result,
    parse_frame_tag,
    scenario_from_json,
)

ESTIMATE_FIELDS = (
    "detected",
    "distance",
    "confidence",
    "blob_count",
    "action",
    "stop_requested",
    "limit",
    "human_speed",
)


@dataclass(frozen=True)
class SuiteAudit:
    episode_id: str
    inputs: int  # messages replayed: depth frames, or alerts + statuses
    recorded: int  # recorded decisions (estimates, or alert rows + admissions)
    replayed: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def bag_suite(bag_dir: Path) -> str | None:
    """``proximity`` or ``alerts`` when the bag's topics are a suite's, else None (matrix bags)."""
    meta = bag_dir / "metadata.yaml"
    try:
        info = yaml.safe_load(meta.read_text())["rosbag2_bagfile_information"]
        topics = {t["topic_metadata"]["name"] for t in info["topics_with_message_count"]}
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return None  # the matrix audit reports a missing or broken bag
    if "/suite/request" not in topics:
        return None
    if "/proximity/estimate" in topics:
        return "proximity"
    if "/robot/alerts" in topics:
        return "alerts"
    return None


def first_difference(recorded: Any, replayed: Any, path: str = "") -> str | None:
    """Path and values of the first difference between two JSON-like values, or None."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for k in sorted(set(recorded) | set(replayed)):
            if k not in recorded or k not in replayed:
                return f"{path}{k}: only in the {'replay' if k in replayed else 'recording'}"
            d = first_difference(recorded[k], replayed[k], f"{path}{k}.")
            if d:
                return d
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
            d = first_difference(a, b, f"{path}{i}.")
            if d:
                return d
        if len(recorded) != len(replayed):
            return f"{path.rstrip('.')}: {len(recorded)} recorded, {len(replayed)} replayed"
        return None
    if recorded != replayed:
        return f"{path.rstrip('.')}: recorded {recorded!r}, replay {replayed!r}"
    return None


def _json(d: Any) -> Any:
    return json.loads(json.dumps(d, sort_keys=True, allow_nan=False))


def _read_records(run_dir: Path | None) -> dict[str, Any]:
    if run_dir is None:
        return {}
    from alpha_matrix.core.suite_graph import SuiteStore  # noqa: PLC0415 - pulls in the world; only when needed

    return {r.episode_id: r for r in SuiteStore.read_only(run_dir)}


def _compare_records(ep_id: str, result: Any, records: dict[str, Any], run_dir: Path | None) -> list[str]:
    """The JSONL record against the recorded suite/result (already compared with the replay)."""
    if run_dir is None:
        return []
    rec = records.get(ep_id)
    if rec is None:
        return [f"no JSONL record in {run_dir}"]
    if result is None:
        return []
    if rec.ok != bool(result.ok):
        return [f"JSONL ok={rec.ok}, suite/result ok={bool(result.ok)}"]
    d = first_difference(rec.result, json.loads(result.result_json) if result.ok else {})
    return [f"JSONL record differs from suite/result at {d}"] if d else []


# ----------------------------------------------------------------------------- proximity
@dataclass
class _ProxEpisode:
    scenario: ProximityScenario | None = None
    info: Any = None  # first CameraInfo of the episode
    pending: list[tuple[int, np.ndarray]] = field(default_factory=list)  # frames before request + info
    core: DetectorCore | None = None
    frames: int = 0
    replayed: list[dict[str, Any]] = field(default_factory=list)
    recorded: list[dict[str, Any]] = field(default_factory=list)
    truth: list[Any] = field(default_factory=list)
    result: Any = None
    problems: list[str] = field(default_factory=list)

    def feed(self, step: int, depth: np.ndarray) -> None:
        self.pending.append((step, depth))
        self.flush()

    def flush(self) -> None:
        """Replay the buffered frames once the run's request and intrinsics are in (as the node)."""
        if self.scenario is None or self.info is None:
            return
        if self.core is None:
            info = camera_info_from_k(self.info.width, self.info.height, self.info.k)
            self.core = DetectorCore(info, self.scenario.policy)
        for k, frame in self.pending:
            self.frames += 1
            try:
                est = self.core.on_frame(k, frame)
            except ValueError as err:  # a frame out of step order
                self.problems.append(f"frame of step {k}: {err}")
                continue
            if est is not None:
                d, dec = est.detection, est.decision
                self.replayed.append(
                    {
                        "step": k,
                        "detected": d.detected,
                        "distance": float(d.distance),
                        "confidence": float(d.confidence),
                        "blob_count": d.blob_count,
                        "action": dec.action,
                        "stop_requested": dec.stop_requested,
                        "limit": float(dec.limit),
                        "human_speed": float(dec.human_speed),
                    }
                )
        self.pending = []


def _estimate_dict(msg: Any) -> dict[str, Any]:
    return {
        "step": int(msg.step),
        "detected": bool(msg.detected),
        "distance": float(msg.distance),
        "confidence": float(msg.confidence),
        "blob_count": int(msg.blob_count),
        "action": msg.action,
        "stop_requested": bool(msg.stop_requested),
        "limit": float(msg.limit),
        "human_speed": float(msg.human_speed),
    }


def _fmt_estimate(e: dict[str, Any] | None) -> str:
    if e is None:
        return "none"
    return f"detected={e['detected']} distance={e['distance']:.4f} action={e['action']} stop={e['stop_requested']}"


def load_proximity(bag_dir: Path) -> dict[str, _ProxEpisode]:
    eps: dict[str, _ProxEpisode] = {}
    for topic, _ts, msg in read_bag(bag_dir):
        if topic == "/suite/request":
            if msg.suite == SUITE:
                ep = eps.setdefault(msg.episode_id, _ProxEpisode())
                ep.scenario = scenario_from_json(msg.scenario_json)
                ep.flush()
        elif topic == "/camera/depth/camera_info":
            episode, _ = parse_frame_tag(msg.header.frame_id)
            ep = eps.setdefault(episode, _ProxEpisode())
            if ep.info is None:
                ep.info = msg
                ep.flush()
        elif topic == "/camera/depth/image_raw":
            episode, step = parse_frame_tag(msg.header.frame_id)
            ep = eps.setdefault(episode, _ProxEpisode())
            if msg.encoding != "32FC1":
                ep.problems.append(f"frame of step {step}: encoding {msg.encoding!r}, not 32FC1")
                continue
            depth = np.frombuffer(bytes(msg.data), dtype=np.float32).reshape(msg.height, msg.width)
            ep.feed(step, depth)
        elif topic == "/proximity/estimate":
            eps.setdefault(msg.episode_id, _ProxEpisode()).recorded.append(_estimate_dict(msg))
        elif topic == "/sim/proximity_truth":
            eps.setdefault(msg.episode_id, _ProxEpisode()).truth.append(msg)
        elif topic == "/suite/result":
            eps.setdefault(msg.episode_id, _ProxEpisode()).result = msg
    return eps


def _truth_arrays(msgs: list[Any], end_step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """As the executive builds them (proximity_executive._truth); also the last step covered."""
    n = end_step + 1
    gt, seen, stopped = np.full(n, np.inf), np.zeros(n, bool), np.zeros(n, bool)
    last = 0
    for m in msgs:
        a, b = int(m.first_step), min(int(m.first_step) + len(m.distance), n)
        last = max(last, int(m.first_step) + len(m.distance) - 1)
        if a >= b:
            continue
        gt[a:b] = np.asarray(m.distance)[: b - a]
        seen[a:b] = np.asarray(m.in_view, bool)[: b - a]
        stopped[a:b] = np.asarray(m.stopped, bool)[: b - a]
    gt[0] = gt[1]
    return gt, seen, stopped, last


def _arm_from(task: dict[str, Any]) -> ArmAccount:
    return ArmAccount(
        commands=[tuple(c) for c in task["commands"]],  # type: ignore[misc]
        refused_while_stopped=int(task["refused_while_stopped"]),
        plan_done=int(task["plan_done"]),
        holds_while_stopped=int(task["holds_while_stopped"]),
    )


def _audit_proximity_episode(ep_id: str, ep: _ProxEpisode) -> list[str]:
    problems = list(ep.problems)
    sc = ep.scenario
    if sc is None:
        return [*problems, "no recorded suite/request for this episode"]
    if ep.info is None:
        problems.append("no recorded camera_info: frames not replayed")
    if ep.pending:
        problems.append(f"{len(ep.pending)} frames never replayed")
    # 1. Every decision of the detector, replayed from its inputs.
    rec_by_step = {e["step"]: e for e in ep.recorded}
    rep_by_step = {e["step"]: e for e in ep.replayed}
    if len(rec_by_step) != len(ep.recorded):
        problems.append("the bag holds two estimates for one step")
    for step in sorted(set(rec_by_step) | set(rep_by_step)):
        a, b = rec_by_step.get(step), rep_by_step.get(step)
        if a is None or b is None or any(a[k] != b[k] for k in ESTIMATE_FIELDS):
            problems.append(f"estimate of step {step}: recorded {_fmt_estimate(a)}, replay {_fmt_estimate(b)}")
            break
    # 2. The run's score, from the recorded truth and estimates, with the executive's own code.
    if ep.result is None:
        return [*problems, "no recorded suite/result (run interrupted?)"]
    if not ep.result.ok:
        return problems  # the executive could not run it: nothing was scored
    recorded = json.loads(ep.result.result_json)
    gt, in_view, stopped, last = _truth_arrays(ep.truth, sc.end_step)
    if last < sc.end_step:
        return [*problems, f"sim/proximity_truth ends at step {last}, the run at {sc.end_step}"]
    estimates = [{k: v for k, v in e.items() if k != "human_speed"} for e in ep.recorded]
    rescored = compose_result(
        sc, gt, in_view, stopped, estimates, _arm_from(recorded["task"]), recorded["task"]["placed"]
    )
    rescored = _json({**rescored, "last_step": recorded.get("last_step")})
    d = first_difference(recorded, rescored)
    if d:
        problems.append(f"suite/result differs from the re-score at {d}")
    # 3. Each stop/resume is in effect on the robot L steps after the frame it was decided on.
    for e in ep.recorded:
        at = e["step"] + sc.reaction_steps
        if e["action"] != "none" and at <= sc.end_step and bool(stopped[at]) != (e["action"] == "stop"):
            problems.append(f"{e['action']} decided at step {e['step']} is not in effect at step {at}")
            break
    return problems


def audit_proximity_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    eps = load_proximity(bag_dir)
    records = _read_records(run_dir)
    out = []
    for ep_id in sorted(e for e in eps if e):
        ep = eps[ep_id]
        problems = _audit_proximity_episode(ep_id, ep) + _compare_records(ep_id, ep.result, records, run_dir)
        out.append(SuiteAudit(ep_id, ep.frames, len(ep.recorded), len(ep.replayed), tuple(problems)))
    for ep_id in sorted(set(records) - set(eps)) if run_dir is not None else []:
        out.append(SuiteAudit(ep_id, 0, 0, 0, ("JSONL record with no episode in the bag",)))
    return out


def audit_suite_bag(suite: str, bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    if suite == "proximity":
        return audit_proximity_bag(bag_dir, run_dir)
    if suite == "alerts":
        return audit_alerts_bag(bag_dir, run_dir)
    raise BagError(f"{bag_dir}: no audit for suite {suite!r}")


def format_suite_table(suite: str, audits: list[SuiteAudit]) -> str:
    head = "estimates rec/replay" if suite == "proximity" else "decisions rec/replay"
    lines = [f"{'episode':<44} {'inputs':>6} {head:>20}  verdict"]
    for a in audits:
        verdict = "match" if a.ok else "MISMATCH: " + "; ".join(a.problems)
        lines.append(f"{a.episode_id:<44} {a.inputs:>6} {f'{a.recorded}/{a.replayed}':>20}  {verdict}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- alerts
@dataclass
class _AlertEpisode:
    scenario_json: str | None = None
    alerts: list[Any] = field(default_factory=list)
    statuses: list[Any] = field(default_factory=list)
    result: Any = None


def load_alerts(bag_dir: Path) -> dict[str, _AlertEpisode]:
    eps: dict[str, _AlertEpisode] = {}
    for topic, _ts, msg in read_bag(bag_dir):
        if topic == "/suite/request" and msg.suite == "alerts":
            eps.setdefault(msg.episode_id, _AlertEpisode()).scenario_json = msg.scenario_json
        elif topic == "/robot/alerts":
            eps.setdefault(msg.episode_id, _AlertEpisode()).alerts.append(msg)
        elif topic == "/robot/status":
            eps.setdefault(msg.episode_id, _AlertEpisode()).statuses.append(msg)
        elif topic == "/suite/result":
            eps.setdefault(msg.episode_id, _AlertEpisode()).result = msg
    return eps


def guard_latency() -> int:
    """alert_guard's L as the suite's graph configures it (config/params_alerts.yaml), else 24."""
    from alpha_matrix.core.graph import default_config_dir  # noqa: PLC0415

    try:
        params = yaml.safe_load((default_config_dir() / "params_alerts.yaml").read_text())
        return int(params["alert_guard"]["ros__parameters"]["reaction_latency_steps"])
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError):
        return 24


def replay_guard(ep: _AlertEpisode, commands: list[dict[str, Any]], policy: Any, latency: int) -> dict[str, Any]:
    """The guard's account of one episode, replayed with the live node's GuardCore.

    Alerts are only acted on when a status covering their step is credited, so giving the core
    every alert first changes nothing; statuses go in their recorded order. A command the
    robot would start at step s is admitted once every status before s is processed and
    before any later one, as the live guard does (the robot is idle while it asks).
    """
    from alpha_matrix.core.alerts import Alert, AlertClass, Severity  # noqa: PLC0415
    from alpha_matrix.core.alerts import RobotStatus as CoreStatus  # noqa: PLC0415
    from alpha_matrix.core.suite_graph import AlertEvent, GuardCore, alert_scenario_from_json  # noqa: PLC0415

    sc = alert_scenario_from_json(ep.scenario_json or "")
    core = GuardCore(policy, sc.status, latency)
    for m in ep.alerts:  # as alert_guard._feed builds them
        alert = Alert(
            m.alert_id, AlertClass(m.alert_class), Severity(m.severity), int(m.step), json.loads(m.payload_json or "{}")
        )
        core.on_alert(AlertEvent(alert, int(m.step), bool(m.cleared)))
    todo = sorted(commands, key=lambda c: c["step"])  # stable: same-step commands keep their order
    for m in ep.statuses:
        while todo and todo[0]["step"] <= int(m.step):
            c = todo.pop(0)
            core.admit(c["command"], int(c["step"]))
        core.on_status(
            CoreStatus(int(m.step), m.battery_pct, tuple(m.joint_temp_c), tuple(m.actuator_ok)), m.alerts_issued
        )
    for c in todo:
        core.admit(c["command"], int(c["step"]))
    return core.export()


def audit_alerts_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    from alpha_matrix.core.alert_scenarios import load_alert_policy  # noqa: PLC0415
    from alpha_matrix.core.outcome import Outcome  # noqa: PLC0415
    from alpha_matrix.core.suite_graph import compose_alert_result  # noqa: PLC0415

    eps = load_alerts(bag_dir)
    records = _read_records(run_dir)
    policy, latency = load_alert_policy().policy, guard_latency()
    out = []
    for ep_id in sorted(e for e in eps if e):
        ep = eps[ep_id]
        problems: list[str] = []
        recorded_n = replayed_n = 0
        if ep.scenario_json is None:
            problems.append("no recorded suite/request for this episode")
        elif ep.result is None:
            problems.append("no recorded suite/result (run interrupted?)")
        elif ep.result.ok:
            rec = json.loads(ep.result.result_json)
            account = replay_guard(ep, rec["commands"], policy, latency)
            replay = _json(
                compose_alert_result(
                    rec["name"], rec["seed"], account, rec["steps"], rec["plan_complete"], Outcome(**rec["outcome"])
                )
            )
            recorded_n = len(rec["alerts"]) + len(rec["commands"]) + len(rec["stop_requests"])
            replayed_n = len(replay["alerts"]) + len(replay["commands"]) + len(replay["stop_requests"])
            d = first_difference(rec, replay)
            if d:
                problems.append(f"suite/result differs from the guard's replay at {d}")
        problems += _compare_records(ep_id, ep.result, records, run_dir)
        inputs = len(ep.alerts) + len(ep.statuses)
        out.append(SuiteAudit(ep_id, inputs, recorded_n, replayed_n, tuple(problems)))
    for ep_id in sorted(set(records) - set(eps)) if run_dir is not None else []:
        out.append(SuiteAudit(ep_id, 0, 0, 0, ("JSONL record with no episode in the bag",)))
    return out


__all__ = [
    "SuiteAudit",
    "audit_alerts_bag",
    "audit_proximity_bag",
    "audit_suite_bag",
    "bag_suite",
    "first_difference",
    "format_suite_table",
]
