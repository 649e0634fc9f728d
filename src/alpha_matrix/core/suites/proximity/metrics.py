"""Scoring a proximity run against ground truth. Pure functions on per-step and per-frame arrays.

Definitions (step s = physics step; ``gt[s]`` = true horizontal distance from the robot base
axis to the nearest body point at s; ``stopped[s]`` = protective stop in effect during s):

* **Per-frame detection accuracy.** A frame's truth is "a person is within the detection
  range R" (gt <= R). The frame is correct when the detector's ``detected`` equals that truth.
  Frames with |gt - R| <= ``boundary_band`` are not scored: the estimate's accepted error
  makes either answer right there. Whenever a frame is detected *and* inside 3 m its distance
  error is scored separately (below), so "correct" never hides a wrong distance.
* **Breach.** A maximal run of steps with gt < threshold. Its **missed steps** are those at
  least ``allowed_latency`` steps after the breach began with no stop in effect;
  allowed_latency = one frame period + the reaction latency (the latest a perfect 10 Hz
  detector's stop can land). A breach with any missed step is a **missed breach**.
* **Stop latency** = (step the breach's stop took effect - breach start) / 240 Hz; negative
  when the stop was already in effect before the person crossed the threshold (the margin at
  work). **Resume latency** = (step the stop was lifted - step the person left the threshold)
  / 240 Hz.
* **False stop.** A stop request at step s is false when the person stayed farther than
  threshold + ``false_stop_tolerance`` for all of [s - W, s + W], W = allowed_latency.
  Tolerance = the policy's margin + the accepted distance error (0.15 m): a stop from an
  estimate within the accepted error of the threshold is the designed conservative
  behaviour, not a false alarm. Rate = false stop requests / all stop requests.
* **Distance error** = estimate - gt on detected frames with gt <= 3 m (positive = reported
  farther than true: the unsafe direction).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class FrameRow:
    """One camera frame of a run: truth, detector output, policy decision, world state."""

    step: int
    gt_distance: float
    detected: bool
    distance: float
    confidence: float
    blob_count: int
    action: str
    stop_requested: bool
    stopped: bool
    limit: float


@dataclass(frozen=True)
class ScoreConfig:
    threshold: float
    detection_range: float = 4.0
    boundary_band: float = 0.15
    allowed_latency: int = 48  # steps: frame period 24 + reaction latency 24
    false_stop_tolerance: float = 0.4  # policy margin 0.25 + accepted error 0.15
    error_range: float = 3.0
    timestep: float = 1.0 / 240.0


@dataclass
class RunMetrics:
    frames_scored: int = 0
    frames_correct: int = 0
    breaches: int = 0
    missed_breaches: int = 0
    missed_steps: int = 0
    stop_requests: int = 0
    false_stops: int = 0
    unresolved_stops: int = 0  # stop still in effect when the run ended
    errors: list[float] = field(default_factory=list)
    stop_latencies: list[float] = field(default_factory=list)
    resume_latencies: list[float] = field(default_factory=list)


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """Maximal [start, end] index runs where ``flags`` is True."""
    d = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1, strict=True))


def score_run(gt: np.ndarray, stopped: np.ndarray, rows: list[FrameRow], cfg: ScoreConfig) -> RunMetrics:
    """``gt`` and ``stopped`` are indexed by step (index 0 = step 0)."""
    m = RunMetrics()
    for r in rows:
        if abs(r.gt_distance - cfg.detection_range) > cfg.boundary_band:
            m.frames_scored += 1
            m.frames_correct += int(r.detected == (r.gt_distance <= cfg.detection_range))
        if r.detected and r.gt_distance <= cfg.error_range:
            m.errors.append(r.distance - r.gt_distance)
    stop_runs = _runs(stopped)
    for b0, b1 in _runs(gt < cfg.threshold):
        m.breaches += 1
        late = np.arange(b0 + cfg.allowed_latency, b1 + 1)
        missed = int(np.count_nonzero(~stopped[late])) if late.size else 0
        m.missed_steps += missed
        m.missed_breaches += int(missed > 0)
        hit = [(s0, s1) for s0, s1 in stop_runs if s0 <= b1 and s1 >= b0]
        if hit:
            s0, s1 = hit[0]
            m.stop_latencies.append((s0 - b0) * cfg.timestep)
            if s1 < len(stopped) - 1:
                m.resume_latencies.append((s1 + 1 - (b1 + 1)) * cfg.timestep)
            else:
                m.unresolved_stops += 1
    w = cfg.allowed_latency
    for r in rows:
        if r.action != "stop":
            continue
        m.stop_requests += 1
        lo, hi = max(r.step - w, 0), min(r.step + w, len(gt) - 1)
        m.false_stops += int(float(np.min(gt[lo : hi + 1])) >= cfg.threshold + cfg.false_stop_tolerance)
    return m


@dataclass(frozen=True)
class Summary:
    runs: int
    frames_scored: int
    detection_accuracy: float
    breaches: int
    missed_breaches: int
    stop_requests: int
    false_stops: int
    false_stop_rate: float
    unresolved_stops: int
    error_median: float  # |error|, m, inside 3 m
    error_p95: float
    error_bias: float  # median signed error (+ = reported farther)
    stop_latency_median: float  # s
    stop_latency_max: float
    resume_latency_median: float
    resume_latency_max: float


def summarize(metrics: list[RunMetrics]) -> Summary:
    """Pool the runs' counts and distributions."""
    errs = np.array([e for m in metrics for e in m.errors])
    stops = np.array([x for m in metrics for x in m.stop_latencies])
    resumes = np.array([x for m in metrics for x in m.resume_latencies])
    scored = sum(m.frames_scored for m in metrics)
    requests = sum(m.stop_requests for m in metrics)
    false = sum(m.false_stops for m in metrics)

    def q(a: np.ndarray, p: float) -> float:
        return float(np.quantile(a, p)) if a.size else float("nan")

    return Summary(
        runs=len(metrics),
        frames_scored=scored,
        detection_accuracy=sum(m.frames_correct for m in metrics) / scored if scored else float("nan"),
        breaches=sum(m.breaches for m in metrics),
        missed_breaches=sum(m.missed_breaches for m in metrics),
        stop_requests=requests,
        false_stops=false,
        false_stop_rate=false / requests if requests else 0.0,
        unresolved_stops=sum(m.unresolved_stops for m in metrics),
        error_median=q(np.abs(errs), 0.5),
        error_p95=q(np.abs(errs), 0.95),
        error_bias=q(errs, 0.5),
        stop_latency_median=q(stops, 0.5),
        stop_latency_max=q(stops, 1.0),
        resume_latency_median=q(resumes, 0.5),
        resume_latency_max=q(resumes, 1.0),
    )
