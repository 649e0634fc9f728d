"""Report section of the text arms: provenance, cost, and which guard caught what."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from alpha_matrix.core.matrix.report.fmt import _rate
from alpha_matrix.core.pages.blocks import NO_DATA, Block, Heading, Para, _table
from alpha_matrix.core.records import EpisodeRecord

GUARDS = ("json", "schema", "semantic", "rejected")  # parse, plan schema, scene + reach, the robot itself


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _cost_row(arm: str, eps: Sequence[EpisodeRecord]) -> tuple[str, ...]:
    latencies = [r.timing.llm_latency_s for r in eps if r.timing.llm_latency_s is not None]
    prompt = [float(r.planner.prompt_tokens) for r in eps if r.planner]
    completion = [float(r.planner.completion_tokens) for r in eps if r.planner]
    rate = sum(completion) / sum(latencies) if latencies and sum(latencies) > 0 else None
    return (
        arm,
        str(len(eps)),
        f"{_median(prompt):.0f}",
        f"{_median(completion):.0f}",
        f"{_median(latencies):.2f}" if latencies else NO_DATA,
        f"{max(latencies):.2f}" if latencies else NO_DATA,
        f"{rate:.1f}" if rate else NO_DATA,
        str(sum(r.planner.attempts - 1 for r in eps if r.planner)),
    )


def _planners(records: Sequence[EpisodeRecord], arms: Sequence[str]) -> list[Block]:
    """Text arms: who wrote the plans, what they cost, and which guard caught what."""
    blocks: list[Block] = [Heading(2, "Planners (text arms)")]
    texts = [r for r in records if r.planner is not None]
    if not texts:
        return blocks + [Para(f"{NO_DATA}: no text-arm episode in this run.")]
    prov_rows, cost_rows, guard_rows = [], [], []
    for arm in arms:
        eps = [r for r in texts if r.arm == arm]
        if not eps:
            continue
        models = Counter((r.planner.backend, r.planner.model, r.planner.digest[:19]) for r in eps if r.planner)
        for (backend, model, digest), n in sorted(models.items()):
            recorded = sum(1 for r in eps if r.planner and r.planner.recorded and r.planner.model == model)
            prov_rows.append((arm, backend, model or NO_DATA, digest or NO_DATA, str(n), str(recorded)))
        scripted = all(r.planner and r.planner.backend == "oracle" for r in eps)
        cost_rows.append((arm, str(len(eps))) + ("(scripted)",) * 6 if scripted else _cost_row(arm, eps))
        caught = Counter(r.abort_kind for r in eps if r.abort_kind in GUARDS)
        invalid = caught["json"] + caught["schema"]
        guard_rows.append(
            (arm, str(len(eps)), _rate(invalid, len(eps)))
            + tuple(str(caught[g]) for g in GUARDS)
            + (str(sum(not r.abort_kind for r in eps)),)
        )
    blocks.append(Para("Every plan's provenance is in its record; replayed texts keep the original generation's."))
    blocks.append(_table(("arm", "backend", "model", "digest", "plans", "replayed"), prov_rows))
    blocks.append(
        Para(
            "Tokens and latency per plan (latency: wall clock of the generation as the planner measured it; "
            "tokens/s: completion tokens over generation time, prompt processing included)."
        )
    )
    header: tuple[str, ...] = (
        "arm",
        "plans",
        "prompt tokens (median)",
        "completion tokens (median)",
        "latency median (s)",
    )
    blocks.append(_table(header + ("latency max (s)", "tokens/s", "re-asks"), cost_rows))
    blocks.append(
        Para(
            "Guard catches, each counted once at the first guard that refused the plan: json (not JSON), "
            "schema (not a valid plan), semantic (before any motion: object not in the observed scene, the grasp "
            "not at it, or a target the robot cannot reach), rejected (the robot refused a command during "
            "execution). Invalid output = json + schema. F4 corruptions are included where the run had F4 cells."
        )
    )
    header = ("arm", "plans", "invalid output") + tuple(f"caught: {g}" for g in GUARDS) + ("executed",)
    blocks.append(_table(header, guard_rows))
    return blocks
