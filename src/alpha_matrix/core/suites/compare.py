"""Two agents on the same scenarios, paired decision by decision (McNemar, Wilson).

Each suite run's records hold its agent's verdicts per decision (``result["agent"]["rows"]``:
index, step, kind, tool, truth, verdict). Two runs pair up on what they share: the same scenario
(name and seed) and a decision at the same step; agents that decide at different intervals pair
on the steps both decided at. A verdict "right" is a success; "abort" (no answer: the
infrastructure's) drops the pair; every other verdict (wrong, covered, guard catch, harm) is a
failure of the decision. Where decisions cannot align (confidence: each agent's choices lead
to other states), runs pair per episode: the task completed by the rules or not. A suite with a
``pairing_rule`` (hazards, gauge) scores per scenario instead, by its own ``scenario_verdict``.
Runs with different scenario sets, seeds or suites are refused, each in one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.stats import McNemar, mcnemar
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.plugins import SUITES
from alpha_matrix.core.suites.report import share
from alpha_matrix.core.suites.suite import Suite

Key = tuple[str, int, int | str]  # scenario, seed, decision step (EPISODE: the episode; alerts: the event)
EPISODE = -1


@dataclass(frozen=True)
class Arm:
    label: str  # the run id
    agent: str
    guards: bool | None  # None: the suite has no guard under its agent's answer (hazards, gauge)
    verdicts: dict[Key, bool | None]  # None: aborted
    harms: int | None  # None: the suite counts none per agent (hazards, gauge)
    guard_catches: int | None
    suite: str = ""
    rule: str = ""  # what "right" means, for a suite that pairs on its own rule (hazards, gauge)


def _per_scenario(label: str, suite: Suite, records: Sequence[Any]) -> Arm:
    """A suite that pairs per scenario on its own rule (its ``pairing_rule``, its ``scenario_verdict``)."""
    verdict_of = suite.piece("scenario_verdict")
    parts = [(r, r.result.get("agent")) for r in records if r.ok]
    asked = [(r, a) for r, a in parts if isinstance(a, dict)]
    if not asked:
        raise ConfigError(_no_agent(label))
    verdicts: dict[Key, bool | None] = {}
    for r, a in asked:
        v = verdict_of(r.result, a)
        if v != "skip":
            verdicts[(r.scenario, r.seed, EPISODE)] = v if v is None else bool(v)
    agents = {str(a.get("agent") or a.get("spec") or "") for _, a in asked}
    if len(agents) != 1:
        raise ConfigError(f"{label}: its records hold more than one agent")
    return Arm(label, agents.pop(), None, verdicts, None, None, suite.name, suite.pairing_rule)


def _no_agent(label: str) -> str:
    return (
        f"{label}: not a run of an agent under test (no agent part in its records): compare pairs two "
        "agents' runs of one suite (`alpha-matrix suite S --agent SPEC`); this run alone: `alpha-matrix report`"
    )


def arm_of(label: str, records: Sequence[Any]) -> Arm:
    """An agent's verdicts from a suite run's records (``SuiteRecord``s)."""
    suites = {str(getattr(r, "suite", "")) for r in records}
    suite = suites.pop() if len(suites) == 1 else ""
    if suite in SUITES and (s := registry.suite(suite)).pairing_rule:
        return _per_scenario(label, s, records)
    parts = [(r, r.result.get("agent")) for r in records if r.ok]
    if not parts or any(a is None for _, a in parts):
        raise ConfigError(_no_agent(label))
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
        sum(int(a["harms"]) for _, a in parts), sum(int(a["guard_catches"]) for _, a in parts), suite,
    )  # fmt: skip


@dataclass(frozen=True)
class Comparison:
    a: Arm
    b: Arm
    pairs: int
    a_right: int
    b_right: int
    test: McNemar  # b = only A right, c = only B right


def same_suite(a_label: str, a_records: Sequence[Any], b_label: str, b_records: Sequence[Any]) -> None:
    """Two runs of one suite, or a one-line ConfigError naming both."""
    suites_a, suites_b = sorted({r.suite for r in a_records}), sorted({r.suite for r in b_records})
    if suites_a != suites_b:
        raise ConfigError(
            f"{a_label} is a run of the {'+'.join(suites_a) or 'no'} suite, {b_label} of the "
            f"{'+'.join(suites_b) or 'no'} suite: "
            "compare pairs two agents on the same suite's scenarios (each run alone: `alpha-matrix report RUN_DIR`)"
        )


def compare(a: Arm, b: Arm, a_records: Sequence[Any], b_records: Sequence[Any]) -> Comparison:
    same_suite(a.label, a_records, b.label, b_records)
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
    how = c.a.rule or (
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
            f"| {arm.label} | `{arm.agent}` | {_shown(arm.guards)} | {share(right, c.pairs)} | {_shown(arm.harms)} | "
            f"{_shown(arm.guard_catches)} |"
            for arm, right in ((c.a, c.a_right), (c.b, c.b_right))
        ),
        "",
        f"McNemar on {c.pairs} paired {unit}: only {c.a.label} right {t.b}, only {c.b.label} right {t.c}; "
        f"χ² = {t.chi2:.3f}, p = {t.p_chi2:.4g} (exact binomial p = {t.p_exact:.4g}).",
    ]


def _shown(value: bool | int | None) -> str:
    """A column of the table: on/off, a count, or n/a where the suite has none."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
