"""The matrix report's opening lines and glossary (core/pages/reading.py: what every report has).

The opening says what was tested (episodes, arms, cells, task variant), the success of each arm
(k/n, 95 % Wilson interval), the paired comparison's headline, the safety monitor's events and
what to look at next, all counted from the records. The glossary defines every column and term
the report uses (only those it uses).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from alpha_matrix.core.matrix.report.construction import MARK, Variant, cell_marked, pair_by_construction
from alpha_matrix.core.matrix.report.fmt import _cell_key, _cell_label, _p
from alpha_matrix.core.matrix.stats import arm_table, discordant, pair_records, paired_test
from alpha_matrix.core.names import listed
from alpha_matrix.core.pages.blocks import Block, Bullets, Heading, Table, render_markdown
from alpha_matrix.core.pages.reading import GLOSSARY, GLOSSARY_HEADER, Opening, Rate, Term, count, used_terms
from alpha_matrix.core.records import EpisodeRecord


def configured_variant(run_dir: Path, records: Sequence[EpisodeRecord]) -> str | None:
    """episode_runner.task_variant of the run's config.json (core/run_plan.py: the parameters the
    run was started with), when that is the config the records were made with; else None."""
    from alpha_matrix.core.run_plan import read_config

    data = read_config(run_dir)
    if data is None or {r.provenance.config_hash for r in records} - {str(data.get("config_hash"))}:
        return None
    runner = data["config"].get("episode_runner")
    params = runner.get("parameters") if isinstance(runner, dict) else None
    value = params.get("task_variant") if isinstance(params, dict) else None
    return value if isinstance(value, str) else None


def _arms_text(records: Sequence[EpisodeRecord], arms: Sequence[str]) -> str:
    per_arm = Counter(r.arm for r in records)
    if len(set(per_arm.values())) == 1 and arms:
        return f"{len(arms)} arm{'s' if len(arms) > 1 else ''} ({', '.join(arms)}: {per_arm[arms[0]]} episodes each)"
    return f"{len(arms)} arms ({', '.join(f'{a}: {per_arm[a]}' for a in arms)} episodes)"


def _tested(records: Sequence[EpisodeRecord], arms: Sequence[str], variant: Variant, size: str) -> str:
    if not records:
        return f"no episode recorded yet{size}"
    cells = sorted({_cell_key(r) for r in records})
    faults = sorted({f for _, _, fault in cells for f in fault.split("+")} - {"none"})
    kinds = f"control and {', '.join(faults)}" if faults else "control only (no fault)"
    tasks = ", ".join(sorted({r.task for r in records})) or "none"
    return (
        f"{len(records)} episodes of {_arms_text(records, arms)} on the pick-and-place task {tasks}, in "
        f"{len(cells)} cells ({kinds}); task variant {variant.name or 'unknown'}{size}"
    )


def _success(records: Sequence[EpisodeRecord]) -> str:
    rows = arm_table(records)
    if not rows:
        return "success: no episode recorded"
    return "success per arm: " + "; ".join(Rate(s.arm, s.successes, s.n).text() for s in rows)


def _paired(records: Sequence[EpisodeRecord], arm_pairs: Sequence[tuple[str, str]], variant: Variant) -> str:
    """The headline McNemar row of the pair that differs most (smallest exact p)."""
    found = []
    for a, b in arm_pairs:
        try:
            pairs = pair_records(records, a, b)
        except ValueError:
            continue
        kept = [p for p in pairs if not pair_by_construction(p, a, b, variant)]
        if kept:
            found.append((paired_test(kept), a, b, len(kept), len(pairs) - len(kept)))
    if not found:
        return ""
    t, a, b, n, left_out = min(found, key=lambda x: (x[0].p_exact, x[1], x[2]))
    which = f"of {len(found)} arm pairs, the one that differs most: " if len(found) > 1 else ""
    out = f" ({left_out} by construction {MARK} left out)" if left_out else ""
    return (
        f"paired by seed, {which}{a} vs {b} over {count(n, 'pair')}{out}: b = {count(t.b, 'pair')} in which only "
        f"{a} succeeded, c = {t.c} in which only {b} did; McNemar exact p = {_p(t.p_exact)}"
    )


def _safety(records: Sequence[EpisodeRecord]) -> str:
    monitored = [r for r in records if r.safety is not None]
    if not monitored:
        return "no episode carries a safety monitor record (the monitor did not run)"
    events = [(r, e) for r in monitored if r.safety for e in r.safety.events]
    if not events:
        return f"no safety event in the {len(monitored)} monitored episodes"
    kinds = Counter(e.kind for _, e in events)
    stops = sum(e.stop_requested for _, e in events)
    return (
        f"{count(len(events), 'safety event')} in {len({r.episode_id for r, _ in events})} of {len(monitored)} "
        f"monitored episodes ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); "
        f"{count(stops, 'protective stop')} requested"
    )


def _next(
    records: Sequence[EpisodeRecord], arms: Sequence[str], arm_pairs: Sequence[tuple[str, str]], variant: Variant
) -> str:
    eps = sorted({r.episode_id for r in records if r.safety and r.safety.events})
    if eps:
        shown = listed(eps, 4)
        return f"the safety events ({shown}): the 'Safety events' tables give their kinds and peaks"
    odd = 0
    for a, b in arm_pairs:
        try:
            odd += sum(not pair_by_construction(p, a, b, variant) for p in discordant(pair_records(records, a, b)))
        except ValueError:
            continue
    if odd:
        return f"the {count(odd, 'discordant pair')} not by construction: 'Discordant pairs' names the episodes"
    worst = None
    for key in sorted({_cell_key(r) for r in records}):
        for arm in arms:
            eps_ = [r for r in records if r.arm == arm and _cell_key(r) == key]
            if not eps_ or cell_marked(key[2], arm, variant):
                continue
            k = sum(r.outcome.success for r in eps_)
            if k < len(eps_) and (worst is None or k / len(eps_) < worst[0]):
                worst = (k / len(eps_), arm, key, k, len(eps_))
    if worst is not None:
        _, arm, (_, intensity, fault), k, n = worst
        return f"the lowest success, {arm} in cell {_cell_label(fault, intensity)} ({k}/{n}): the per-cell table"
    return "nothing failed: the per-cell table and the success plot show every cell's k/n"


def opening(
    records: Sequence[EpisodeRecord],
    arms: Sequence[str],
    arm_pairs: Sequence[tuple[str, str]],
    variant: Variant,
    size: str = "",
) -> list[Block]:
    """The report's first lines (``size``: e.g. "; incomplete: 3 of 30 episodes recorded")."""
    results = tuple(r for r in (_success(records), _paired(records, arm_pairs, variant)) if r)
    lines = Opening(_tested(records, arms, variant, size), results, _safety(records), _next(records, arms,
                    arm_pairs, variant)).lines()  # fmt: skip
    return [Bullets(tuple(lines))]


def glossary(blocks: Sequence[Block]) -> list[Block]:
    """The glossary of the terms and columns ``blocks`` use."""
    terms = used_terms(TERMS, render_markdown(blocks).replace("\\|", "|"))
    return [Heading(2, GLOSSARY), Table(GLOSSARY_HEADER, tuple(terms))] if terms else []


TERMS: tuple[Term, ...] = (
    ("arm", "who writes the plan: oracle (the scripted plan, handed over typed), oracle-text (the same plan as "
     "text, through the text guards), llm or llm:<model> (a language model's text)"),
    ("cell", "one fault at one intensity (control: no fault); every arm runs the same cells with the same seeds"),
    ("control", "the cell without a fault"),
    ("fault", "what the chaos node injects: F1 sensor delay, F2 grip slip, F3 unreachable IK (targets pushed "
     "out), F4 planner-output corruption; F1+F2: two at once"),
    ("intensity", "how strong the cell's fault is (I, 0 to 1)"),
    ("task variant", "open_loop: the plan is made from one observation; closed_loop: the block is nudged during "
     "the approach and the executive observes again before the grasp"),
    ("episodes", "episodes of that arm (and cell)"),
    ("successes", "episodes whose block ended in the target zone, with no abort"),
    ("rate", "successes / n"),
    ("95 % CI", "the 95 % Wilson interval of the rate: where the true rate lies, given k of n"),
    ("95 % Wilson interval", "the range that holds the true rate with 95 % confidence given k of n"),
    ("by construction", f"{MARK}: the cell's fault cannot change this arm's outcome whatever it draws, or a pair "
     "whose fault can act on one arm only; a design fact, not a finding"),
    ("inert fault", "the fault of a cell that cannot act on the arm (why says why), e.g. F4 on the typed oracle "
     "arm, F1 in open loop"),
    ("why", "why the inert fault cannot act"),
    ("recorded", "what the fault log of those episodes holds for it (it may still draw, harmlessly)"),
    ("McNemar", "the paired test of two arms on the same seeds: only the discordant pairs (b, c) count"),
    ("subset", "the pairs a row counts: the headline leaves out pairs by construction; physical = all but F4"),
    ("pairs", "episodes of the two arms with the same index, seed and cell"),
    ("both succeeded", "pairs in which both arms succeeded"),
    ("both failed", "pairs in which both arms failed"),
    ("b", "pairs in which only the first arm succeeded"),
    ("c", "pairs in which only the second arm succeeded"),
    ("χ²", "McNemar's statistic with continuity correction, (|b - c| - 1)² / (b + c)"),
    ("p", "p (χ²): the p-value of χ² (1 degree of freedom)"),
    ("exact p", "the two-sided binomial test of b on b + c: the one to read when b + c is small"),
    ("Discordant pairs", "pairs in which one arm succeeded and the other failed"),
    ("episode index", "the episode's place in the run: it fixes the seed and the cell"),
    ("replicate", "which repetition of its cell the episode is"),
    ("succeeded", "the arm that succeeded in the pair"),
    ("failed", "the arm that failed in the pair"),
    ("injections", "F1 injections: delayed observations or command statuses"),
    ("requested lag", "the delay the cell asked for (s)"),
    ("delivered lag", "the delay the chaos node delivered (s)"),
    ("saturated", "injections whose delivered lag was shorter than the requested one"),
    ("largest shortfall", "the largest requested minus delivered lag (s)"),
    ("position error", "how far the delayed observation's block was from where it really was (m)"),
    ("planned from: position error", "the position error of the observation the plan was made from (the "
     "episode's first injection)"),
    ("lift draws", "F2 draws: lifts at which a slip could happen"),
    ("slips", "lifts at which the grip slipped"),
    ("slip rate", "slips / lift draws"),
    ("success", "episodes that succeeded, k/n"),
    ("success after a slip", "success of the episodes with a slip"),
    ("success without slip", "success of the episodes without one"),
    ("F3 injections", "targets offset by F3"),
    ("offset applied", "how far F3 pushed the commanded targets (m)"),
    ("refused before motion", "plans a guard refused before the arm moved (abort kinds planner, json, schema, "
     "semantic): the block never left its start"),
    ("executed", "plans that ran: no guard refused them before motion"),
    ("median error, executed", "median placement error of the executed plans (m)"),
    ("max error, executed", "largest placement error of the executed plans (m)"),
    ("placement error", "distance from the block to the zone's centre at the end (m)"),
    ("F4 draws", "plan messages F4 drew a corruption for"),
    ("corrupted", "draws that changed the text"),
    ("kind <kind>", "corruptions of that kind (truncate, delete_key, ...)"),
    ("abort kinds", "why episodes stopped early, as the executive recorded it ((none): ran to the end)"),
    ("digest", "the model file's sha256, as the planner reported it"),
    ("plans", "plans the arm asked for"),
    ("replayed", "plans replayed from recorded texts (not generated again)"),
    ("prompt tokens", "tokens of the prompt, median per plan"),
    ("completion tokens", "tokens the model wrote, median per plan"),
    ("latency median", "median wall time of a generation (s)"),
    ("latency max", "largest wall time of a generation (s)"),
    ("tokens/s", "completion tokens over generation time"),
    ("re-asks", "plans asked for again after an unusable answer"),
    ("invalid output", "plans that were not JSON or not a valid plan (json + schema)"),
    ("caught: <guard>", "plans the guard refused first: json (not JSON), schema (not a plan), semantic (wrong "
     "object, grasp or reach, before motion), rejected (the robot refused a command)"),
    ("monitored", "episodes with a safety monitor record"),
    ("raw scans", "unsafe findings before they are grouped into events: one per step and per unsafe condition "
     "(kind, key); 0 = nothing unsafe seen"),
    ("steps checked", "physics steps the safety monitor checked (every step of every episode)"),
    ("events", "safety events: a run of unsafe steps of one kind and key, closed after 15 clean steps"),
    ("kind", "the safety event's kind: violent_contact, out_of_workspace, joint_limit, non_finite (the first and "
     "the last are critical: they request a protective stop)"),
    ("scans in events", "raw scans inside those events"),
    ("stops requested", "events that requested a protective stop (critical kinds)"),
    ("max peak", "the largest value an event reached (N for contact force)"),
)  # fmt: skip


__all__ = ["TERMS", "configured_variant", "glossary", "opening"]
