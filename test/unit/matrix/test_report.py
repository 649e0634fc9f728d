from __future__ import annotations

import pytest

from alpha_matrix.core.matrix.report import write_report
from alpha_matrix.core.records import (
    CellRecord,
    EpisodeRecord,
    FaultRecord,
    OutcomeRecord,
    PlannerRecord,
    Provenance,
    RunStore,
    SafetyEventRecord,
    SafetyRecord,
    Timing,
)

ARMS = ("oracle", "oracle-text")


def rec(
    arm: str,
    index: int,
    success: bool,
    fault: str = "none",
    intensity: float = 0.0,
    faults: list[FaultRecord] | None = None,
    error: float = 0.002,
    abort: str = "",
    events: int = 0,
) -> EpisodeRecord:
    safety = SafetyRecord(
        first_step=0,
        last_step=100,
        steps_checked=100,
        raw_scans=100,
        contact_threshold=50.0,
        threshold_source="config",
        window=3,
        events=[
            SafetyEventRecord(
                kind="contact_force",
                key="table",
                severity="warn",
                start_step=10,
                close_step=12,
                last_unsafe_step=12,
                scans=3,
                peak=61.5,
                stop_requested=False,
            )
        ]
        * events,
    )
    return EpisodeRecord(
        run_id="run-x",
        episode_id=f"{arm}-{index:04d}",
        arm=arm,
        episode_index=index,
        master_seed=42,
        seed=9000 + index,
        task="t",
        object="red",
        zone=(0.6, 0.35, 0.65),
        initial_positions={"red": (0.5, 0.0, 0.65)},
        plan=None,
        abort_kind=abort,
        abort_reason="",
        actions_completed=0 if abort else 6,
        outcome=OutcomeRecord(success=success, placement_error=error, steps_used=100, reason=""),
        final_poses={},
        safety=safety,
        cell=CellRecord(fault=fault, intensity=intensity, replicate=index % 2),
        faults=faults or [],
        provenance=Provenance(
            code_revision="deadbeef", code_dirty=False, config_hash="cafe01", packages={"numpy": "2.4.4"}, python="3.11"
        ),
        timing=Timing(started_at="2026-01-01T00:00:00", wall_s=0.1 * index, plan_s=0.0, execute_s=0.1),
    )


def f1(req: float, got: float) -> FaultRecord:
    return FaultRecord(fault="F1", step=0, seq=0, requested={"lag_s": req}, delivered={"lag_s": got})


def f1_node(tau: float, lag: float, error: float) -> FaultRecord:
    """F1 as core/matrix/faults.py records it: tau / lag keys and the position error."""
    delivered: dict[str, float | str] = {"lag": lag, "saturated": float(lag < tau), "position_error": error}
    return FaultRecord(fault="F1", step=0, seq=0, requested={"tau": tau}, delivered=delivered)


def f2(slipped: bool) -> FaultRecord:
    return FaultRecord(fault="F2", step=300, seq=0, requested={"p": 0.661}, delivered={"slipped": float(slipped)})


def f3(delta: float) -> FaultRecord:
    return FaultRecord(fault="F3", step=0, seq=0, requested={"delta": delta}, delivered={"offset": delta})


def f4(kind: str) -> FaultRecord:
    delivered: dict[str, float | str] = {"corrupted": float(kind != "none"), "kind": kind}
    return FaultRecord(fault="F4", step=0, seq=0, requested={"p": 0.464}, delivered=delivered)


def matrix() -> list[EpisodeRecord]:
    out = []
    for arm in ARMS:
        text = arm == "oracle-text"
        out += [
            rec(arm, 0, True, events=1 if text else 0),
            rec(arm, 1, True),
            rec(arm, 2, True, "F1", 0.33, [f1(0.562, 0.562)]),
            rec(arm, 3, True, "F1", 1.0, [f1_node(1.5, 0.5, 0.02)]),  # saturated
            rec(arm, 4, False, "F2", 0.66, [f2(True)]),
            rec(arm, 5, True, "F2", 0.66, [f2(False)]),
            rec(arm, 6, True, "F3", 1.0, [f3(0.3)], error=0.25),
            rec(arm, 7, True, "F3", 1.0, [f3(0.3)], error=0.31),
            # the one discordant pair: only the text arm's plan can be corrupted
            rec(arm, 8, not text, "F4", 0.33, [f4("truncate")] if text else [], abort="plan_invalid" if text else ""),
            rec(arm, 9, True, "F4", 0.33, [f4("none")] if text else []),  # drawn, left intact
        ]
    return out


def test_report_files_and_computed_numbers(tmp_path):
    md_path = write_report(tmp_path, matrix())
    assert md_path == tmp_path / "report.md"
    for name in ("report.md", "report.html", "plots/success_by_cell.png", "plots/f1_lag.png"):
        assert (tmp_path / name).is_file(), name
    assert (tmp_path / "plots/f3_placement_error.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = md_path.read_text()
    # header and provenance
    assert "Run id: run-x" in md and "oracle (10 episodes), oracle-text (10 episodes)" in md
    assert "Code revision: deadbeef" in md and "Config hash: cafe01" in md
    # overall success with Wilson interval: 9/10 and 8/10
    assert "| oracle | 10 | 9 | 9/10 = 90.0 % | [59.6 %, 98.2 %] |" in md
    assert "| oracle-text | 10 | 8 | 8/10 = 80.0 % | [49.0 %, 94.3 %] |" in md
    assert "| F4 | 0.33 | oracle-text | 2 | 1 | 1/2 = 50.0 % |" in md
    # McNemar: b = 1 (oracle only), c = 0; physical subset has no discordance
    # the F4 pairs are by construction (oracle has no text path): the headline leaves them out
    assert "| all cells except † (headline) | 8 | 7 | 1 | 0 | 0 | 0.000 | 1.000 | 1.000 |" in md
    assert "| all cells † | 10 | 8 | 1 | 1 | 0 | 0.000 | 1.000 | 1.000 |" in md
    assert "| physical (all but F4) | 8 | 7 | 1 | 0 | 0 | 0.000 | 1.000 | 1.000 |" in md
    assert "| 8 | F4 I=0.33 | 0 | 9008 | oracle | oracle-text | oracle-0008, oracle-text-0008 | † |" in md
    # F1: one saturated injection per arm, 1.0 s short; open loop (one F1 injection per step): † marked
    assert "| F1 † | 1.00 | 2 | 1.500 [1.500–1.500] | 0.500 [0.500–0.500] | 2 | 1.000 | 0.0200 [0.0200–0.0200] |" in md
    assert "| F1 † | 0.33 | 2 | 0.562 [0.562–0.562] | 0.562 [0.562–0.562] | 0 | 0 | no data | no data |" in md
    # F2: one slip in two draws, the slipped episode failed
    assert (
        "| F2 | 0.66 | oracle | 2 | 2 | 1 | 1/2 = 50.0 % [9.5 %, 90.5 %] | 1/2 = 50.0 % | 0/1 = 0.0 % | 1/1 = 100.0 % |"
        in md
    )
    # F3 placement error, median and max
    assert "| F3 | 1.00 | oracle | 2 | 2 | 0.3000 [0.3000–0.3000] | 0 | 2 | 0.2800 | 0.3100 | 2/2 = 100.0 % |" in md
    assert "| control | 0.00 | oracle | 2 | 0 | no data | 0 | 2 | 0.0020 | 0.0020 | 2/2 = 100.0 % |" in md
    # F4: draws, corruptions by kind (an intact draw is not one), abort kinds
    assert "| episodes | F4 draws | corrupted | kind truncate | success |" in md and "kind none" not in md
    assert (
        "| F4 | 0.33 | oracle-text | 2 | 2 | 1 | 1 | 1/2 = 50.0 % | [9.5 %, 90.5 %] | (none): 1, plan_invalid: 1 |"
        in md
    )
    assert "| F4 | 0.33 | oracle | 2 | 0 | 0 | 0 | 2/2 = 100.0 % | [34.2 %, 100.0 %] | (none): 2 | † |" in md
    # safety: one event in the text arm
    assert "| oracle-text | 10 | 10 | 1000 | 1000 | 1 |" in md
    assert "| contact_force | oracle-text | 1 | 1 | 3 | 0 | 61.500 |" in md
    html = (tmp_path / "report.html").read_text()
    assert '<img src="plots/success_by_cell.png"' in html and "<table>" in html and "oracle-text-0008" in html


def test_report_is_regenerable_from_jsonl_and_deterministic(tmp_path):
    store = RunStore(tmp_path / "run", "cafe01")
    for r in reversed(matrix()):  # file order must not matter
        store.append(r)
    first = write_report(tmp_path / "run").read_bytes()
    second = write_report(tmp_path / "run").read_bytes()
    assert first == second
    assert write_report(tmp_path / "direct", matrix()).read_bytes() == first
    assert (tmp_path / "run" / "report.html").read_bytes() == (tmp_path / "direct" / "report.html").read_bytes()


def test_plain_single_arm_run_says_no_data(tmp_path):
    plain = [r.model_copy(update={"cell": None, "faults": [], "safety": None}) for r in matrix()[:2]]
    md = write_report(tmp_path, plain).read_text()
    assert "| none | 0.00 | oracle | 2 | 2 | 2/2 = 100.0 % |" in md
    assert "no data: a paired comparison needs two arms (found: oracle)" in md
    assert "no data: no F1 injection" in md and "no data: no F3 cell" in md
    assert "no data: no episode carries a safety monitor record" in md
    assert not (tmp_path / "plots" / "f1_lag.png").exists()


def test_empty_cell_and_bad_arm(tmp_path):
    records = [r for r in matrix() if not (r.arm == "oracle" and r.cell and r.cell.fault == "F3")]
    md = write_report(tmp_path, records).read_text()
    assert "| F3 | 1.00 | oracle | 0 | no data | no data | no data |  |" in md
    with pytest.raises(ValueError, match="llm"):
        write_report(tmp_path, records, arms=("oracle", "llm"))


def test_explicit_arm_order_swaps_b_and_c(tmp_path):
    md = write_report(tmp_path, matrix(), arms=("oracle-text", "oracle")).read_text()
    assert "| all cells † | 10 | 8 | 1 | 0 | 1 | 0.000 | 1.000 | 1.000 |" in md


def test_planner_section_counts_costs_and_guard_catches(tmp_path):
    def llm(index: int, abort: str, tokens: int, latency: float, recorded: bool = False) -> EpisodeRecord:
        base = rec("llm", index, success=not abort, abort=abort)
        planner = PlannerRecord(
            backend="llamacpp",
            model="gemma-3-270m-q4_k_m.gguf",
            digest="sha256:" + "a5" * 32,
            prompt_tokens=470,
            completion_tokens=tokens,
            seed=base.seed,
            recorded=recorded,
            template_sha256="t" * 64,
            template_version="pick_place_v1",
            attempts=1,
            text="{}",
        )
        timing = base.timing.model_copy(update={"llm_latency_s": latency})
        return base.model_copy(update={"planner": planner, "timing": timing})

    records = [llm(0, "json", 100, 2.0), llm(1, "semantic", 300, 4.0, recorded=True), llm(2, "", 200, 3.0)]
    records += [llm(3, "rejected", 200, 1.0), rec("oracle", 0, True)]
    md = write_report(tmp_path, records, ("llm", "oracle")).read_text()
    assert "| llm | llamacpp | gemma-3-270m-q4_k_m.gguf | sha256:a5a5a5a5a5a5 | 4 | 1 |" in md
    # medians: prompt 470, completion 200; latency median 2.5, max 4.0; 800 tokens / 10 s
    assert "| llm | 4 | 470 | 200 | 2.50 | 4.00 | 80.0 | 0 |" in md
    assert "| llm | 4 | 1/4 = 25.0 % | 1 | 0 | 1 | 1 | 1 |" in md
    assert "no data: no text-arm episode" not in md
    assert "## Planners (text arms)" in write_report(tmp_path, [rec("oracle", 0, True)]).read_text()


def test_several_models_are_compared_pair_by_pair(tmp_path):
    """One run, several llm:<model> arms: every pair of arms gets its own McNemar table."""
    records = [r for r in matrix() if r.arm == "oracle"]
    models = {"llm:llama3.1": lambda i: i % 2 == 0, "llm:qwen2.5:7b": lambda i: i % 3 != 0}
    for arm, succeeds in models.items():
        records += [
            r.model_copy(
                update={
                    "arm": arm,
                    "episode_id": f"{arm}-{r.episode_index:04d}",
                    "outcome": r.outcome.model_copy(update={"success": succeeds(r.episode_index)}),
                }
            )
            for r in matrix()
            if r.arm == "oracle"
        ]
    md = write_report(tmp_path, records).read_text()
    pairs = ["llm:llama3.1 and llm:qwen2.5:7b", "llm:llama3.1 and oracle", "llm:qwen2.5:7b and oracle"]
    assert [line[4:] for line in md.splitlines() if line.startswith("### ")][:3] == pairs
    n = sum(r.arm == "oracle" for r in records)
    b = sum(models["llm:llama3.1"](i) and not models["llm:qwen2.5:7b"](i) for i in range(n))
    c = sum(models["llm:qwen2.5:7b"](i) and not models["llm:llama3.1"](i) for i in range(n))
    first = md.split("### llm:llama3.1 and llm:qwen2.5:7b")[1].split("### ")[0]
    assert f"| all cells | {n} |" in first and f"| {b} | {c} |" in first
    assert md.count("#### Discordant pairs") == 3
    # One pair asked for: that table alone.
    one = write_report(tmp_path, records, arms=("oracle", "llm:qwen2.5:7b")).read_text()
    assert "### Discordant pairs" in one and "### llm:" not in one


# -- by construction: cells a fault cannot act on, plans that never moved, k/n on every bar --------------


def f1_at(step: int, error: float) -> FaultRecord:
    """An F1 injection at a step: the first one of an episode delays the observation it plans from."""
    delivered: dict[str, float | str] = {"lag": 0.433, "saturated": 1.0, "position_error": error}
    return FaultRecord(fault="F1", step=step, seq=0, requested={"tau": 0.562}, delivered=delivered)


OPEN_LOOP_F1 = [f1_at(120, 7e-6), f1_at(420, 1e-5), f1_at(720, 0.15)]  # statuses while the plan runs
CLOSED_LOOP_F1 = [f1_at(120, 7e-6), f1_at(420, 0.06), f1_at(420, 0.06), f1_at(720, 0.15)]  # + the re-observation


def by_design(f1_log: list[FaultRecord] = OPEN_LOOP_F1) -> list[EpisodeRecord]:
    """Two arms; F1 and F1+F2 cells, F3 cells with plans refused before motion, F4 cells on the typed arm."""
    out = []
    for arm in ARMS:
        text = arm == "oracle-text"
        out += [
            rec(arm, 0, True),
            rec(arm, 1, text),  # a planner difference in a control cell: the one discordance not by design
            rec(arm, 2, True, "F1", 0.33, f1_log),
            rec(arm, 3, True, "F1", 0.33, f1_log),
            rec(arm, 4, False, "F1+F2", 0.66, [*f1_log, f2(True)]),
            rec(arm, 5, False, "F3", 1.0, [f3(0.3)], error=0.25),  # executed, missed the zone
            rec(arm, 6, False, "F3", 1.0, [f3(0.3)], error=0.45, abort="semantic"),  # start distance, not an error
            rec(arm, 7, False, "F3", 1.0, [f3(0.3)], error=0.50, abort="semantic"),
            rec(arm, 8, not text, "F4", 1.0, [f4("truncate")] if text else [], abort="json" if text else ""),
            rec(arm, 9, not text, "F4", 1.0, [f4("delete_key")] if text else [], abort="schema" if text else ""),
            rec(arm, 10, True, "F4", 1.0, [f4("none")] if text else []),
        ]
    return out


def test_applicability_is_decided_in_core_from_fault_arm_and_variant():
    from alpha_matrix.core.matrix.cells import F1_OPEN_LOOP, F4_TYPED_ARM, cannot_act, inert_faults

    assert inert_faults("F4", "oracle", "open_loop") == {"F4": F4_TYPED_ARM}
    assert inert_faults("F4", "oracle-text", "open_loop") == {} and inert_faults("F4", "llm:qwen2.5", None) == {}
    assert inert_faults("F1", "llm", "open_loop") == {"F1": F1_OPEN_LOOP}
    assert inert_faults("F1", "oracle", "closed_loop") == {} and inert_faults("F1", "oracle", None) == {}
    # concurrent: F2 acts, so the cell can change an outcome although its F1 part cannot
    assert inert_faults("F1+F2", "oracle", "open_loop") == {"F1": F1_OPEN_LOOP}
    assert not cannot_act("F1+F2", "oracle", "open_loop") and cannot_act("F1", "oracle", "open_loop")
    assert not cannot_act("none", "oracle", "open_loop") and not cannot_act("F2", "oracle", "open_loop")
    assert not cannot_act("F4", "mystery-arm", "open_loop")  # an unknown arm: nothing claimed


def test_task_variant_is_read_from_the_fault_log():
    from alpha_matrix.core.matrix.report.construction import task_variant

    assert task_variant(by_design()).name == "open_loop"
    assert task_variant(by_design(CLOSED_LOOP_F1)).name == "closed_loop"
    no_f1 = [r for r in by_design() if "F1" not in r.cell.fault]  # type: ignore[union-attr]
    assert task_variant(no_f1).name is None
    refused = [r.model_copy(update={"abort_kind": "semantic", "actions_completed": 0}) for r in by_design()]
    assert task_variant(refused).name is None  # no F1 episode moved: nothing to tell the variants apart


def test_by_construction_cells_pairs_and_headline(tmp_path):
    md = write_report(tmp_path, by_design()).read_text()
    assert "- Task variant: open_loop (none of the 6 F1 episodes that moved observed again after planning)" in md
    section = md.split("## By construction")[1].split("## Success")[0]
    rows = [line for line in section.splitlines() if line.startswith("| F")]
    assert [tuple(c.strip() for c in row.split("|")[1:5]) for row in rows] == [
        ("F1", "oracle", "2", "F1"),
        ("F1", "oracle-text", "2", "F1"),
        ("F1+F2", "oracle", "1", "F1"),
        ("F1+F2", "oracle-text", "1", "F1"),
        ("F4", "oracle", "3", "F4"),
    ]
    assert "0 F4 injections in 3 episodes" in section
    assert "position error of the observation planned from: max 7.00e-06 m" in section
    # success per cell: marked where no fault of the cell can act, and only there
    assert "| F4 | 1.00 | oracle | 3 | 3 | 3/3 = 100.0 % | [43.9 %, 100.0 %] | † fault cannot act |" in md
    assert "| F4 | 1.00 | oracle-text | 3 | 1 | 1/3 = 33.3 % | [6.1 %, 79.2 %] |  |" in md
    assert "| F1 | 0.33 | oracle | 2 | 2 | 2/2 = 100.0 % | [34.2 %, 100.0 %] | † fault cannot act |" in md
    assert "| F1+F2 | 0.66 | oracle | 1 | 0 | 0/1 = 0.0 % | [0.0 %, 79.3 %] |  |" in md
    # McNemar: the two F4 pairs (oracle only succeeded, by design) are out of the headline, kept in "all cells"
    # (index 10 is by construction too, though both arms succeeded: F4 could act on one of them only)
    assert "| all cells except † (headline) | 8 | 3 | 4 | 0 | 1 | 0.000 | 1.000 | 1.000 |" in md
    assert "| all cells † | 11 | 4 | 4 | 2 | 1 | 0.000 | 1.000 | 1.000 |" in md
    assert "| F4 only † | 3 | 1 | 0 | 2 | 0 | 0.500 | 0.480 | 0.500 |" in md
    assert "leaves out the 3 pair(s) whose fault can act on one arm only" in md
    assert "3 of 11 pairs (1 in the physical subset, 2 by construction †):" in md
    assert "| 8 | F4 I=1.00 | 0 | 9008 | oracle | oracle-text | oracle-0008, oracle-text-0008 | † |" in md
    assert "| 1 | control | 1 | 9001 | oracle-text | oracle | oracle-0001, oracle-text-0001 |  |" in md
    # F4 table: the typed arm's rows are marked, with the reason under the table
    assert "| F4 | 1.00 | oracle | 3 | 0 | 0 | 0 | 0 | 3/3 = 100.0 % | [43.9 %, 100.0 %] | (none): 3 | † |" in md
    assert "† F4 corrupts the planner's raw text, and this arm hands over a typed plan" in md
    # F1 table: marked, with the error of the observation the plan was made from beside every injection's
    f1_rows = md.split("### F1")[1].split("### F2")[0]
    assert "| F1 † | 0.33 | 12 |" in f1_rows and "| F1+F2 † | 0.66 | 6 |" in f1_rows
    assert "| 0.0000 [0.0000–0.1500] | 0.0000 [0.0000–0.0000] |" in f1_rows  # every injection vs planned from


def test_placement_error_counts_executed_plans_only(tmp_path):
    md = write_report(tmp_path, by_design()).read_text()
    # 3 F3 plans per arm: 2 refused before motion (their 0.45 / 0.50 m is the start distance), 1 executed
    assert "| F3 | 1.00 | oracle | 3 | 3 | 0.3000 [0.3000–0.3000] | 2 | 1 | 0.2500 | 0.2500 | 0/3 = 0.0 % |" in md
    everything_refused = [
        r.model_copy(update={"abort_kind": "semantic"}) if r.cell and r.cell.fault == "F3" else r for r in by_design()
    ]
    md = write_report(tmp_path, everything_refused).read_text()
    assert "| F3 | 1.00 | oracle | 3 | 3 | 0.3000 [0.3000–0.3000] | 3 | 0 | no data | no data | 0/3 = 0.0 % |" in md


def test_every_bar_is_labelled_k_of_n():
    from alpha_matrix.core.matrix.report.construction import task_variant
    from alpha_matrix.core.matrix.report.plots import success_bars

    records = by_design()
    bars = success_bars(records, list(ARMS), task_variant(records))
    labels = {(b.arm, round(b.x)): b.label for b in bars}
    assert len(bars) == 10  # 5 cells x 2 arms
    # cells in matrix order: control, F1 0.33, F3 1.00, F4 1.00, F1+F2 0.66
    assert labels[("oracle", 0)] == "1/2" and labels[("oracle-text", 0)] == "2/2"
    assert labels[("oracle", 1)] == "2/2 †" and labels[("oracle", 2)] == "0/3"  # a 0 % bar still says 0/3
    assert labels[("oracle", 3)] == "3/3 †" and labels[("oracle-text", 3)] == "1/3"
    assert labels[("oracle", 4)] == "0/1"
    assert all(b.label.split()[0] == f"{b.k}/{b.n}" for b in bars)


def test_closed_loop_marks_no_f1_cell(tmp_path):
    md = write_report(tmp_path, by_design(CLOSED_LOOP_F1)).read_text()
    assert "- Task variant: closed_loop (6 of 6 F1 episodes that moved re-observed before the grasp)" in md
    assert "| F1 | 0.33 | oracle | 2 | 2 | 2/2 = 100.0 % | [34.2 %, 100.0 %] |  |" in md
    assert "| F1 † |" not in md and "| F4 | 1.00 | oracle | 3 | 3 | 3/3 = 100.0 % | [43.9 %, 100.0 %] | † " in md
    unknown = write_report(tmp_path, [r for r in by_design() if r.cell and "F1" not in r.cell.fault]).read_text()
    assert "- Task variant: unknown (" in unknown


def test_by_construction_report_is_byte_deterministic(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    write_report(first, by_design())
    write_report(second, list(reversed(by_design())))
    for name in ("report.md", "report.html", "plots/success_by_cell.png", "plots/f3_placement_error.png"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_a_300_of_300_arm_plots_its_interval(tmp_path):
    """Wilson's upper end at k = n = 300 is 1 - 2**-52: the error bar's length was negative and
    matplotlib refused it, so the report of a 300-episode run that all succeeded crashed."""
    write_report(tmp_path, [rec("oracle", i, True) for i in range(300)])
    assert (tmp_path / "plots/success_by_cell.png").is_file()
