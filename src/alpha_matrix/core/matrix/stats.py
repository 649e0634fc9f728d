"""Statistics of a matrix run: Wilson intervals per cell and paired McNemar between arms.

The arithmetic is statsmodels' and scipy's; this module only decides what is counted and how episodes
of two arms are paired (same episode index, and then same seed and cell, or the pairing is refused).

Both are imported where an interval or a test is computed, not with this module: the suites' nodes
import it with their scoring code and compute nothing from it while they run, and scipy.stats with
statsmodels (pandas) took 1 to 2.5 s of CPU at every start of such a node.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from alpha_matrix.core.records import CellRecord, EpisodeRecord

CONTROL = "none"
FAULT_ORDER = ("none", "F1", "F2", "F3", "F4", "F1+F2")
PHYSICAL_EXCLUDES = frozenset({"F4"})  # F4 corrupts the plan text: it never reaches physics


def wilson(successes: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval; (0, 1) when there is nothing to estimate from."""
    if n == 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside [0, {n}]")
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)


@dataclass(frozen=True)
class McNemar:
    """Paired test on the discordant counts: b = first arm only succeeded, c = second arm only."""

    b: int
    c: int
    chi2: float
    p_chi2: float
    p_exact: float


def mcnemar(b: int, c: int) -> McNemar:
    """χ² with continuity correction and the exact two-sided binomial p on b of b + c.

    When b == c there is no difference to correct toward, so (as R's mcnemar.test does) the correction
    is dropped and χ² is 0; statsmodels would otherwise over-correct b = c = 1 into χ² = 0.5.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b}, c={c}")
    if b + c == 0:
        return McNemar(b=b, c=c, chi2=0.0, p_chi2=1.0, p_exact=1.0)
    from scipy.stats import binomtest
    from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar

    result = _sm_mcnemar([[0, b], [c, 0]], exact=False, correction=b != c)
    p_exact = binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue
    return McNemar(b=b, c=c, chi2=float(result.statistic), p_chi2=float(result.pvalue), p_exact=float(p_exact))


def cell_of(record: EpisodeRecord) -> CellRecord:
    """The record's matrix cell; a plain run without one is control."""
    return record.cell if record.cell is not None else CellRecord(fault=CONTROL, intensity=0.0, replicate=0)


def fault_rank(fault: str) -> tuple[int, str]:
    """Sort key: the matrix's own order, then anything unexpected alphabetically."""
    return (FAULT_ORDER.index(fault), "") if fault in FAULT_ORDER else (len(FAULT_ORDER), fault)


@dataclass(frozen=True)
class Pair:
    """One episode index run by both arms (same seed and geometry)."""

    key: int
    a_success: bool
    b_success: bool
    a_id: str
    b_id: str
    cell: CellRecord | None = None
    seed: int = 0


def _by_index(records: Iterable[EpisodeRecord], arm: str) -> dict[int, EpisodeRecord]:
    out: dict[int, EpisodeRecord] = {}
    for rec in records:
        if rec.arm != arm:
            continue
        if rec.episode_index in out:
            raise ValueError(
                f"arm {arm!r} has episode index {rec.episode_index} twice "
                f"({out[rec.episode_index].episode_id}, {rec.episode_id})"
            )
        out[rec.episode_index] = rec
    return out


def pair_records(records: Iterable[EpisodeRecord], arm_a: str, arm_b: str) -> list[Pair]:
    """Episodes of the two arms paired by episode index; an index only one arm ran is left out.

    A pair whose seed or cell differ would compare different worlds, so it is an error, not a pair.
    """
    records = list(records)
    a, b = _by_index(records, arm_a), _by_index(records, arm_b)
    pairs = []
    for idx in sorted(a.keys() & b.keys()):
        ra, rb = a[idx], b[idx]
        if ra.seed != rb.seed:
            raise ValueError(
                f"episode {idx}: {ra.episode_id} has seed {ra.seed} but {rb.episode_id} has seed {rb.seed}"
            )
        if cell_of(ra) != cell_of(rb):
            raise ValueError(
                f"episode {idx}: {ra.episode_id} is in cell {cell_of(ra)!r} but {rb.episode_id} in {cell_of(rb)!r}"
            )
        pairs.append(
            Pair(
                key=idx,
                a_success=ra.outcome.success,
                b_success=rb.outcome.success,
                a_id=ra.episode_id,
                b_id=rb.episode_id,
                cell=cell_of(ra),
                seed=ra.seed,
            )
        )
    return pairs


def discordant(pairs: Iterable[Pair]) -> list[Pair]:
    """Pairs in which exactly one arm succeeded: the only ones McNemar looks at."""
    return [p for p in pairs if p.a_success != p.b_success]


def paired_test(pairs: Sequence[Pair]) -> McNemar:
    """McNemar on a set of pairs (b: first arm only succeeded, c: second arm only)."""
    b = sum(1 for p in pairs if p.a_success and not p.b_success)
    c = sum(1 for p in pairs if p.b_success and not p.a_success)
    return mcnemar(b, c)


def physical(pairs: Iterable[Pair]) -> list[Pair]:
    """Pairs outside F4: the subset in which both arms' plans reach physics."""
    return [p for p in pairs if (p.cell.fault if p.cell else CONTROL) not in PHYSICAL_EXCLUDES]


@dataclass(frozen=True)
class CellStats:
    arm: str
    fault: str
    intensity: float
    n: int
    successes: int
    lo: float
    hi: float

    @property
    def rate(self) -> float:
        return self.successes / self.n if self.n else 0.0


def cell_table(records: Iterable[EpisodeRecord]) -> list[CellStats]:
    """Success, n and Wilson 95 % interval per (arm, fault, intensity), in matrix order."""
    counts: dict[tuple[str, str, float], list[int]] = {}
    for rec in records:
        cell = cell_of(rec)
        tally = counts.setdefault((rec.arm, cell.fault, cell.intensity), [0, 0])
        tally[0] += 1
        tally[1] += int(rec.outcome.success)
    rows = [CellStats(arm, fault, intensity, n, k, *wilson(k, n)) for (arm, fault, intensity), (n, k) in counts.items()]
    return sorted(rows, key=lambda r: (r.arm, fault_rank(r.fault), r.intensity))


def arm_table(records: Iterable[EpisodeRecord]) -> list[CellStats]:
    """Overall success and Wilson 95 % interval per arm (fault "all")."""
    counts: dict[str, list[int]] = {}
    for rec in records:
        tally = counts.setdefault(rec.arm, [0, 0])
        tally[0] += 1
        tally[1] += int(rec.outcome.success)
    return [CellStats(arm, "all", 0.0, n, k, *wilson(k, n)) for arm, (n, k) in sorted(counts.items())]
