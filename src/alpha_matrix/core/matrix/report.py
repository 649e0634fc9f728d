"""The run report: Markdown, PNG plots and one HTML page, regenerated from ``episodes.jsonl`` alone.

Every number in it is counted from the records; where there is nothing to count it says "no data"
rather than assuming what a run should show. The text depends only on the records, so writing it twice
gives the same bytes.
"""

from __future__ import annotations

import html
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure

from alpha_matrix.core.matrix.stats import (
    CONTROL,
    Pair,
    arm_table,
    cell_of,
    discordant,
    fault_rank,
    pair_records,
    paired_test,
    physical,
    wilson,
)
from alpha_matrix.core.records import EpisodeRecord, FaultRecord, RunStore

NO_DATA = "no data"
PLOTS = "plots"
# FaultRecord keys, the first present wins: the brief's names, then those core/matrix/faults.py records.
F1_REQUESTED = ("lag_s", "tau")
F1_DELIVERED = ("lag_s", "lag")
F3_DELIVERED = ("offset",)
TIME_EPS = 1e-9  # s: sim times are float sums; a shortfall below this is not saturation


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Image:
    alt: str
    path: str  # relative to the run directory


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


Block = Heading | Para | Table | Image | Bullets


# ---------------------------------------------------------------- formatting


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _ci(k: int, n: int) -> str:
    if n == 0:
        return NO_DATA
    lo, hi = wilson(k, n)
    return f"[{_pct(lo)}, {_pct(hi)}]"


def _rate(k: int, n: int) -> str:
    return f"{k}/{n} = {_pct(k / n)}" if n else NO_DATA


def _p(p: float) -> str:
    return f"{p:.3f}" if p >= 1e-3 else f"{p:.2e}"


def _i(x: float) -> str:
    return f"{x:.2f}"


def _cell_label(fault: str, intensity: float) -> str:
    return "control" if fault == CONTROL else f"{fault} I={_i(intensity)}"


def _spread(values: Sequence[float], digits: int = 3) -> str:
    if not values:
        return NO_DATA
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    return Table(tuple(header), tuple(tuple(r) for r in rows))


def _num(value: float | str | None) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _first(values: dict[str, float | str], keys: Sequence[str]) -> float | None:
    for key in keys:
        if key in values:
            return _num(values[key])
    return None


def _lags(f: FaultRecord) -> tuple[float | None, float | None]:
    return _first(f.requested, F1_REQUESTED), _first(f.delivered, F1_DELIVERED)


def _corrupted(f: FaultRecord) -> bool:
    """An F4 draw that changed the text (core/matrix/faults.py records every draw, kind "none" if untouched)."""
    flag = _num(f.delivered.get("corrupted"))
    if flag is not None:
        return flag >= 0.5
    return f.delivered.get("kind") not in (None, "", "none")


def _faults(rec: EpisodeRecord, fault: str) -> list[FaultRecord]:
    return [f for f in rec.faults if f.fault == fault]


def _cell_key(rec: EpisodeRecord) -> tuple[tuple[int, str], float, str]:
    cell = cell_of(rec)
    return fault_rank(cell.fault), cell.intensity, cell.fault


# ---------------------------------------------------------------- rendering


def render_markdown(blocks: Sequence[Block]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    out: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {b.text}")
        elif isinstance(b, Para):
            out.append(b.text)
        elif isinstance(b, Bullets):
            out.append("\n".join(f"- {item}" for item in b.items))
        elif isinstance(b, Table):
            lines = ["| " + " | ".join(cell(h) for h in b.header) + " |", "|" + "---|" * len(b.header)]
            lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in b.rows]
            out.append("\n".join(lines))
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.path})")
    return "\n\n".join(out) + "\n"


def render_html(blocks: Sequence[Block], title: str) -> str:
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.2em .6em;text-align:left}"
        "th{background:#eee}img{max-width:100%}</style>",
        "</head><body>",
    ]
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"<h{b.level}>{e(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            out.append(f"<p>{e(b.text)}</p>")
        elif isinstance(b, Bullets):
            out.append("<ul>" + "".join(f"<li>{e(item)}</li>" for item in b.items) + "</ul>")
        elif isinstance(b, Table):
            head = "".join(f"<th>{e(h)}</th>" for h in b.header)
            body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in b.rows)
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif isinstance(b, Image):
            out.append(f'<p><img src="{e(b.path)}" alt="{e(b.alt)}"></p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# ---------------------------------------------------------------- plots


def _save(fig: Figure, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})


def _plot_success(records: Sequence[EpisodeRecord], arms: Sequence[str], path: Path) -> bool:
    cells = sorted({_cell_key(r) for r in records})
    if not cells:
        return False
    fig = Figure(figsize=(max(6.0, 0.9 * len(cells) + 2), 4.2))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(arms))
    for j, arm in enumerate(arms):
        xs, ys, lo_err, hi_err = [], [], [], []
        for x, (_, intensity, fault) in enumerate(cells):
            sel = [r for r in records if r.arm == arm and _cell_key(r)[1:] == (intensity, fault)]
            if not sel:
                continue
            k = sum(r.outcome.success for r in sel)
            lo, hi = wilson(k, len(sel))
            rate = k / len(sel)
            xs.append(x - 0.4 + width * (j + 0.5))
            ys.append(rate)
            lo_err.append(rate - lo)
            hi_err.append(hi - rate)
        ax.bar(xs, ys, width=width, yerr=[lo_err, hi_err], capsize=3, label=arm)
    ax.set_xticks(range(len(cells)), [_cell_label(f, i) for _, i, f in cells], rotation=30, ha="right")
    ax.set_ylim(0, 1.22)  # headroom so the legend never covers a bar
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("success rate (95 % Wilson CI)")
    ax.set_title("Success per cell and arm")
    ax.legend(loc="upper right", ncol=max(1, len(arms)))
    _save(fig, path)
    return True


def _plot_f3(records: Sequence[EpisodeRecord], arms: Sequence[str], path: Path) -> bool:
    sel = [r for r in records if cell_of(r).fault in (CONTROL, "F3")]
    if not any(cell_of(r).fault == "F3" for r in sel):
        return False
    fig = Figure(figsize=(6.0, 4.0))
    ax = fig.add_subplot()
    offsets = {arm: 0.012 * (j - (len(arms) - 1) / 2) for j, arm in enumerate(arms)}
    for arm in arms:
        mine = [r for r in sel if r.arm == arm]
        if not mine:
            continue
        xs = [cell_of(r).intensity + offsets[arm] for r in mine]
        ax.scatter(xs, [r.outcome.placement_error for r in mine], s=14, alpha=0.6, label=f"{arm} episodes")
        levels = sorted({cell_of(r).intensity for r in mine})
        medians = [
            statistics.median(r.outcome.placement_error for r in mine if cell_of(r).intensity == i) for i in levels
        ]
        ax.plot(levels, medians, marker="o", label=f"{arm} median")
    ax.set_xlabel("F3 intensity (0 = control)")
    ax.set_ylabel("placement error (m)")
    ax.set_title("F3 unreachable IK: placement error")
    ax.legend()
    _save(fig, path)
    return True


def _f1_points(records: Sequence[EpisodeRecord]) -> list[tuple[float, float, float]]:
    points = []
    for r in records:
        for f in _faults(r, "F1"):
            req, got = _lags(f)
            if req is not None and got is not None:
                points.append((cell_of(r).intensity, req, got))
    return points


def _plot_f1(records: Sequence[EpisodeRecord], path: Path) -> bool:
    points = _f1_points(records)
    if not points:
        return False
    fig = Figure(figsize=(5.0, 4.5))
    ax = fig.add_subplot()
    for level in sorted({p[0] for p in points}):
        mine = [p for p in points if p[0] == level]
        ax.scatter([p[1] for p in mine], [p[2] for p in mine], s=16, alpha=0.7, label=f"I={_i(level)}")
    top = max(max(p[1] for p in points), max(p[2] for p in points)) * 1.05 or 1.0
    ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=1, label="delivered = requested")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("requested lag (s)")
    ax.set_ylabel("delivered lag (s)")
    ax.set_title("F1 sensor delay")
    ax.legend()
    _save(fig, path)
    return True


# ---------------------------------------------------------------- sections


def _header(records: Sequence[EpisodeRecord], arms: Sequence[str]) -> list[Block]:
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
        f"Master seed: {', '.join(str(s) for s in sorted({r.master_seed for r in records})) or NO_DATA}",
        f"Code revision: {counted(revisions) if records else NO_DATA}",
        f"Config hash: {counted(configs) if records else NO_DATA}",
        f"Python: {', '.join(sorted({r.provenance.python for r in records})) or NO_DATA}",
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


def _success(records: Sequence[EpisodeRecord], arms: Sequence[str], plot: bool) -> list[Block]:
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
            cell_rows.append((fault, _i(intensity), arm, str(n), str(k) if n else NO_DATA, _rate(k, n), _ci(k, n)))
    blocks.append(Para("Per cell (arm × fault × intensity):"))
    blocks.append(
        _table(("fault", "intensity", "arm", "n", "successes", "rate", "95 % CI"), cell_rows)
        if cell_rows
        else Para(NO_DATA)
    )
    if plot:
        blocks.append(Image("Success rate per cell and arm with 95 % Wilson intervals", f"{PLOTS}/success_by_cell.png"))
    return blocks


def _paired(records: Sequence[EpisodeRecord], arms: Sequence[str], pair_arms: tuple[str, str] | None) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Paired comparison (McNemar)")]
    if pair_arms is None:
        return blocks + [Para(f"{NO_DATA}: a paired comparison needs two arms (found: {', '.join(arms) or 'none'}).")]
    a, b = pair_arms
    try:
        pairs = pair_records(records, a, b)
    except ValueError as err:
        return blocks + [Para(f"Not computed: the episodes of {a} and {b} do not pair ({err}).")]
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
    subsets: list[tuple[str, list[Pair]]] = [
        ("all cells", pairs),
        ("physical (all but F4)", physical(pairs)),
        ("F4 only", [p for p in pairs if p.cell is not None and p.cell.fault == "F4"]),
    ]
    rows = []
    for name, subset in subsets:
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
    blocks.append(Heading(3, "Discordant pairs"))
    if not pairs:
        blocks.append(Para(NO_DATA))
    elif not odd:
        blocks.append(Para(f"None: {a} and {b} had the same outcome in all {len(pairs)} pairs."))
    else:
        blocks.append(Para(f"{len(odd)} of {len(pairs)} pairs ({len(physical(odd))} in the physical subset):"))
        blocks.append(
            _table(
                ("episode index", "cell", "replicate", "seed", "succeeded", "failed", "episodes"),
                (
                    (
                        str(p.key),
                        _cell_label(p.cell.fault, p.cell.intensity) if p.cell else "control",
                        str(p.cell.replicate) if p.cell else "0",
                        str(p.seed),
                        a if p.a_success else b,
                        b if p.a_success else a,
                        f"{p.a_id}, {p.b_id}",
                    )
                    for p in odd
                ),
            )
        )
    return blocks


def _f1(records: Sequence[EpisodeRecord], plot: bool) -> list[Block]:
    blocks: list[Block] = [Heading(3, "F1 sensor delay: requested vs delivered lag")]
    groups: dict[tuple[tuple[int, str], float, str], list[tuple[float, float, float | None]]] = defaultdict(list)
    missing = 0
    for r in records:
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
    for (_, intensity, fault), pts in sorted(groups.items()):
        short = [req - got for req, got, _ in pts if got < req - TIME_EPS]
        rows.append(
            (
                fault,
                _i(intensity),
                str(len(pts)),
                _spread([p[0] for p in pts]),
                _spread([p[1] for p in pts]),
                str(len(short)),
                f"{max(short):.3f}" if short else "0",
                _spread([p[2] for p in pts if p[2] is not None], 4),
            )
        )
    blocks.append(
        Para(
            "Injections pooled over arms; lags in seconds and position error in metres as median [min–max]. "
            "Saturated: injections whose delivered lag was shorter than the requested lag."
        )
    )
    header = (
        "cell",
        "intensity",
        "injections",
        "requested lag",
        "delivered lag",
        "saturated",
        "largest shortfall (s)",
        "position error (m)",
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
            errors = [r.outcome.placement_error for r in eps]
            rows.append(
                (
                    "control" if key[2] == CONTROL else key[2],
                    _i(key[1]),
                    arm,
                    str(len(eps)),
                    str(sum(len(_faults(r, "F3")) for r in eps)),
                    _spread(
                        [
                            x
                            for r in eps
                            for f in _faults(r, "F3")
                            if (x := _first(f.delivered, F3_DELIVERED)) is not None
                        ],
                        4,
                    ),
                    f"{statistics.median(errors):.4f}" if errors else NO_DATA,
                    f"{max(errors):.4f}" if errors else NO_DATA,
                    _rate(sum(r.outcome.success for r in eps), len(eps)),
                )
            )
    blocks.append(
        Para(
            "Placement error in metres, control cells shown for reference; offset applied to the commanded "
            "targets as median [min–max] over injections."
        )
    )
    header = (
        "cell",
        "intensity",
        "arm",
        "n",
        "F3 injections",
        "offset applied (m)",
        "median error (m)",
        "max error (m)",
        "success",
    )
    blocks.append(_table(header, rows))
    if plot:
        blocks.append(Image("F3 placement error vs intensity", f"{PLOTS}/f3_placement_error.png"))
    return blocks


def _f4(records: Sequence[EpisodeRecord], arms: Sequence[str]) -> list[Block]:
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
                )
            )
    header = ("cell", "intensity", "arm", "episodes", "F4 draws", "corrupted") + tuple(f"kind {x}" for x in kinds)
    blocks.append(
        Para(
            "F4 draws: plan messages the corruption was drawn for; corrupted: draws that changed the text, "
            "by kind. Abort kinds as the executive recorded them."
        )
    )
    blocks.append(_table(header + ("success", "95 % CI", "abort kinds"), rows))
    if not kinds:
        blocks.append(Para("No F4 corruption was recorded in any arm."))
    return blocks


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
    header = ("arm", "plans", "prompt tokens (median)", "completion tokens (median)", "latency median (s)")
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


# ---------------------------------------------------------------- entry point


def build_report(
    records: Sequence[EpisodeRecord], pair_arms: tuple[str, str] | None, plots: dict[str, bool]
) -> list[Block]:
    """The report as blocks, from records already sorted; plots says which PNGs were written."""
    arms = sorted({r.arm for r in records})
    blocks = _header(records, arms)
    blocks += _success(records, arms, plots.get("success", False))
    blocks += _paired(records, arms, pair_arms)
    blocks.append(Heading(2, "Faults"))
    blocks += _f1(records, plots.get("f1", False))
    blocks += _f2(records, arms)
    blocks += _f3(records, arms, plots.get("f3", False))
    blocks += _f4(records, arms)
    blocks += _planners(records, arms)
    blocks += _safety(records, arms)
    return blocks


def write_report(
    run_dir: Path, records: list[EpisodeRecord] | None = None, arms: tuple[str, str] | None = None
) -> Path:
    """Write report.md, report.html and plots/*.png into run_dir; returns the Markdown path.

    ``arms`` picks the paired comparison (first, second); by default the first two arms in sorted order.
    """
    run_dir = Path(run_dir)
    if records is None:
        records = list(RunStore.read_only(run_dir).values())
    ordered = sorted(records, key=lambda r: (r.arm, r.episode_index, r.episode_id))
    present = sorted({r.arm for r in ordered})
    if arms is not None:
        unknown = [a for a in arms if a not in present]
        if unknown or len(arms) != 2 or arms[0] == arms[1]:
            raise ValueError(
                f"arms {arms!r}: need two distinct arms of this run (it has {', '.join(present) or 'none'})"
            )
        pair_arms: tuple[str, str] | None = (arms[0], arms[1])
    else:
        pair_arms = (present[0], present[1]) if len(present) >= 2 else None

    plot_dir = run_dir / PLOTS
    plot_dir.mkdir(parents=True, exist_ok=True)
    plots = {
        "success": _plot_success(ordered, present, plot_dir / "success_by_cell.png"),
        "f1": _plot_f1(ordered, plot_dir / "f1_lag.png"),
        "f3": _plot_f3(ordered, present, plot_dir / "f3_placement_error.png"),
    }
    for name, written in zip(("success_by_cell", "f1_lag", "f3_placement_error"), plots.values(), strict=True):
        if not written:  # a plot left from an earlier version of the records would now be wrong
            (plot_dir / f"{name}.png").unlink(missing_ok=True)
    blocks = build_report(ordered, pair_arms, plots)
    md_path = run_dir / "report.md"
    _write(md_path, render_markdown(blocks))
    title = blocks[0].text if isinstance(blocks[0], Heading) else "Matrix report"
    _write(run_dir / "report.html", render_html(blocks, title))
    return md_path
