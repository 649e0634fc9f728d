"""The safe-pose transition judged from evidence (no ROS, no simulator): per run and pooled.

Inputs are what the robot reported at the end of every command that ran to its end (``Sample``:
step, grasp frame, object poses; the executive reads them from the commands' statuses, the audit
from the recorded step stream at the same steps), the sim-only truth per step (the person's
distance to the base axis, whether a protective stop was in effect), the person's centre per step
(the scenario's path, a pure function) and the controller's bookkeeping of each transition
(sorting.TransitionEvent: when it was decided, what it chose). Nothing here trusts that
bookkeeping for a verdict: whether the block was set down, whether and when the safe posture was
reached, how near the person came, and whether the task resumed and finished are all read from
the samples and the truth.

A transition is **reliable** when the block it held (if any) was set down at the chosen spot
(not dropped), the safe posture was reached, and both before the person came within the
threshold. Failures carry one cause: ``dropped``, ``unreachable put-down spot``, ``no safe path``,
``person too fast`` (within the threshold before the safe posture, which the guard's protective
stop then answered), ``safe posture not reached``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from alpha_matrix.core.matrix.stats import mcnemar, wilson
from alpha_matrix.core.sim.human import HumanPath, path_state
from alpha_matrix.core.suites.proximity.policy import SsmParams, protective_distance
from alpha_matrix.core.suites.proximity.scenarios import BODY_RADIUS
from alpha_matrix.core.suites.proximity.situation import BASE_XY
from alpha_matrix.core.suites.proximity.sorting import TABLE_BLOCK_Z, SortingConfig

Vec3 = tuple[float, float, float]
SAFE_TOLERANCE = 0.03  # m: the grasp frame this near the safe posture has reached it
SPOT_TOLERANCE = 0.04  # m (xy): a block this near the spot was set down there
REST_TOLERANCE = 0.02  # m above TABLE_BLOCK_Z: a block resting on the table
HELD_TOLERANCE = 0.06  # m: a block this near the grasp frame is in the fingers
BIN_TOLERANCE = 0.05  # m (xy): a block this near its bin is sorted


@dataclass(frozen=True)
class Sample:
    step: int
    grasp: Vec3
    objects: dict[str, Vec3]


def _r(x: float | None, nd: int = 6) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), nd)


def _resting_at(p: Vec3, xy: Sequence[float], tol: float) -> bool:
    return math.hypot(p[0] - xy[0], p[1] - xy[1]) <= tol and p[2] <= TABLE_BLOCK_Z + REST_TOLERANCE


def sorted_blocks(cfg: SortingConfig, objects: dict[str, Vec3]) -> list[str]:
    """The blocks resting in their bins."""
    return [
        b
        for b, xy in zip(cfg.blocks, cfg.bins, strict=False)
        if b in objects and _resting_at(objects[b], xy, BIN_TOLERANCE)
    ]


@dataclass(frozen=True)
class SortingRun:
    """What a sorting run's transitions are judged from: the step stream's samples, the true
    distance and the protective stop per step, where the person is, and the scenario's numbers."""

    samples: Sequence[Sample]
    gt: np.ndarray  # true person-robot distance per step
    stopped: np.ndarray  # protective stop engaged per step
    person: Callable[[int], tuple[float, float]]  # the person's centre at a step
    body_radius: float
    threshold: float
    cfg: SortingConfig
    timestep: float


def judge_transition(ev: dict[str, Any], run: SortingRun, until: int) -> dict[str, Any]:
    """One transition's verdicts; ``until``: the step the next transition started (or the run's end)."""
    samples, gt, stopped, person, cfg = run.samples, run.gt, run.stopped, run.person, run.cfg
    last = len(gt) - 1
    trig, start = int(ev["trigger_step"]), int(ev["start_step"])
    block = ev.get("block")
    released = ev.get("released_step")
    window = [s for s in samples if start <= s.step <= until]
    dropped, set_down = False, None
    if block is not None:
        held_until = released if released is not None else ev.get("resume_step")  # the fingers hold it until then
        before = [s for s in window if held_until is None or s.step < held_until]
        dropped = any(block in s.objects and math.dist(s.objects[block], s.grasp) > HELD_TOLERANCE for s in before)
        at = next((s for s in window if s.step == released), None)
        spot = ev.get("spot")
        set_down = bool(
            at is not None
            and spot is not None
            and block in at.objects
            and _resting_at(at.objects[block], spot, SPOT_TOLERANCE)
        )
        dropped = dropped or (at is not None and not set_down)
    safe = ev.get("safe_pose")
    after_release = [s for s in window if block is None or (released is not None and s.step >= released)]
    safe_step = next(
        (s.step for s in after_release if safe is not None and math.dist(s.grasp, safe) <= SAFE_TOLERANCE), None
    )
    breach = next((k for k in range(trig, min(until, last) + 1) if gt[k] < run.threshold), None)
    in_time = safe_step is not None and (breach is None or safe_step < breach)
    reliable = bool(in_time and not dropped and (block is None or set_down))
    end = safe_step if safe_step is not None else min(until, last)
    moving = [s for s in window if s.step <= end]
    dists = [
        math.hypot(s.grasp[0] - person(s.step)[0], s.grasp[1] - person(s.step)[1]) - run.body_radius for s in moving
    ]
    gts = [float(gt[k]) for k in range(start, min(end, last) + 1)]
    # The arm's own motion toward the person: between two samples, how much nearer the person's
    # position (at the first) the grasp frame got. The person walking in is not the arm's doing.
    approach = [
        math.hypot(a.grasp[0] - person(a.step)[0], a.grasp[1] - person(a.step)[1])
        - math.hypot(b.grasp[0] - person(a.step)[0], b.grasp[1] - person(a.step)[1])
        for a, b in zip(moving, moving[1:], strict=False)
    ]
    ssm = protective_distance(SsmParams().human_speed, cfg.transition_speed, SsmParams())
    stop_in = bool(np.any(stopped[trig : min(end, last) + 1]))
    cause = ""
    if not reliable:
        if dropped:
            cause = "dropped"
        elif ev.get("plan") in ("no_put_down_spot", "unreachable"):
            cause = "unreachable put-down spot"
        elif ev.get("plan") == "no_safe_path":
            cause = "no safe path"
        elif breach is not None and (safe_step is None or breach <= safe_step):
            cause = "person too fast"
        else:
            cause = "safe posture not reached"
    resume = ev.get("resume_step")
    after = [s for s in samples if resume is not None and s.step >= resume]
    left_safe = any(safe is not None and math.dist(s.grasp, safe) > 2 * SAFE_TOLERANCE for s in after)
    regrasped = None
    if block is not None and released is not None:
        regrasped = any(
            block in s.objects and math.dist(s.objects[block], s.grasp) <= HELD_TOLERANCE
            and s.objects[block][2] > TABLE_BLOCK_Z + 0.05 for s in after
        )  # fmt: skip
    return {
        "source": ev["source"],
        "phase": ev["phase"],
        "holding": block is not None,
        "trigger_step": trig,
        "set_down": set_down,
        "dropped": dropped,
        "safe_step": safe_step,
        "breach_step": breach,
        "reliable": reliable,
        "cause": cause,
        "time_to_safe_s": None if safe_step is None else _r((safe_step - trig) * run.timestep),
        "min_distance_m": _r(min(dists)) if dists else None,
        "min_gt_distance_m": _r(min(gts)) if gts else None,
        "max_approach_m": _r(max(0.0, *approach)) if approach else 0.0,
        "ssm_separation_m": _r(ssm),
        "protective_stop": stop_in,
        "resumed": resume is not None and left_safe,
        "regrasped": regrasped,
    }


def transition_part(task: dict[str, Any], run: SortingRun) -> dict[str, Any]:
    """The record's ``sorting`` verdicts: every transition judged, the task's completion."""
    events = task["transitions"]
    last = len(run.gt) - 1
    judged = []
    for i, ev in enumerate(events):
        until = int(events[i + 1]["start_step"]) - 1 if i + 1 < len(events) else last
        judged.append(judge_transition(ev, run, until))
    final = run.samples[-1].objects if run.samples else {}
    done = sorted_blocks(run.cfg, final)
    complete = len(done) == len(run.cfg.blocks)
    for j, ev in zip(judged, events, strict=True):
        j["resume_success"] = (
            bool(j["resumed"] and (j["regrasped"] is not False) and complete)
            if ev.get("resume_step") is not None
            else False
        )
    return {"transitions": judged, "sorted": done, "task_complete": complete}


# ----------------------------------------------------------------------------- pooled
def summarize_transitions(results: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """k/n with Wilson intervals over every transition of sorting runs; None when there are none."""
    runs = [r for r in results if r.get("sorting")]
    if not runs:
        return None
    tr = [(r["run"], t) for r in runs for t in r["sorting"]["transitions"]]

    def rate(k: int, n: int) -> dict[str, Any]:
        lo, hi = wilson(k, n) if n else (float("nan"), float("nan"))
        return {"k": k, "n": n, "rate": _r(k / n) if n else None, "wilson": [_r(lo), _r(hi)] if n else None}

    times = np.array([t["time_to_safe_s"] for _, t in tr if t["time_to_safe_s"] is not None])
    mins = [t["min_distance_m"] for _, t in tr if t["min_distance_m"] is not None]
    resumed = [t for _, t in tr if t["resumed"] or t["resume_success"]]
    with_person = [r for r in runs if r["sorting"]["transitions"]]
    return {
        "runs": len(runs),
        "transitions": len(tr),
        "reliability": rate(sum(t["reliable"] for _, t in tr), len(tr)),
        "time_to_safe_s": {
            "median": _r(float(np.median(times))) if times.size else None,
            "max": _r(float(times.max())) if times.size else None,
        },
        "resume_success": rate(sum(t["resume_success"] for _, t in tr), len(tr)),
        "resumed": len(resumed),
        "task_complete": rate(sum(r["sorting"]["task_complete"] for r in runs), len(runs)),
        "task_complete_after_transition": rate(
            sum(r["sorting"]["task_complete"] for r in with_person), len(with_person)
        ),
        "min_distance_m": _r(min(mins)) if mins else None,
        "max_approach_m": _r(max([0.0, *(t["max_approach_m"] for _, t in tr)])),
        "below_ssm": sum(
            t["min_distance_m"] is not None and t["min_distance_m"] < t["ssm_separation_m"] for _, t in tr
        ),
        "protective_stops": sum(t["protective_stop"] for _, t in tr),
        "failures": [[run, t["phase"], t["cause"]] for run, t in tr if not t["reliable"]],
        "by_phase": {
            ph: rate(sum(t["reliable"] for _, t in tr if t["phase"] == ph), sum(t["phase"] == ph for _, t in tr))
            for ph in sorted({t["phase"] for _, t in tr})
        },
    }


def transition_lines(summary: dict[str, Any] | None) -> list[str]:
    """The report's section on the safe-pose transition."""
    if not summary:
        return []

    def kn(d: dict[str, Any]) -> str:
        if not d["n"]:
            return "n/a (0 of 0)"
        lo, hi = d["wilson"]
        return f"{d['k']}/{d['n']} = {100 * d['rate']:.1f} % (95 % Wilson {100 * lo:.1f}–{100 * hi:.1f} %)"

    s = summary
    lines = [
        "",
        "## Safe-pose transition (sorting task)",
        "",
        f"{s['runs']} sorting runs, {s['transitions']} transitions (put down, step back, carry on).",
        "",
        f"- transition reliability (set down, not dropped; safe posture reached; before the person came within the threshold): {kn(s['reliability'])}",
        f"- time from detection to safe posture: median {s['time_to_safe_s']['median']} s, max {s['time_to_safe_s']['max']} s",
        f"- resume success (left the safe pose after the person left, re-grasped what it had put down, task finished): {kn(s['resume_success'])}",
        f"- task completion: {kn(s['task_complete'])}; after a transition: {kn(s['task_complete_after_transition'])}",
        f"- minimum person–gripper distance during a transition: {s['min_distance_m']} m; below the SSM separation S_p: {s['below_ssm']} transitions",
        f"- transitions during which the guard's protective stop engaged: {s['protective_stops']}",
        f"- largest step of the arm toward the person during a transition: {s['max_approach_m']} m "
        "(the tracking error of a piece; the transition's plan admits 1 cm)",
    ]
    for ph, d in s["by_phase"].items():
        lines.append(f"- arriving while {ph}: {kn(d)}")
    if s["failures"]:
        lines += ["", "Failures (run, phase, cause):", ""]
        lines += [f"- {run}: {ph}: {cause}" for run, ph, cause in s["failures"]]
    return [*lines, ""]


def person_centre(path: dict[str, Any], settle_steps: int, timestep: float) -> Callable[[int], tuple[float, float]]:
    """The person's centre (x, y) at a step: the scenario's path, a pure function of the step."""
    hp = HumanPath(**path)

    def at(step: int) -> tuple[float, float]:
        st = path_state(hp, (step - settle_steps) * timestep, BASE_XY)
        return st.x, st.y

    return at


def sorting_verdicts(
    sc: Any, task: dict[str, Any], samples: Sequence[Sample], gt: np.ndarray, stopped: np.ndarray, cfg: SortingConfig
) -> dict[str, Any]:
    """``transition_part`` for a scenario (run.ProximityScenario): its path, threshold and timestep."""
    radius = BODY_RADIUS[str(sc.path.get("posture", "upright"))]
    person = person_centre(sc.path, sc.settle_steps, sc.score.timestep)
    out = transition_part(task, SortingRun(samples, gt, stopped, person, radius, sc.threshold, cfg, sc.score.timestep))
    return {**out, "phase_planned": sc.task.get("phase") if sc.task else None}


# ----------------------------------------------------------------------------- paired runs
def _arrived(r: dict[str, Any]) -> bool:
    """Whether the scenario brought a person in (its file planned an arrival)."""
    return r["sorting"].get("phase_planned") not in (None, "none")


def _run_ok(r: dict[str, Any]) -> bool | None:
    """Every transition of the run reliable; a person who arrived without any transition made
    is a failure (nothing set down, no safe posture); None: nobody arrived and none was made."""
    tr = r["sorting"]["transitions"]
    if tr:
        return all(t["reliable"] for t in tr)
    return False if _arrived(r) else None


def pair_transitions(a: Iterable[dict[str, Any]], b: Iterable[dict[str, Any]], names: tuple[str, str]) -> list[str]:
    """Two runs of the same sorting scenarios (e.g. guard-only and agent-decided) paired by scenario:
    one row each (every transition of the run reliable, time to safe posture, task complete) and the
    concordant/discordant counts. Markdown lines."""
    ra = {r["run"]: r for r in a if r.get("sorting")}
    rb = {r["run"]: r for r in b if r.get("sorting")}
    common = sorted(set(ra) & set(rb))
    lines = [
        f"| scenario | {names[0]}: transitions | {names[0]}: time to safe (s) | {names[1]}: transitions "
        f"| {names[1]}: time to safe (s) | task complete ({names[0]} / {names[1]}) |",
        "|---|---|---|---|---|---|",
    ]
    counts = {"both": 0, "only_a": 0, "only_b": 0, "neither": 0}

    def cell(r: dict[str, Any]) -> tuple[str, str]:
        tr = r["sorting"]["transitions"]
        if not tr:
            return ("none (a person arrived)" if _arrived(r) else "none"), "-"
        ok = ", ".join("ok" if t["reliable"] else t["cause"] for t in tr)
        return ok, ", ".join("-" if t["time_to_safe_s"] is None else f"{t['time_to_safe_s']:.2f}" for t in tr)

    for n in common:
        x, y = ra[n], rb[n]
        ca, cb = cell(x), cell(y)
        done = f"{x['sorting']['task_complete']} / {y['sorting']['task_complete']}"
        lines.append(f"| {n} | {ca[0]} | {ca[1]} | {cb[0]} | {cb[1]} | {done} |")
        oa, ob = _run_ok(x), _run_ok(y)
        if oa is None or ob is None:
            continue
        counts["both" if oa and ob else "only_a" if oa else "only_b" if ob else "neither"] += 1
    m = mcnemar(counts["only_a"], counts["only_b"])
    lines += [
        "",
        f"Paired over {len(common)} scenarios, {sum(counts.values())} where a person arrived (a run with a person "
        f"and no transition is not reliable): all reliable in both {counts['both']}, "
        f"only {names[0]} {counts['only_a']}, only {names[1]} {counts['only_b']}, neither {counts['neither']}; "
        f"McNemar exact p = {m.p_exact:.4g}.",
    ]
    return lines
