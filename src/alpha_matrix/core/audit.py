"""Audit by replay: recompute every verdict of a bag with the same core code and compare.

The bag's raw step stream goes through the same conversion (core/stream.py) and the same
safety engine as the live monitor; the final observation of each episode goes through the
same outcome evaluation as the runner. Recorded safety events, recorded episode results and
the run's JSONL records must all agree with the replay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from alpha_matrix.core.bag import BagError, read_bag, unlisted_splits
from alpha_matrix.core.outcome import ZONE, evaluate_outcome
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.safety import SafetyConfig, SafetyEngine, StepInput, calibrate_threshold, scan, sweep_windows
from alpha_matrix.core.stream import steps_from_batch

EventKey = tuple[str, str, str, int, int, int, int, float]


@dataclass
class _Episode:
    steps: list[StepInput] = field(default_factory=list)
    events: list[EventKey] = field(default_factory=list)
    summary: Any = None
    result: Any = None
    execution: Any = None
    final_status: Any = None
    gaps: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EpisodeAudit:
    episode_id: str
    steps: int
    events_recorded: int
    events_replayed: int
    success_recorded: bool | None
    success_replayed: bool
    error_recorded: float | None
    error_replayed: float
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _event_key(e: Any) -> EventKey:
    return (
        e.kind,
        e.key,
        e.severity,
        int(e.start_step),
        int(e.close_step),
        int(e.last_unsafe_step),
        int(e.scans),
        float(e.peak),
    )


def load_episodes(bag_dir: Path) -> dict[str, _Episode]:
    episodes: dict[str, _Episode] = {}
    last_step: dict[str, int] = {}
    for topic, _ts, msg in read_bag(bag_dir):
        if topic == "/robot/step_batch":
            ep = episodes.setdefault(msg.episode_id, _Episode())
            expected = last_step.get(msg.episode_id, int(msg.first_step) - 1)
            if int(msg.first_step) != expected + 1:
                ep.gaps.append(f"steps {expected + 1}..{int(msg.first_step) - 1} missing from the stream")
            ep.steps.extend(steps_from_batch(msg))
            last_step[msg.episode_id] = int(msg.first_step) + int(msg.num_steps) - 1
        elif topic == "/safety/events" and msg.closed:
            episodes.setdefault(msg.episode_id, _Episode()).events.append(_event_key(msg))
        elif topic == "/safety/summary":
            episodes.setdefault(msg.episode_id, _Episode()).summary = msg
        elif topic == "/episode/result":
            episodes.setdefault(msg.episode_id, _Episode()).result = msg
        elif topic == "/executive/result":
            episodes.setdefault(msg.episode_id, _Episode()).execution = msg
        elif topic == "/robot/command_status" and msg.state in (2, 3):  # DONE, CANCELLED
            ep = episodes.setdefault(msg.episode_id, _Episode())
            if ep.final_status is None or msg.end_step >= ep.final_status.end_step:
                ep.final_status = msg
    return episodes


def _replay_events(ep: _Episode, config: SafetyConfig) -> list[EventKey]:
    engine = SafetyEngine(config)
    for s in ep.steps:
        engine.process(s)
    engine.finish(int(ep.summary.last_step) if ep.summary else ep.steps[-1].step)
    return [_event_key(e) for e in engine.events]


def audit_bag(bag_dir: Path, run_dir: Path | None = None) -> list[EpisodeAudit]:
    episodes = load_episodes(bag_dir)
    records = RunStore.read_only(run_dir) if run_dir is not None else {}
    out = []
    for episode_id in sorted(e for e in episodes if e):
        ep = episodes[episode_id]
        problems = list(ep.gaps)
        if ep.result is None:
            problems.append("no recorded episode result (run interrupted?)")
        replayed: list[EventKey] = []
        if ep.summary is not None and ep.steps:
            config = SafetyConfig(contact_threshold=ep.summary.contact_threshold, window=ep.summary.window)
            replayed = _replay_events(ep, config)
            if int(ep.summary.steps_checked) != len(ep.steps):
                problems.append(f"monitor checked {ep.summary.steps_checked} steps, the bag holds {len(ep.steps)}")
            if sorted(replayed) != sorted(ep.events):
                problems.append(f"safety events differ: recorded {len(ep.events)}, replayed {len(replayed)}")
        block = None
        if ep.final_status is not None:
            block = next((o.pose.position for o in ep.final_status.objects if o.name == "red"), None)
        pos = (block.x, block.y, block.z) if block is not None else (math.nan,) * 3
        last = int(ep.final_status.end_step) if ep.final_status is not None else 0
        outcome = evaluate_outcome(pos, ZONE, last)
        aborted = bool(ep.execution.abort_kind) if ep.execution is not None else True
        success = outcome.success and not aborted
        rec_success = rec_error = None
        if ep.result is not None:
            rec_success, rec_error = bool(ep.result.success), float(ep.result.placement_error)
            if rec_success != success:
                problems.append(f"recorded success {rec_success}, replay says {success}")
            if rec_error != outcome.placement_error:
                problems.append(f"recorded placement error {rec_error!r}, replay {outcome.placement_error!r}")
        rec = records.get(episode_id)
        if run_dir is not None:
            if rec is None:
                problems.append(f"no JSONL record in {run_dir}")
            else:
                if rec.outcome.success != success or rec.outcome.placement_error != outcome.placement_error:
                    problems.append("JSONL record disagrees with the replay")
                rec_events = sorted(_event_key(e) for e in (rec.safety.events if rec.safety else []))
                if rec.safety is not None and rec_events != sorted(replayed):
                    problems.append("JSONL safety events disagree with the replay")
        out.append(
            EpisodeAudit(
                episode_id,
                len(ep.steps),
                len(ep.events),
                len(replayed),
                rec_success,
                success,
                rec_error,
                outcome.placement_error,
                tuple(problems),
            )
        )
    return out


def window_sweep(bag_dir: Path, windows: Iterable[int]) -> dict[int, tuple[int, int]]:
    """W -> (unique events, raw scans) over every episode of the bag, re-run offline."""
    totals: dict[int, tuple[int, int]] = {}
    windows = list(windows)
    for episode_id, ep in load_episodes(bag_dir).items():
        if not episode_id or not ep.steps:
            continue
        threshold = ep.summary.contact_threshold if ep.summary else SafetyConfig().contact_threshold
        for w, (events, scans) in sweep_windows(ep.steps, windows, SafetyConfig(contact_threshold=threshold)).items():
            e0, s0 = totals.get(w, (0, 0))
            totals[w] = (e0 + events, s0 + scans)
    return totals


@dataclass(frozen=True)
class Calibration:
    episodes: int
    steps: int
    max_judged: float  # largest arm contact force the monitor judges (exclusions applied), N
    max_grasp: float  # largest force including the held block's reaction (fingers), N
    where: str  # episode, step and contact of the larger one
    threshold: float


def calibrate(bag_dir: Path, margin: float = 2.0, floor: float = 40.0) -> Calibration:
    """Contact threshold from a bag of nominal episodes.

    threshold = max(nominal forces) x margin, never below ``floor``. The held block's reaction
    is excluded from detection but included here: the threshold must sit above the finger
    force, so that a grasp the exclusion misses (one finger on the block) is not "violent".
    """
    probe = SafetyConfig(contact_threshold=0.0)
    judged = grasp = 0.0
    where, n_ep, n_steps = "no arm contact", 0, 0
    for episode_id, ep in load_episodes(bag_dir).items():
        if not episode_id or not ep.steps:
            continue
        n_ep += 1
        n_steps += len(ep.steps)
        for s in ep.steps:
            for (kind, _key), value in scan(s, probe).items():
                if kind == "violent_contact" and value > judged:
                    judged = value
            for (kind, key), value in scan(replace(s, grasped=frozenset()), probe).items():
                if kind == "violent_contact" and value > grasp:
                    grasp, where = value, f"{episode_id} step {s.step} {key}"
    if n_ep == 0:
        raise BagError(f"{bag_dir}: no episodes to calibrate from")
    return Calibration(n_ep, n_steps, judged, grasp, where, calibrate_threshold(max(judged, grasp), margin, floor))


def format_table(audits: list[EpisodeAudit]) -> str:
    lines = [
        f"{'episode':<14} {'steps':>5} {'events rec/replay':>17} {'success rec/replay':>18} {'error mm rec/replay':>20}  verdict"
    ]
    for a in audits:
        succ = f"{a.success_recorded}/{a.success_replayed}"
        err = f"{'-' if a.error_recorded is None else f'{a.error_recorded * 1000:.2f}'}/{a.error_replayed * 1000:.2f}"
        verdict = "match" if a.ok else "MISMATCH: " + "; ".join(a.problems)
        lines.append(
            f"{a.episode_id:<14} {a.steps:>5} {f'{a.events_recorded}/{a.events_replayed}':>17} {succ:>18} {err:>20}  {verdict}"
        )
    return "\n".join(lines)


__all__ = ["BagError", "EpisodeAudit", "audit_bag", "format_table", "unlisted_splits", "window_sweep"]
