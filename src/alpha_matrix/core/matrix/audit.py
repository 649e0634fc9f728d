"""Audit by replay: recompute every verdict of a bag with the same core code and compare.

The bag's raw step stream goes through the same conversion (core/safety/stream.py) and the same
safety engine as the live monitor; the final observation of each episode goes through the
same outcome evaluation as the runner. Recorded safety events, recorded episode results and
the run's JSONL records must all agree with the replay. A bag of a resumed run holds an
interrupted episode twice (core/attempts.py): the attempt that produced the result is audited,
the other is counted and named, never replayed as one stream with it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from alpha_matrix.core.attempts import Attempt, audited_attempt, split_attempts
from alpha_matrix.core.bag import BadSplit, BagError, read_bag, unlisted_splits
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS, ZONE, evaluate_outcome
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.safety.engine import (
    SafetyConfig,
    SafetyEngine,
    StepInput,
    calibrate_threshold,
    scan,
    sweep_windows,
)
from alpha_matrix.core.safety.stream import steps_from_batch

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
    success_replayed: bool | None
    error_recorded: float | None
    error_replayed: float | None
    problems: tuple[str, ...]
    interrupted_attempts: int = 0  # attempts of this episode id the record does not come from
    not_audited: tuple[str, ...] = ()  # one description per such attempt, e.g. "steps 1..540"
    audited: bool = True  # False: no attempt with a result (the run stopped in this episode)

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


def _episode(attempt: Attempt) -> _Episode:
    gaps = list(attempt.gaps)
    if attempt.first_step is not None and attempt.first_step > 1:  # a stream starts at step 1 (StepBatch.msg)
        gaps.insert(0, (1, attempt.first_step - 1))
    ep = _Episode(gaps=[f"steps {a}..{b} missing from the stream" for a, b in gaps])
    for topic, _ts, msg in attempt.messages:
        if topic == "/robot/step_batch":
            ep.steps.extend(steps_from_batch(msg))
        elif topic == "/safety/events" and msg.closed:
            ep.events.append(_event_key(msg))
        elif topic == "/safety/summary":
            ep.summary = msg
        elif topic == "/episode/result":
            ep.result = msg
        elif topic == "/executive/result":
            ep.execution = msg
        elif topic == "/robot/command_status" and msg.state in (2, 3):  # DONE, CANCELLED
            if ep.final_status is None or msg.end_step >= ep.final_status.end_step:
                ep.final_status = msg
    if ep.summary is not None:  # a real-time driver streams on past the monitor's account until the next reset
        ep.steps = [s for s in ep.steps if s.step <= ep.summary.last_step]
    return ep


def load_attempts(bag_dir: Path, bad_splits: list[BadSplit] | None = None) -> dict[str, list[Attempt]]:
    """episode id -> its attempts (core/attempts.py): a resumed run re-runs the interrupted episode."""
    return split_attempts(read_bag(bag_dir, bad_splits))


def load_episodes(bag_dir: Path, bad_splits: list[BadSplit] | None = None) -> dict[str, _Episode]:
    """episode id -> the attempt that produced its result (episodes without one are left out)."""
    out = {}
    for episode_id, attempts in load_attempts(bag_dir, bad_splits).items():
        chosen, _others = audited_attempt(attempts)
        if chosen is not None:
            out[episode_id] = _episode(chosen)
    return out


def _replay_events(ep: _Episode, config: SafetyConfig) -> list[EventKey]:
    engine = SafetyEngine(config)
    for s in ep.steps:
        engine.process(s)
    engine.finish(int(ep.summary.last_step) if ep.summary else ep.steps[-1].step)
    return [_event_key(e) for e in engine.events]


def _step_budget(ep: _Episode, rec: Any) -> int:
    """The budget the episode was judged against: the bag's result says it (bags before it: 1260), the
    JSONL record when the bag has no result."""
    recorded = int(getattr(ep.result, "step_budget", 0) or 0) if ep.result is not None else 0
    if not recorded and rec is not None:
        recorded = rec.outcome.step_budget or 0
    return recorded or MAX_EPISODE_STEPS


def _audit_episode(episode_id: str, ep: _Episode, records: dict[str, Any], run_dir: Path | None) -> EpisodeAudit:
    problems = list(ep.gaps)
    replayed: list[EventKey] = []
    if ep.summary is not None and ep.steps:
        config = SafetyConfig(contact_threshold=ep.summary.contact_threshold, window=ep.summary.window)
        try:
            replayed = _replay_events(ep, config)
        except ValueError as err:  # a step stream the engine refuses: report it, never a traceback
            problems.append(f"safety replay impossible: {err}")
        if int(ep.summary.steps_checked) != len(ep.steps):
            problems.append(f"monitor checked {ep.summary.steps_checked} steps, the bag holds {len(ep.steps)}")
        if sorted(replayed) != sorted(ep.events):
            problems.append(f"safety events differ: recorded {len(ep.events)}, replayed {len(replayed)}")
    block = None
    if ep.final_status is not None:
        block = next((o.pose.position for o in ep.final_status.objects if o.name == "red"), None)
    pos = (block.x, block.y, block.z) if block is not None else (math.nan,) * 3
    last = int(ep.final_status.end_step) if ep.final_status is not None else 0
    rec = records.get(episode_id)
    budget = _step_budget(ep, rec)
    outcome = evaluate_outcome(pos, ZONE, last, max_steps=budget)
    aborted = bool(ep.execution.abort_kind) if ep.execution is not None else True
    success = outcome.success and not aborted
    rec_success = rec_error = None
    if ep.result is not None:
        rec_success, rec_error = bool(ep.result.success), float(ep.result.placement_error)
        if rec_success != success:
            problems.append(f"recorded success {rec_success}, replay says {success}")
        if rec_error != outcome.placement_error:
            problems.append(f"recorded placement error {rec_error!r}, replay {outcome.placement_error!r}")
    if run_dir is not None:
        if rec is None:
            problems.append(f"no JSONL record in {run_dir}")
        else:
            if rec.outcome.success != success or rec.outcome.placement_error != outcome.placement_error:
                problems.append("JSONL record disagrees with the replay")
            rec_events = sorted(_event_key(e) for e in (rec.safety.events if rec.safety else []))
            if rec.safety is not None and rec_events != sorted(replayed):
                problems.append("JSONL safety events disagree with the replay")
    return EpisodeAudit(
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


def audit_bag(
    bag_dir: Path, run_dir: Path | None = None, bad_splits: list[BadSplit] | None = None
) -> list[EpisodeAudit]:
    """One EpisodeAudit per episode id in the bag, of the attempt that produced its result.

    Interrupted attempts (a run killed mid-episode, then resumed) are counted, not replayed.
    An episode with no completed attempt is not audited (``audited`` False); it is a problem
    only when the run's records nevertheless hold it.
    """
    records = RunStore.read_only(run_dir) if run_dir is not None else {}
    out = []
    for episode_id, attempts in sorted(load_attempts(bag_dir, bad_splits).items()):
        chosen, others = audited_attempt(attempts)
        notes = tuple(a.describe() + ("" if not a.completed else ", superseded") for a in others)
        if chosen is None:
            problems = (f"a JSONL record in {run_dir}, but no completed attempt in the bag",)
            out.append(
                EpisodeAudit(
                    episode_id,
                    0,
                    0,
                    0,
                    None,
                    None,
                    None,
                    None,
                    problems if episode_id in records else (),
                    len(others),
                    notes,
                    audited=False,
                )
            )
            continue
        a = _audit_episode(episode_id, _episode(chosen), records, run_dir)
        out.append(replace(a, interrupted_attempts=len(others), not_audited=notes))
    return out


def unbacked_records(audits: Iterable[EpisodeAudit], run_dir: Path) -> list[str]:
    """Episode ids the run's records hold with no completed attempt in the audited bag(s)."""
    seen = {a.episode_id for a in audits if a.audited}
    return sorted(e for e in RunStore.read_only(run_dir) if e not in seen)


def window_sweep(
    bag_dir: Path, windows: Iterable[int], bad_splits: list[BadSplit] | None = None
) -> dict[int, tuple[int, int]]:
    """W -> (unique events, raw scans) over every completed, gap-free episode of the bag, re-run offline."""
    totals: dict[int, tuple[int, int]] = {}
    windows = list(windows)
    for episode_id, ep in load_episodes(bag_dir, bad_splits).items():
        if not episode_id or not ep.steps or ep.gaps:  # a stream with holes cannot be re-run
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
        if not a.audited:
            verdict = "not audited: interrupted, no episode result" + (
                "" if a.ok else "; MISMATCH: " + "; ".join(a.problems)
            )
            lines.append(f"{a.episode_id:<14} {'-':>5} {'-':>17} {'-':>18} {'-':>20}  {verdict}")
            continue
        succ = f"{a.success_recorded}/{a.success_replayed}"
        replayed_mm = "-" if a.error_replayed is None else f"{a.error_replayed * 1000:.2f}"
        err = f"{'-' if a.error_recorded is None else f'{a.error_recorded * 1000:.2f}'}/{replayed_mm}"
        verdict = "match" if a.ok else "MISMATCH: " + "; ".join(a.problems)
        if a.interrupted_attempts:
            verdict += f" (+{a.interrupted_attempts} interrupted)"
        lines.append(
            f"{a.episode_id:<14} {a.steps:>5} {f'{a.events_recorded}/{a.events_replayed}':>17} {succ:>18} {err:>20}  {verdict}"
        )
    return "\n".join(lines)


def format_notes(audits: list[EpisodeAudit]) -> list[str]:
    """One note per episode with attempts left out, e.g.
    "note: oracle-0003: 1 interrupted attempt (steps 1..540) not audited"."""
    out = []
    for a in audits:
        if a.not_audited:
            n = len(a.not_audited)
            out.append(
                f"note: {a.episode_id}: {n} interrupted attempt{'s' if n > 1 else ''} "
                f"({'; '.join(a.not_audited)}) not audited"
                + ("" if a.audited else " (no attempt with an episode result: the run stopped here)")
            )
    return out


__all__ = [
    "BagError",
    "EpisodeAudit",
    "audit_bag",
    "format_notes",
    "format_table",
    "load_attempts",
    "unbacked_records",
    "unlisted_splits",
    "window_sweep",
]
