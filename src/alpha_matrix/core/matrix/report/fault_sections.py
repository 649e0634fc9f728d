"""Report sections, one per fault: what each injection requested and delivered, and what it did."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence

from alpha_matrix.core.matrix.cells import F1_OPEN_LOOP, F4_TYPED_ARM, inert_faults
from alpha_matrix.core.matrix.report.construction import MARK, Variant, before_motion, cell_marked
from alpha_matrix.core.matrix.report.fmt import (
    F3_DELIVERED,
    TIME_EPS,
    _cell_key,
    _ci,
    _corrupted,
    _faults,
    _first,
    _i,
    _lags,
    _num,
    _rate,
    _spread,
)
from alpha_matrix.core.matrix.stats import CONTROL, cell_of
from alpha_matrix.core.pages.blocks import NO_DATA, PLOTS, Block, Heading, Image, Para, _table
from alpha_matrix.core.records import EpisodeRecord, FaultRecord


def _f1(records: Sequence[EpisodeRecord], plot: bool, variant: Variant) -> list[Block]:
    blocks: list[Block] = [Heading(3, "F1 sensor delay: requested vs delivered lag")]
    groups: dict[tuple[tuple[int, str], float, str], list[tuple[float, float, float | None]]] = defaultdict(list)
    planned_from: dict[tuple[tuple[int, str], float, str], list[float]] = defaultdict(list)
    missing = 0
    for r in records:
        if _faults(r, "F1"):  # the earliest F1 injection delays the observation the plan is made from
            first = min(_faults(r, "F1"), key=lambda f: (f.step, f.seq))
            if (err := _num(first.delivered.get("position_error"))) is not None:
                planned_from[_cell_key(r)].append(err)
        for f in _faults(r, "F1"):
            req, got = _lags(f)
            if req is None or got is None:
                missing += 1
            else:
                groups[_cell_key(r)].append((req, got, _num(f.delivered.get("position_error"))))
    if not groups:
        blocks.append(Para(f"{NO_DATA}: no F1 injection with a requested and a delivered lag was recorded."))
        return blocks
    rows = []
    for key, pts in sorted(groups.items()):
        (_, intensity, fault) = key
        short = [req - got for req, got, _ in pts if got < req - TIME_EPS]
        here = {r.arm for r in records if _cell_key(r) == key}
        inert = all("F1" in inert_faults(fault, arm, variant.name) for arm in here)
        rows.append(
            (
                f"{fault} {MARK}" if inert else fault,
                _i(intensity),
                str(len(pts)),
                _spread([p[0] for p in pts]),
                _spread([p[1] for p in pts]),
                str(len(short)),
                f"{max(short):.3f}" if short else "0",
                _spread([p[2] for p in pts if p[2] is not None], 4),
                _spread(planned_from.get(key, []), 4),
            )
        )
    blocks.append(
        Para(
            "Injections pooled over arms; lags in seconds and position error in metres as median [min–max]. "
            "Saturated: injections whose delivered lag was shorter than the requested lag. Position error: over "
            "every injection (each delayed observation or command status); planned from: the episode's first "
            "injection, the observation its plan was made from."
        )
    )
    if any(row[0].endswith(MARK) for row in rows):
        blocks.append(Para(f"{MARK} Cannot change an outcome in this {variant.name} run: {F1_OPEN_LOOP}."))
    header = (
        "cell",
        "intensity",
        "injections",
        "requested lag",
        "delivered lag",
        "saturated",
        "largest shortfall (s)",
        "position error (m)",
        "planned from: position error (m)",
    )
    blocks.append(_table(header, rows))
    if missing:
        blocks.append(
            Para(f"{missing} F1 injection(s) lacked a numeric requested or delivered lag and are not counted.")
        )
    if plot:
        blocks.append(Image("F1 requested vs delivered lag", f"{PLOTS}/f1_lag.png"))
    return blocks


def _f2(records: Sequence[EpisodeRecord], arms: Sequence[str]) -> list[Block]:
    blocks: list[Block] = [Heading(3, "F2 grip slip: slips and success by intensity")]
    keys = sorted({_cell_key(r) for r in records if "F2" in cell_of(r).fault.split("+") or _faults(r, "F2")})
    if not keys:
        return blocks + [Para(f"{NO_DATA}: no F2 cell or F2 injection in this run.")]
    rows = []
    unrecorded = 0
    for key in keys:
        for arm in arms:
            eps = [r for r in records if r.arm == arm and _cell_key(r) == key]
            draws = [f for r in eps for f in _faults(r, "F2")]
            flags = [_num(f.delivered.get("slipped")) for f in draws]
            unrecorded += sum(x is None for x in flags)
            lifts = [x for x in flags if x is not None]
            slips = sum(x >= 0.5 for x in lifts)
            slipped_ids = {
                r.episode_id
                for r in eps
                if any((_num(f.delivered.get("slipped")) or 0.0) >= 0.5 for f in _faults(r, "F2"))
            }
            slipped_eps = [r for r in eps if r.episode_id in slipped_ids]
            clean_eps = [r for r in eps if r.episode_id not in slipped_ids]
            k_s = sum(r.outcome.success for r in slipped_eps)
            k_c = sum(r.outcome.success for r in clean_eps)
            rows.append(
                (
                    key[2],
                    _i(key[1]),
                    arm,
                    str(len(eps)),
                    str(len(lifts)),
                    str(slips),
                    f"{_rate(slips, len(lifts))} {_ci(slips, len(lifts))}" if lifts else NO_DATA,
                    _rate(sum(r.outcome.success for r in eps), len(eps)),
                    _rate(k_s, len(slipped_eps)),
                    _rate(k_c, len(clean_eps)),
                )
            )
    header = (
        "cell",
        "intensity",
        "arm",
        "episodes",
        "lift draws",
        "slips",
        "slip rate (95 % CI)",
        "success",
        "success after a slip",
        "success without slip",
    )
    blocks.append(_table(header, rows))
    if unrecorded:
        blocks.append(Para(f"{unrecorded} F2 draw(s) lacked a numeric 'slipped' and are not counted."))
    return blocks


def _f3(records: Sequence[EpisodeRecord], arms: Sequence[str], plot: bool) -> list[Block]:
    blocks: list[Block] = [Heading(3, "F3 unreachable IK: placement error by intensity")]
    keys = sorted({_cell_key(r) for r in records if cell_of(r).fault in (CONTROL, "F3")})
    if not any(k[2] == "F3" for k in keys):
        return blocks + [Para(f"{NO_DATA}: no F3 cell in this run.")]
    rows = []
    for key in keys:
        for arm in arms:
            eps = [r for r in records if r.arm == arm and _cell_key(r) == key]
            refused = sum(before_motion(r) for r in eps)
            errors = [r.outcome.placement_error for r in eps if not before_motion(r)]
            offsets = [x for r in eps for f in _faults(r, "F3") if (x := _first(f.delivered, F3_DELIVERED)) is not None]
            rows.append(
                (
                    "control" if key[2] == CONTROL else key[2],
                    _i(key[1]),
                    arm,
                    str(len(eps)),
                    str(sum(len(_faults(r, "F3")) for r in eps)),
                    _spread(offsets, 4),
                    str(refused),
                    str(len(errors)),
                    f"{statistics.median(errors):.4f}" if errors else NO_DATA,
                    f"{max(errors):.4f}" if errors else NO_DATA,
                    _rate(sum(r.outcome.success for r in eps), len(eps)),
                )
            )
    blocks.append(
        Para(
            "Placement error in metres over executed plans only, control cells shown for reference; offset "
            "applied to the commanded targets as median [min–max] over injections. Refused before motion: plans "
            "a guard refused before the arm moved (abort kinds planner, json, schema, semantic, e.g. a target "
            "pushed out of reach); their block never left its start, so its distance to the zone is the start "
            "distance and is counted here, not as an error."
        )
    )
    header = (
        "cell",
        "intensity",
        "arm",
        "n",
        "F3 injections",
        "offset applied (m)",
        "refused before motion",
        "executed",
        "median error, executed (m)",
        "max error, executed (m)",
        "success",
    )
    blocks.append(_table(header, rows))
    if plot:
        blocks.append(Image("F3 placement error of executed plans vs intensity", f"{PLOTS}/f3_placement_error.png"))
    return blocks


def _f4(records: Sequence[EpisodeRecord], arms: Sequence[str], variant: Variant) -> list[Block]:
    blocks: list[Block] = [Heading(3, "F4 planner-output corruption: corruptions and success per arm")]
    keys = sorted({_cell_key(r) for r in records if cell_of(r).fault == "F4" or _faults(r, "F4")})
    if not keys:
        return blocks + [Para(f"{NO_DATA}: no F4 cell or F4 injection in this run.")]

    def kind(f: FaultRecord) -> str:
        value = f.delivered.get("kind")
        return value if isinstance(value, str) and value else "(unrecorded)"

    kinds = sorted({kind(f) for r in records for f in _faults(r, "F4") if _corrupted(f)})
    rows = []
    for key in keys:
        for arm in arms:
            eps = [r for r in records if r.arm == arm and _cell_key(r) == key]
            draws = [f for r in eps for f in _faults(r, "F4")]
            by_kind = Counter(kind(f) for f in draws if _corrupted(f))
            aborts = Counter(r.abort_kind or "(none)" for r in eps)
            k = sum(r.outcome.success for r in eps)
            rows.append(
                (key[2], _i(key[1]), arm, str(len(eps)), str(len(draws)), str(sum(by_kind.values())))
                + tuple(str(by_kind[x]) for x in kinds)
                + (
                    _rate(k, len(eps)),
                    _ci(k, len(eps)),
                    ", ".join(f"{a}: {n}" for a, n in sorted(aborts.items())) or NO_DATA,
                    MARK if eps and cell_marked(key[2], arm, variant) else "",
                )
            )
    header = ("cell", "intensity", "arm", "episodes", "F4 draws", "corrupted") + tuple(f"kind {x}" for x in kinds)
    blocks.append(
        Para(
            "F4 draws: plan messages the corruption was drawn for; corrupted: draws that changed the text, "
            "by kind. Abort kinds as the executive recorded them."
        )
    )
    blocks.append(_table(header + ("success", "95 % CI", "abort kinds", "by construction"), rows))
    if any(row[-1] == MARK for row in rows):
        blocks.append(Para(f"{MARK} {F4_TYPED_ARM}."))
    if not kinds:
        blocks.append(Para("No F4 corruption was recorded in any arm."))
    return blocks
