import json
import platform

import pytest

from alpha_matrix.core.errors import RecordError
from alpha_matrix.core.records import (
    EpisodeRecord,
    OutcomeRecord,
    Provenance,
    RunStore,
    Timing,
    deterministic_view,
    provenance,
    record_sha256,
    seeded_view,
)


def make(episode_id="oracle-0000", wall=0.5, success=True):
    return EpisodeRecord(
        run_id="r",
        episode_id=episode_id,
        arm="oracle",
        episode_index=0,
        master_seed=42,
        seed=7,
        task="t",
        object="red",
        zone=(0.6, 0.35, 0.65),
        initial_positions={"red": (0.5, 0.0, 0.65)},
        plan=None,
        abort_kind="",
        abort_reason="",
        actions_completed=6,
        outcome=OutcomeRecord(success=success, placement_error=0.0014, steps_used=1260, reason=""),
        final_poses={"red": ((0.6, 0.35, 0.65), (0.0, 0.0, 0.0, 1.0))},
        provenance=Provenance(code_revision="abc", code_dirty=False, config_hash="h", packages={}, python="3.11"),
        timing=Timing(started_at="2026-01-01T00:00:00", wall_s=wall, plan_s=0.0, execute_s=0.1),
    )


def test_append_is_idempotent(tmp_path):
    store = RunStore(tmp_path / "run", "h")
    assert store.append(make())
    assert not store.append(make(wall=9.9))
    again = RunStore(tmp_path / "run", "h")
    assert "oracle-0000" in again
    assert not again.append(make())
    assert len((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()) == 1


def test_wall_clock_is_the_only_difference_allowed():
    a, b = make(wall=0.1), make(wall=0.2)
    assert deterministic_view(a) == deterministic_view(b)
    assert record_sha256(a) == record_sha256(b)
    assert record_sha256(a) != record_sha256(make(success=False))


def test_a_checkout_changed_between_two_runs_changes_no_seeded_view():
    """Two runs of one seed and config, with a commit or an edit in the working tree between them
    (another engineer's, in a tree shared while the graph tests ran): their records differ in
    provenance.code_revision / code_dirty alone. The seeded view leaves the checkout out, as it
    does the run's name and the wall clock; whatever the seeds and config decide still counts."""
    a = make()
    checkout = a.provenance.model_copy(update={"code_revision": "def", "code_dirty": True})
    b = make(wall=9.9).model_copy(update={"run_id": "b", "provenance": checkout})
    assert deterministic_view(a) != deterministic_view(b)  # the hash on episode/result names the checkout
    assert seeded_view(a) == seeded_view(b)
    lines = [json.loads(r.model_dump_json()) for r in (a, b)]  # as a test reads episodes.jsonl
    assert seeded_view(lines[0]) == seeded_view(lines[1]) == seeded_view(a)
    assert lines[1]["provenance"]["code_dirty"] is True and lines[1]["run_id"] == "b"  # the line is not changed
    assert "provenance" in seeded_view(a) and "config_hash" in seeded_view(a)["provenance"]
    moved = {"red": ((0.6, 0.35, 0.65 + 1e-12), (0.0, 0.0, 0.0, 1.0))}
    config = a.provenance.model_copy(update={"config_hash": "h2"})
    for other in (
        make(success=False),
        a.model_copy(update={"final_poses": moved}),
        a.model_copy(update={"provenance": config}),
    ):
        assert seeded_view(other) != seeded_view(a)


def test_truncated_last_line_is_dropped_and_rerun(tmp_path):
    store = RunStore(tmp_path / "run", "h")
    store.append(make("oracle-0000"))
    with open(store.path, "a") as f:
        f.write('{"schema_version": 1, "run_id": "r", "episo')  # crash mid-write
    again = RunStore(tmp_path / "run", "h")
    assert list(again.records) == ["oracle-0000"]
    assert again.append(make("oracle-0001"))
    lines = store.path.read_text().splitlines()
    assert [json.loads(line)["episode_id"] for line in lines] == ["oracle-0000", "oracle-0001"]


def test_other_config_is_refused_and_nothing_changes(tmp_path):
    store = RunStore(tmp_path / "run", "h1")
    store.append(make())
    before = store.path.read_bytes()
    with pytest.raises(RecordError, match="made with config h1"):
        RunStore(tmp_path / "run", "h2")
    assert store.path.read_bytes() == before


def test_corrupt_complete_line_is_an_error(tmp_path):
    (tmp_path / "run").mkdir()
    RunStore(tmp_path / "run", "h")
    (tmp_path / "run" / "episodes.jsonl").write_text('{"nope": 1}\n')
    with pytest.raises(RecordError, match="episodes.jsonl:1: invalid record"):
        RunStore(tmp_path / "run", "h")


def test_a_run_directory_of_another_schema_is_refused_in_one_line(tmp_path):
    """Schema 2 (FaultRecord.seq): resuming or reading a v1 run is refused, never mixed or misread."""
    store = RunStore(tmp_path / "run", "h")
    store.append(make())
    manifest = tmp_path / "run" / "manifest.json"
    assert json.loads(manifest.read_text())["schema_version"] == 2 == make().schema_version
    manifest.write_text(json.dumps({"config_hash": "h", "schema_version": 1}))
    before = store.path.read_bytes()
    for attempt in (lambda: RunStore(tmp_path / "run", "h"), lambda: RunStore.read_only(tmp_path / "run")):
        with pytest.raises(RecordError, match="schema version 1, this alpha_matrix uses version 2") as err:
            attempt()
        assert "\n" not in str(err.value)
    assert store.path.read_bytes() == before
    manifest.write_text(json.dumps({"config_hash": "h"}))
    with pytest.raises(RecordError, match="schema version unknown"):
        RunStore(tmp_path / "run", "h")


def test_all_recorded_only_for_the_same_config_and_every_episode(tmp_path):
    from alpha_matrix.core.records import all_recorded

    run_dir = tmp_path / "r"
    assert not all_recorded(run_dir, "h", ["a"])  # no run yet
    store = RunStore(run_dir, "h")
    assert not all_recorded(run_dir, "h", [])  # made, nothing recorded
    store.append(make("a"))
    assert all_recorded(run_dir, "h", ["a"])
    assert not all_recorded(run_dir, "h", ["a", "b"])  # one still to run
    assert not all_recorded(run_dir, "other", ["a"])  # another config: the run proper refuses it
    (run_dir / "manifest.json").write_text("{")
    assert not all_recorded(run_dir, "h", ["a"])  # unreadable: the run proper reports it


def test_provenance_names_the_architecture_and_old_records_still_load():
    """Outcomes match across x86-64 CPUs, not across architectures: a record says which it ran on."""
    assert provenance("h").machine == platform.machine()
    old = make().model_dump(mode="json")
    del old["provenance"]["machine"]  # a record written before the field
    assert EpisodeRecord.model_validate(old).provenance.machine == "unknown"
