"""Two agents on the same scenarios, paired decision by decision (McNemar, Wilson).

Each suite run's records hold its agent's verdicts per decision (``result["agent"]["rows"]``:
index, step, kind, tool, truth, verdict). Two runs pair up on what they share: the same scenario
(name and seed) and a decision at the same step; agents that decide at different intervals pair
on the steps both decided at. A verdict "right" is a success; "abort" (no answer: the
infrastructure's) drops the pair; every other verdict (wrong, covered, guard catch, harm) is a
failure of the decision. Where decisions cannot align (confidence: each agent's choices lead
to other states), runs pair per episode: the task completed by the rules or not. Runs with
different scenario sets, seeds or suites are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.stats import McNemar, mcnemar
from alpha_matrix.core.suites.report import share

Key = tuple[str, int, int | str]  # scenario, seed, decision step (EPISODE: the episode; alerts: the event)
EPISODE = -1


@dataclass(frozen=True)
class Arm:
    label: str  # the run id
    agent: str
    guards: bool
    verdicts: dict[Key, bool | None]  # None: aborted
    harms: int
    guard_catches: int


def arm_of(label: str, records: Sequence[Any]) -> Arm:
    """An agent's verdicts from a suite run's records (``SuiteRecord``s)."""
    parts = [(r, r.result.get("agent")) for r in records if r.ok]
    if not parts or any(a is None for _, a in parts):
        raise ConfigError(f"{label}: not a run of an agent under test (no agent part in its records)")
    verdicts: dict[Key, bool | None] = {}
    for r, a in parts:
        if a.get("pairing") == "episode":  # the task as a whole (confidence): agents' decisions never align
            verdicts[(r.scenario, r.seed, EPISODE)] = bool(a["episode_right"])
            continue
        if a.get("pairing") == "event":  # alerts: the same alert, clear or command at the same step
            for row in a["rows"]:
                verdicts[(r.scenario, r.seed, str(row[4]))] = None if row[-1] == "abort" else row[-1] == "right"
            continue
        for _index, step, _kind, _tool, _truth, verdict in a["rows"]:
            verdicts[(r.scenario, r.seed, int(step))] = None if verdict == "abort" else verdict == "right"
    agents = {a["agent"] for _, a in parts}
    guards = {a["guards"] for _, a in parts}
    if len(agents) != 1 or len(guards) != 1:
        raise ConfigError(f"{label}: its records hold more than one agent or guard setting")
    return Arm(
        label, agents.pop(), guards.pop(), verdicts,
        sum(int(a["harms"]) for _, a in parts), sum(int(a["guard_catches"]) for _, a in parts),
    )  # fmt: skip


@dataclass(frozen=True)
class Comparison:
    a: Arm
    b: Arm
    pairs: int
    a_right: int
    b_right: int
    test: McNemar  # b = only A right, c = only B right


def compare(a: Arm, b: Arm, a_records: Sequence[Any], b_records: Sequence[Any]) -> Comparison:
    scen_a = {(r.suite, r.scenario, r.seed) for r in a_records}
    scen_b = {(r.suite, r.scenario, r.seed) for r in b_records}
    if scen_a != scen_b:
        only = sorted(scen_a ^ scen_b)[0]
        raise ConfigError(f"the runs differ in their scenarios (suite, name, seed): {only} is in one only")
    keys = [k for k in a.verdicts if k in b.verdicts and a.verdicts[k] is not None and b.verdicts[k] is not None]
    only_a = sum(1 for k in keys if a.verdicts[k] and not b.verdicts[k])
    only_b = sum(1 for k in keys if b.verdicts[k] and not a.verdicts[k])
    return Comparison(
        a, b, len(keys), sum(1 for k in keys if a.verdicts[k]), sum(1 for k in keys if b.verdicts[k]),
        mcnemar(only_a, only_b),
    )  # fmt: skip


def comparison_lines(c: Comparison) -> list[str]:
    t = c.test
    unit = "episodes" if all(k[2] == EPISODE for k in c.a.verdicts) else "decisions"
    how = (
        "Paired on the same scenario and seed: the task completed by the rules or not."
        if unit == "episodes"
        else "Paired on the same scenario, seed and decision step; a decision with no answer (abort) drops its pair."
    )
    return [
        f"# {c.a.label} vs {c.b.label}: paired {unit}",
        "",
        how,
        "",
        f"| run | agent | guards | right on the paired {unit} (95 % Wilson) | harms | guard catches |",
        "|---|---|---|---|---|---|",
        *(
            f"| {arm.label} | `{arm.agent}` | {'on' if arm.guards else 'off'} | {share(right, c.pairs)} | {arm.harms} | "
            f"{arm.guard_catches} |"
            for arm, right in ((c.a, c.a_right), (c.b, c.b_right))
        ),
        "",
        f"McNemar on {c.pairs} paired {unit}: only {c.a.label} right {t.b}, only {c.b.label} right {t.c}; "
        f"χ² = {t.chi2:.3f}, p = {t.p_chi2:.4g} (exact binomial p = {t.p_exact:.4g}).",
    ]
