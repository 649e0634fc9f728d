"""Report sections: run header, success, paired comparison and safety events."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from alpha_matrix.core.matrix.report.construction import (
    MARK,
    Variant,
    cell_marked,
    inert_rows,
    pair_by_construction,
)
from alpha_matrix.core.matrix.report.fmt import _cell_key, _cell_label, _ci, _i, _p, _rate
from alpha_matrix.core.matrix.stats import Pair, arm_table, cell_of, discordant, pair_records, paired_test, physical
from alpha_matrix.core.pages.blocks import NO_DATA, PLOTS, Block, Bullets, Heading, Image, Para, _table
from alpha_matrix.core.records import EpisodeRecord


def _header(records: Sequence[EpisodeRecord], arms: Sequence[str], variant: Variant) -> list[Block]:
    run_ids = sorted({r.run_id for r in records})
    per_arm = Counter(r.arm for r in records)
    revisions = Counter(f"{r.provenance.code_revision}{' (dirty)' if r.provenance.code_dirty else ''}" for r in records)
    configs = Counter(r.provenance.config_hash for r in records)
    packages: dict[str, set[str]] = defaultdict(set)
    for r in records:
        for name, version in r.provenance.packages.items():
            packages[name].add(version)

    def counted(c: Counter[str]) -> str:
        if len(c) == 1:
            return next(iter(c))
        return "; ".join(f"{k} ({n} episodes)" for k, n in sorted(c.items()))

    items = [
        f"Run id: {', '.join(run_ids) or NO_DATA}",
        "Arms: " + (", ".join(f"{arm} ({per_arm[arm]} episodes)" for arm in arms) or NO_DATA),
        f"Tasks: {', '.join(sorted({r.task for r in records})) or NO_DATA}",
        f"Task variant: {variant.name or 'unknown'} ({variant.evidence})",
        f"Master seed: {', '.join(str(s) for s in sorted({r.master_seed for r in records})) or NO_DATA}",
        f"Code revision: {counted(revisions) if records else NO_DATA}",
        f"Config hash: {counted(configs) if records else NO_DATA}",
        f"Python: {', '.join(sorted({r.provenance.python for r in records})) or NO_DATA}",
        f"Machine: {', '.join(sorted({r.provenance.machine for r in records})) or NO_DATA}",
        "Packages: " + (", ".join(f"{name} {'/'.join(sorted(v))}" for name, v in sorted(packages.items())) or NO_DATA),
    ]
    title = f"Matrix report: {', '.join(run_ids) or 'empty run'}"
    return [
        Heading(1, title),
        Para(
            f"Computed from the {len(records)} episode records of episodes.jsonl; every number below is "
            "counted from them, and a table with nothing to count says so."
        ),
        Bullets(tuple(items)),
    ]


def _by_construction(records: Sequence[EpisodeRecord], arms: Sequence[str], variant: Variant) -> list[Block]:
    """Which results are fixed by the design of the run, said before any of them is shown."""
    blocks: list[Block] = [Heading(2, "By construction")]
    rows = inert_rows(records, arms, variant)
    if not rows:
        return blocks + [
            Para(
                "No cell of this run has a fault that cannot act on its arm"
                + ("." if variant.name else " (F1 not judged: the task variant is unknown).")
            )
        ]
    blocks.append(
        Para(
            f"{MARK} marks a cell whose fault cannot change the arm's outcome, whatever it draws: its success "
            "rate is that of the plan without the fault, not a measure of robustness to it. This differs from a "
            "fault that can act but drew nothing in some episode (see each fault's table). In a concurrent "
            "cell only the listed fault is inert; the cell is marked when all of its faults are."
        )
    )
    blocks.append(_table(("cell", "arm", "episodes", "inert fault", "why", "recorded"), rows))
    blocks.append(
        Para(
            f"A paired comparison is by construction ({MARK}) when its fault can act on one arm and not on the "
            "other: the shielded arm keeps the control plan by design. The headline McNemar row leaves those "
            "pairs out; the 'all cells' row keeps them, for comparison."
        )
    )
    return blocks


def _success(records: Sequence[EpisodeRecord], arms: Sequence[str], plot: bool, variant: Variant) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Success")]
    rows = [
        (s.arm, str(s.n), str(s.successes), _rate(s.successes, s.n), _ci(s.successes, s.n)) for s in arm_table(records)
    ]
    blocks.append(Para("Overall, per arm (95 % Wilson intervals):"))
    blocks.append(_table(("arm", "n", "successes", "rate", "95 % CI"), rows) if rows else Para(NO_DATA))
    cells = sorted({_cell_key(r) for r in records})
    tally: dict[tuple[str, str, float], list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        c = cell_of(r)
        tally[(r.arm, c.fault, c.intensity)][0] += 1
        tally[(r.arm, c.fault, c.intensity)][1] += int(r.outcome.success)
    cell_rows = []
    for _, intensity, fault in cells:
        for arm in arms:
            n, k = tally.get((arm, fault, intensity), (0, 0))
            mark = f"{MARK} fault cannot act" if n and cell_marked(fault, arm, variant) else ""
            cell_rows.append(
                (fault, _i(intensity), arm, str(n), str(k) if n else NO_DATA, _rate(k, n), _ci(k, n), mark)
            )
    blocks.append(Para(f"Per cell (arm × fault × intensity; {MARK}: see 'By construction'):"))
    blocks.append(
        _table(("fault", "intensity", "arm", "n", "successes", "rate", "95 % CI", "by construction"), cell_rows)
        if cell_rows
        else Para(NO_DATA)
    )
    if plot:
        blocks.append(Image("Success rate per cell and arm with 95 % Wilson intervals", f"{PLOTS}/success_by_cell.png"))
    return blocks


def _paired(
    records: Sequence[EpisodeRecord], arms: Sequence[str], arm_pairs: Sequence[tuple[str, str]], variant: Variant
) -> list[Block]:
    """One comparison per pair of arms (every pair of a run's arms: several models, one study)."""
    blocks: list[Block] = [Heading(2, "Paired comparison (McNemar)")]
    if not arm_pairs:
        return blocks + [Para(f"{NO_DATA}: a paired comparison needs two arms (found: {', '.join(arms) or 'none'}).")]
    for a, b in arm_pairs:
        if len(arm_pairs) > 1:
            blocks.append(Heading(3, f"{a} and {b}"))
        blocks += _pair(records, a, b, 3 if len(arm_pairs) == 1 else 4, variant)
    return blocks


def _pair(records: Sequence[EpisodeRecord], a: str, b: str, level: int, variant: Variant) -> list[Block]:
    blocks: list[Block] = []
    try:
        pairs = pair_records(records, a, b)
    except ValueError as err:
        return [Para(f"Not computed: the episodes of {a} and {b} do not pair ({err}).")]
    n_a = sum(r.arm == a for r in records)
    n_b = sum(r.arm == b for r in records)
    blocks.append(
        Para(
            f"First arm {a}, second arm {b}, paired by episode index with equal seed and cell (checked): "
            f"{len(pairs)} pairs; unpaired episodes: {a} {n_a - len(pairs)}, {b} {n_b - len(pairs)}. "
            f"b counts pairs in which only {a} succeeded, c those in which only {b} succeeded; χ² has the "
            "continuity correction, the exact p is the two-sided binomial test of b on b + c."
        )
    )
    designed = {p.key for p in pairs if pair_by_construction(p, a, b, variant)}
    blocks.append(
        Para(
            f"Headline: 'all cells except {MARK}', which leaves out the {len(designed)} pair(s) whose fault can act "
            f"on one arm only (see 'By construction'). Rows marked {MARK} contain such pairs."
        )
    )
    subsets: list[tuple[str, list[Pair]]] = [
        (f"all cells except {MARK} (headline)", [p for p in pairs if p.key not in designed]),
        ("all cells", pairs),
        ("physical (all but F4)", physical(pairs)),
        ("F4 only", [p for p in pairs if p.cell is not None and p.cell.fault == "F4"]),
    ]
    rows = []
    for name, subset in subsets:
        if any(p.key in designed for p in subset):
            name = f"{name} {MARK}"
        if not subset:
            rows.append((name, "0") + (NO_DATA,) * 7)
            continue
        t = paired_test(subset)
        both = sum(p.a_success and p.b_success for p in subset)
        neither = sum(not p.a_success and not p.b_success for p in subset)
        rows.append(
            (
                name,
                str(len(subset)),
                str(both),
                str(neither),
                str(t.b),
                str(t.c),
                f"{t.chi2:.3f}",
                _p(t.p_chi2),
                _p(t.p_exact),
            )
        )
    header = (
        "subset",
        "pairs",
        "both succeeded",
        "both failed",
        f"b ({a} only)",
        f"c ({b} only)",
        "χ²",
        "p (χ²)",
        "exact p",
    )
    blocks.append(_table(header, rows))
    odd = discordant(pairs)
    blocks.append(Heading(level, "Discordant pairs"))
    if not pairs:
        blocks.append(Para(NO_DATA))
    elif not odd:
        blocks.append(Para(f"None: {a} and {b} had the same outcome in all {len(pairs)} pairs."))
    else:
        n_designed = sum(p.key in designed for p in odd)
        blocks.append(
            Para(
                f"{len(odd)} of {len(pairs)} pairs ({len(physical(odd))} in the physical subset, "
                f"{n_designed} by construction {MARK}):"
            )
        )
        blocks.append(
            _table(
                ("episode index", "cell", "replicate", "seed", "succeeded", "failed", "episodes", "by construction"),
                (
                    (
                        str(p.key),
                        _cell_label(p.cell.fault, p.cell.intensity) if p.cell else "control",
                        str(p.cell.replicate) if p.cell else "0",
                        str(p.seed),
                        a if p.a_success else b,
                        b if p.a_success else a,
                        f"{p.a_id}, {p.b_id}",
                        MARK if p.key in designed else "",
                    )
                    for p in odd
                ),
            )
        )
    return blocks


def _safety(records: Sequence[EpisodeRecord], arms: Sequence[str]) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Safety events")]
    monitored = [r for r in records if r.safety is not None]
    if not monitored:
        return blocks + [Para(f"{NO_DATA}: no episode carries a safety monitor record.")]
    rows = []
    for arm in arms:
        mine = [r for r in monitored if r.arm == arm]
        rows.append(
            (
                arm,
                str(sum(r.arm == arm for r in records)),
                str(len(mine)),
                str(sum(r.safety.raw_scans for r in mine if r.safety)),
                str(sum(r.safety.steps_checked for r in mine if r.safety)),
                str(sum(len(r.safety.events) for r in mine if r.safety)),
            )
        )
    blocks.append(_table(("arm", "episodes", "monitored", "raw scans", "steps checked", "events"), rows))
    kinds = sorted({e.kind for r in monitored if r.safety for e in r.safety.events})
    if not kinds:
        return blocks + [Para("No safety event was recorded in any monitored episode.")]
    ev_rows = []
    for k in kinds:
        for arm in arms:
            events = [(r, e) for r in monitored if r.arm == arm and r.safety for e in r.safety.events if e.kind == k]
            ev_rows.append(
                (
                    k,
                    arm,
                    str(len(events)),
                    str(len({r.episode_id for r, _ in events})),
                    str(sum(e.scans for _, e in events)),
                    str(sum(e.stop_requested for _, e in events)),
                    f"{max(e.peak for _, e in events):.3f}" if events else NO_DATA,
                )
            )
    header = ("kind", "arm", "events", "episodes", "scans in events", "stops requested", "max peak")
    blocks.append(_table(header, ev_rows))
    return blocks
