"""Scenario generation with and without the risk memory (ICAT's IGR/UHR/DVS table as the shape).

With memory: for each labelled scene query, the top-k retrieved units are inverted. Without: the
same number of draws, each with mechanism, inversion, region and severity drawn uniformly and no
unit behind it. Reported per arm: infeasible rate (feasibility check, before any physics), the
share of z's fields traceable to a unit (mechanism, region, consequence type, severity, action
inversion, sources: equal to the unit's own), and diversity = distinct (mechanism, region, kind) / n.
"""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core.seeds import rng
from alpha_matrix.core.suites.hazards.bank import Bank, Unit
from alpha_matrix.core.suites.hazards.execute import play_kind
from alpha_matrix.core.suites.hazards.generate import INVERSION_KIND, REGION_CANDIDATES, Draw, draw_of, generate_from
from alpha_matrix.core.suites.hazards.retrieval import K_DEFAULT, Retriever
from alpha_matrix.core.suites.hazards.retrieval_eval import Query
from alpha_matrix.core.suites.hazards.scenario import Property, Scenario
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE, Consequence, Mechanism, Severity

NO_UNIT = "no_unit"
TRACED_FIELDS = ("mechanism", "region", "consequence", "severity", "sources")

# The inversions a mechanism can be played by (a uniform draw picks among them).
MECHANISM_INVERSIONS: dict[Mechanism, tuple[str, ...]] = {
    Mechanism.TRANSIENT_IMPACT: ("sweep_through_region", "carry_to_head_height"),
    Mechanism.QUASI_STATIC_CLAMPING: ("press_on_region", "sag_onto_region"),
    Mechanism.PINCHING: ("pinch_between_fingers", "pinch_between_links"),
    Mechanism.DROPPED_OBJECT: ("release_at_height", "lift_over_payload", "hard_stop_while_carrying"),
    Mechanism.EJECTED_OBJECT: ("fast_swing_release",),
    Mechanism.TIP_OVER: ("push_past_balance",),
    Mechanism.KEEP_OUT_INTRUSION: ("enter_zone", "keep_speed_on_approach"),
}
DEFAULT_CONSEQUENCE: dict[str, Consequence] = {
    "press": Consequence.CONTACT_OVER_LIMIT,
    "sweep": Consequence.CONTACT_OVER_LIMIT,
    "head": Consequence.CONTACT_OVER_LIMIT,
    "drop": Consequence.OBJECT_DROPPED,
    "push": Consequence.OBJECT_TIPPED,
    "zone": Consequence.ZONE_ENTERED,
}
HARM_CONSEQUENCE = {
    Mechanism.HOT: Consequence.BURN,
    Mechanism.LIQUID: Consequence.SPILL,
    Mechanism.SHARP: Consequence.CUT,
}


@dataclass(frozen=True)
class ArmResult:
    arm: str
    n: int
    infeasible: int
    traceable_share: float  # over feasible z and TRACED_FIELDS
    diversity: float  # distinct (mechanism, region, kind) / feasible n

    @property
    def infeasible_rate(self) -> float:
        return self.infeasible / self.n if self.n else 0.0


def uniform_draw(seed: int, i: int) -> Draw:
    """A draw with no unit: every field uniform over the vocabulary."""
    g = rng("hazards", "ablation", "uniform", seed, i)
    m = list(Mechanism)[int(g.integers(len(Mechanism)))]
    inversion = None if m in NOT_SIMULABLE else str(g.choice(MECHANISM_INVERSIONS[m]))
    kind = "carry" if inversion is None else INVERSION_KIND[inversion]
    region = str(g.choice(REGION_CANDIDATES.get(kind, REGION_CANDIDATES["near"])))
    harmful = [s for s in Severity if s is not Severity.NONE]
    c = HARM_CONSEQUENCE[m] if inversion is None else DEFAULT_CONSEQUENCE[INVERSION_KIND[inversion]]
    return Draw(
        sid=f"uniform.{i:04d}",
        unit_id=NO_UNIT,
        sources=("none: drawn uniformly",),
        mechanism=m,
        inversion=inversion,
        region=region,
        consequence=c,
        severity=harmful[int(g.integers(len(harmful)))],
        text="Drawn uniformly; no documented consequence.",
    )


def traced_fields(z: Scenario, unit: Unit | None) -> int:
    """How many of TRACED_FIELDS of z equal its unit's (0 without a unit; a drawn region is not traced)."""
    if unit is None:
        return 0
    person = next((o for o in z.objects if Property.PERSON_REGION in o.properties), None)
    c = z.chain.consequence
    return sum(
        (
            z.mechanism is unit.mechanism,
            unit.body_region is not None and person is not None and person.body_region == unit.body_region,
            c.type is unit.consequence_type,
            c.severity is unit.severity,
            z.provenance.sources == tuple(s.source for s in unit.provenance),
        )
    )


def _arm(arm: str, draws: list[Draw], bank: Bank, seed: int) -> ArmResult:
    ok, bad = generate_from(draws, seed)
    units = {u.id: u for u in bank.units}
    traced = sum(traced_fields(z, units.get(z.unit_id)) for z in ok)
    combos = set()
    for z in ok:
        person = next((o.body_region for o in z.objects if Property.PERSON_REGION in o.properties), None)
        combos.add((z.mechanism.value, person, play_kind(z)))
    n_ok = len(ok)
    return ArmResult(
        arm=arm,
        n=len(draws),
        infeasible=len(bad),
        traceable_share=traced / (n_ok * len(TRACED_FIELDS)) if n_ok else 0.0,
        diversity=len(combos) / n_ok if n_ok else 0.0,
    )


def ablate(bank: Bank, queries: list[Query], seed: int, per_unit: int = 1, k: int = K_DEFAULT) -> list[ArmResult]:
    """Both arms on the same number of draws: k retrieved units x per_unit per query, or uniform ones."""
    retriever = Retriever(bank)
    units = {u.id: u for u in bank.units}
    with_memory: list[Draw] = []
    for qi, q in enumerate(queries):
        for uid, _ in retriever.top(q.scene, q.robot, k):
            for j in range(per_unit):
                d = draw_of(units[uid], j)
                with_memory.append(Draw(**{**d.__dict__, "sid": f"q{qi:02d}.{d.sid}"}))
    without = [uniform_draw(seed, i) for i in range(len(with_memory))]
    return [_arm("with_memory", with_memory, bank, seed), _arm("without_memory", without, bank, seed)]


def ablation_table(rows: list[ArmResult]) -> str:
    lines = ["| arm | n | infeasible rate | traceable share | diversity |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.arm} | {r.n} | {r.infeasible_rate:.3f} | {r.traceable_share:.3f} | {r.diversity:.3f} |")
    return "\n".join(lines)


__all__ = ["MECHANISM_INVERSIONS", "NO_UNIT", "ArmResult", "ablate", "ablation_table", "traced_fields", "uniform_draw"]
