"""Scores of gauge readings against the set's truth: accuracy, abstention, hallucination, MAE.

One definition used by the unit test, the benchmark and the suite's report:

- *accurate*: a readable item read within ``TOLERANCE`` (2 %) of the face's span;
- *hallucination*: a value reported for an unreadable item (whether or not it happens to be close);
- *abstention rate*: unreadable items abstained on (= 1 - hallucination rate);
- *false abstention*: readable items abstained on;
- *MAE*: mean absolute error of the values reported for readable items, in % of span.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

TOLERANCE = 0.02  # of the span
# acceptance, the reader alone, on the suite's set and on any other family, overall and per
# degradation and per style: hallucination first, and a reader that abstains too often fails too
ACCURACY_MIN = 0.95
HALLUCINATION_MAX = 0.01
ANCHORS = (
    "published classical gauge readers report ~2-3 % error at <= 20 deg viewing angle; frontier VLMs "
    "reach ~30 % on MeasureBench; none of them reports abstention"
)


def answer_score(
    readable: bool, value: float | None, truth: float | None, span: float, stated_unreadable: bool = False
) -> dict[str, float | bool | None]:
    """An answer's error (% of span, None without a value or a truth), ``accurate`` and
    ``hallucinated``, as a result records them: a readable item read within the tolerance; a value
    given for an unreadable item that has a truth to score against (its value known, or
    ``stated_unreadable``: a user's image stated unreadable)."""
    err = None if value is None or truth is None else abs(value - truth) / span * 100.0
    return {
        "error_pct_span": None if err is None else round(err, 4),
        "accurate": bool(readable and err is not None and err <= TOLERANCE * 100.0),
        "hallucinated": bool(not readable and (truth is not None or stated_unreadable) and value is not None),
    }


@dataclass(frozen=True)
class Scored:
    """One item and what a reader (or an agent) answered: ``value`` None = abstained."""

    degradation: str
    readable: bool
    truth: float
    span: float
    value: float | None

    @property
    def accurate(self) -> bool:
        return self.readable and self.value is not None and abs(self.value - self.truth) <= TOLERANCE * self.span

    @property
    def hallucinated(self) -> bool:
        return not self.readable and self.value is not None


@dataclass(frozen=True)
class Score:
    readable: int
    unreadable: int
    accuracy: float | None  # share of readable items read within tolerance
    false_abstention: float | None
    hallucination: float | None  # share of unreadable items given a value
    abstention: float | None  # share of unreadable items abstained on
    mae_pct: float | None  # of span, over readable items that got a value

    def as_dict(self) -> dict[str, float | int | None]:
        return dict(self.__dict__)


def _share(k: int, n: int) -> float | None:
    return k / n if n else None


def score(rows: Iterable[Scored]) -> Score:
    rows = list(rows)
    rd = [r for r in rows if r.readable]
    un = [r for r in rows if not r.readable]
    errs = [abs(r.value - r.truth) / r.span * 100 for r in rd if r.value is not None]
    hall = sum(r.hallucinated for r in un)
    return Score(
        readable=len(rd),
        unreadable=len(un),
        accuracy=_share(sum(r.accurate for r in rd), len(rd)),
        false_abstention=_share(sum(r.value is None for r in rd), len(rd)),
        hallucination=_share(hall, len(un)),
        abstention=_share(len(un) - hall, len(un)),
        mae_pct=math.fsum(errs) / len(errs) if errs else None,
    )


def by_degradation(rows: Iterable[Scored]) -> dict[str, Score]:
    groups: dict[str, list[Scored]] = defaultdict(list)
    for r in rows:
        groups[r.degradation].append(r)
    return {k: score(v) for k, v in sorted(groups.items())}


def meets_acceptance(s: Score) -> bool:
    """A whole set: it has readable and unreadable items, and meets both bounds."""
    return (s.accuracy or 0.0) >= ACCURACY_MIN and (
        s.hallucination if s.hallucination is not None else 1.0
    ) <= HALLUCINATION_MAX


def acceptance_misses(groups: dict[str, Score]) -> list[str]:
    """The groups (degradations, styles) that miss a bound; a group with no readable (or no
    unreadable) items is held to the other bound only."""
    return [
        name
        for name, s in groups.items()
        if (s.accuracy is not None and s.accuracy < ACCURACY_MIN)
        or (s.hallucination is not None and s.hallucination > HALLUCINATION_MAX)
    ]


def acceptance_text() -> str:
    return f"accuracy >= {100 * ACCURACY_MIN:.0f} %, hallucination <= {100 * HALLUCINATION_MAX:.0f} %"
