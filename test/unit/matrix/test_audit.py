"""alpha-matrix audit on tiny matrix bags written with the project's own SplitBagWriter.

Resumed runs (an episode's interrupted attempt and its re-run in one bag), bad splits (read the
others, name the bad one, exit 1), and finding the run: the run id in the bag's metadata, worker
bags of one run audited as one, clear one-line user errors (exit 2).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from mcap.reader import make_reader

from alpha_matrix.cli import main
from alpha_matrix.core.attempts import audited_attempt, split_attempts
from alpha_matrix.core.bag import (
    RUN_ID_KEY,
    BadSplit,
    BagError,
    SplitBagWriter,
    bag_custom_data,
    bag_splits,
    make_typestore,
    read_bag,
    tolerate_bad_splits,
)
from alpha_matrix.core.matrix.audit import audit_bag, format_notes, format_table, window_sweep
from alpha_matrix.core.outcome import ZONE
from alpha_matrix.core.recorder_params import DEFAULT_RECORDED_TOPICS

TOPICS = dict(t.split("=") for t in DEFAULT_RECORDED_TOPICS)
STORE = make_typestore()


def make(msgtype: str, **fields: Any) -> Any:
    """A message of the bag's typestore, every field not given at its zero value."""
    cls = STORE.types[msgtype]
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in fields or f.type.startswith("ClassVar"):
            continue
        t = f.type
        if t in ("str", "int", "bool", "float"):
            values[f.name] = {"str": "", "int": 0, "bool": False, "float": 0.0}[t]
        elif t.startswith("list["):
            values[f.name] = []
        elif t.startswith("np.ndarray"):
            values[f.name] = np.array([], dtype=getattr(np, t.rsplit("np.", 1)[1].rstrip("]")))
        else:
            values[f.name] = make(t.replace("__", "/"))
    return cls(**values, **fields)


class Bag:
    """Writes episodes as the graph would: step batches, statuses, results; one split per episode."""

    def __init__(self, bag_dir: Path, run_id: str | None = "r") -> None:
        self.w = SplitBagWriter(bag_dir, TOPICS, {RUN_ID_KEY: run_id} if run_id else None)
        self.t = 0

    def put(self, topic: str, msg: Any) -> None:
        self.t += 1000
        self.w.write(topic, self.t, STORE.serialize_cdr(msg, TOPICS[topic]))

    def episode(self, eid: str, steps: int, *, first: int = 1, done: bool = True) -> None:
        for start in range(first, steps + 1, 60):
            n = min(60, steps - start + 1)
            self.put(
                "/robot/step_batch",
                make(
                    TOPICS["/robot/step_batch"],
                    episode_id=eid,
                    first_step=start,
                    num_steps=n,
                    joint_names=["j"],
                    joint_positions=np.zeros(n),
                    joint_velocities=np.zeros(n),
                    grasp_positions=np.tile([0.5, 0.0, 0.8], n),
                    body_names=["table", "panda", "red"],
                ),
            )
        if not done:
            return
        red = make("alpha_matrix_interfaces/msg/ObjectState", name="red")
        red.pose.position.x, red.pose.position.y, red.pose.position.z = ZONE
        self.put(
            "/robot/command_status",
            make(TOPICS["/robot/command_status"], episode_id=eid, state=2, end_step=steps, objects=[red]),
        )
        self.put("/executive/result", make(TOPICS["/executive/result"], episode_id=eid, executed=True))
        summary = dict(first_step=1, last_step=steps, steps_checked=steps, contact_threshold=60.0, window=15)
        self.put("/safety/summary", make(TOPICS["/safety/summary"], episode_id=eid, **summary))
        self.put("/episode/result", make(TOPICS["/episode/result"], episode_id=eid, success=True, steps_used=steps))
        self.w.rotate()

    def close(self) -> None:
        self.w.close()


def resumed_bag(bag_dir: Path) -> None:
    """ep-0 done; ep-1 killed at step 540 (the graph stopped); resumed: ep-1 re-run, ep-2 done."""
    first = Bag(bag_dir)
    first.episode("ep-0", 300)
    first.episode("ep-1", 540, done=False)
    first.close()
    resumed = Bag(bag_dir)  # the resumed run's recorder appends to the same bag
    resumed.episode("ep-1", 600)
    resumed.episode("ep-2", 300)
    resumed.close()


def test_a_resumed_episode_audits_its_completed_attempt_and_counts_the_interrupted_one(tmp_path: Path) -> None:
    resumed_bag(tmp_path / "r")
    audits = {a.episode_id: a for a in audit_bag(tmp_path / "r")}
    assert all(a.ok for a in audits.values()), format_table(list(audits.values()))
    assert audits["ep-1"].interrupted_attempts == 1 and audits["ep-1"].steps == 600
    assert audits["ep-1"].not_audited == ("steps 1..540",)
    assert audits["ep-0"].interrupted_attempts == audits["ep-2"].interrupted_attempts == 0
    assert format_notes(list(audits.values())) == ["note: ep-1: 1 interrupted attempt (steps 1..540) not audited"]
    assert window_sweep(tmp_path / "r", [15])[15] == (0, 0)  # the sweep replays one attempt, no ValueError


def test_an_episode_that_never_completed_is_reported_not_audited(tmp_path: Path) -> None:
    b = Bag(tmp_path / "r")
    b.episode("ep-0", 120)
    b.episode("ep-1", 240, done=False)
    b.close()
    audits = {a.episode_id: a for a in audit_bag(tmp_path / "r")}
    assert not audits["ep-1"].audited and audits["ep-1"].ok and audits["ep-1"].interrupted_attempts == 1
    assert "not audited: interrupted" in format_table(list(audits.values()))
    assert format_notes([audits["ep-1"]])[0].startswith("note: ep-1: 1 interrupted attempt (steps 1..240) not audited")


def test_a_stream_that_does_not_start_at_step_1_is_a_gap(tmp_path: Path) -> None:
    b = Bag(tmp_path / "r")
    b.episode("ep-0", 180, first=61)  # steps 1..60 were in a split that is lost
    b.close()
    (a,) = audit_bag(tmp_path / "r")
    assert "steps 1..60 missing from the stream" in a.problems


def test_split_attempts_cuts_at_a_restarted_stream_a_second_start_and_after_a_result() -> None:
    def batch(eid: str, first: int, n: int = 10) -> tuple[str, int, Any]:
        return (
            "/robot/step_batch",
            0,
            make(TOPICS["/robot/step_batch"], episode_id=eid, first_step=first, num_steps=n),
        )

    result = ("/episode/result", 0, make(TOPICS["/episode/result"], episode_id="a"))
    msgs = [batch("a", 1), batch("a", 11), batch("b", 1), batch("a", 1), batch("a", 21), result, batch("a", 31)]
    msgs.append(batch("a", 61))  # after the result and not its continuation: a new attempt
    attempts = split_attempts(msgs)
    assert [(x.first_step, x.last_step, x.completed, x.gaps) for x in attempts["a"]] == [
        (1, 20, False, []),
        (1, 40, True, [(11, 20)]),  # 31..40 reached the bag after the result: still this attempt
        (61, 70, False, []),
    ]
    chosen, others = audited_attempt(attempts["a"])
    assert chosen is attempts["a"][1] and len(others) == 2
    request = ("/suite/request", 0, make(TOPICS["/episode/end"], episode_id="s"))
    starts = split_attempts([request, request], is_start=lambda t, _m: t == "/suite/request")
    assert len(starts["s"]) == 2


def test_a_start_logged_after_its_own_result_is_that_attempts_start() -> None:
    """A recorder behind its subscriptions logged a stepless episode's dialogue and result before
    its request: one attempt, started and completed (the audit found 'no recorded suite/request'
    and counted the request as an interrupted attempt). A second request after that is a re-run."""

    def msg(topic: str, kind: str) -> tuple[str, int, Any]:
        return (topic, 0, make(TOPICS[kind], episode_id="s"))

    is_start = lambda t, _m: t == "/suite/request"  # noqa: E731
    request, result, other = (
        msg("/suite/request", "/episode/end"),
        msg("/episode/result", "/episode/result"),
        msg("/x", "/episode/end"),
    )
    late = split_attempts([other, other, result, request], is_start=is_start, result_topic="/episode/result")
    assert [(a.started, a.completed, len(a.messages)) for a in late["s"]] == [(True, True, 4)]
    rerun = split_attempts([other, result, request, request, result], is_start=is_start, result_topic="/episode/result")
    assert [(a.started, a.completed) for a in rerun["s"]] == [(True, True), (True, True)]


def _corrupt_bag(tmp_path: Path) -> tuple[Path, Path]:
    b = Bag(tmp_path / "r")
    for i in range(3):
        b.episode(f"ep-{i}", 120)
    b.close()
    bad = bag_splits(tmp_path / "r")[1]
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])
    return tmp_path / "r", bad


def test_one_bad_split_is_named_and_the_others_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bag, bad = _corrupt_bag(tmp_path)
    with pytest.raises(BagError, match="unreadable bag"):
        list(read_bag(bag))  # no collector: the old, all-or-nothing contract
    found: list[BadSplit] = []
    results = [m.episode_id for t, _ts, m in read_bag(bag, found) if t == "/episode/result"]
    assert results == ["ep-0", "ep-2"] and [x.path for x in found] == [bad]
    with tolerate_bad_splits() as collected:
        assert sum(1 for _ in read_bag(bag)) > 0
    assert [x.path for x in collected] == [bad]

    assert main(["audit", str(bag), "--no-records"]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: unreadable (" in out and "2/2 episodes match" in out and "1 unreadable split" in out
    assert out.startswith(f"audit: {bag} (2 of 3 splits read); records not compared (--no-records)")


def test_a_few_corrupted_bytes_in_a_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = Bag(tmp_path / "r")
    for i in range(3):
        b.episode(f"ep-{i}", 120)
    b.close()
    bad = bag_splits(tmp_path / "r")[2]
    data = bytearray(bad.read_bytes())
    with bad.open("rb") as f:  # in the messages (a compressed chunk), not in the summary's copies
        summary = make_reader(f).get_summary()
    assert summary is not None
    chunk = summary.chunk_indexes[0]
    middle = chunk.chunk_start_offset + chunk.chunk_length // 2
    for k in range(middle, middle + 8):
        data[k] ^= 0xFF
    bad.write_bytes(bytes(data))
    code = main(["audit", str(tmp_path / "r"), "--no-records"])
    out = capsys.readouterr().out
    assert code == 1 and "Traceback" not in out
    assert f"{bad}: unreadable (" in out or "MISMATCH" in out


def test_every_split_unreadable_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = Bag(tmp_path / "r")
    b.episode("ep-0", 60)
    b.close()
    (split,) = bag_splits(tmp_path / "r")
    split.write_bytes(b"not an mcap")
    assert main(["audit", str(tmp_path / "r"), "--no-records"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("alpha-matrix: error:") and "unreadable bag" in err[0]


def test_the_run_id_is_in_the_bag_metadata_and_survives_appending(tmp_path: Path) -> None:
    resumed_bag(tmp_path / "x")
    meta = yaml.safe_load((tmp_path / "x" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert meta["custom_data"] == {RUN_ID_KEY: "r"} and len(meta["relative_file_paths"]) == 4
    assert bag_custom_data(tmp_path / "x") == {RUN_ID_KEY: "r"}


def test_audit_finds_the_run_from_the_metadata_and_audits_worker_bags_as_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for w in range(2):
        b = Bag(Path("bags/r") / f"worker-{w}")
        b.episode(f"ep-{w}", 120)
        b.close()
    Path("runs/r").mkdir(parents=True)
    (Path("runs/r") / "episodes.jsonl").write_text("")
    assert main(["audit", "bags/r"]) == 1  # no records for the bag's episodes: found, compared, mismatch
    out = capsys.readouterr().out
    assert out.startswith(
        "audit: bags/r/worker-0 (1 splits read), bags/r/worker-1 (1 splits read); compared with records in runs/r"
    )
    assert "no JSONL record in runs/r" in out and "MISMATCH in ep-0, ep-1" in out
    assert main(["audit", "bags/r/worker-1"]) == 1
    assert "compared with records in runs/r" in capsys.readouterr().out
    assert main(["audit", "bags/r", "--no-records"]) == 0
    out = capsys.readouterr().out
    assert "records not compared (--no-records)" in out and "2/2 episodes match" in out
    Path("elsewhere").mkdir()
    (Path("elsewhere") / "episodes.jsonl").write_text("")
    assert main(["audit", "bags/r/worker-0", "--run-dir", "elsewhere"]) == 1
    assert "compared with records in elsewhere" in capsys.readouterr().out


def test_an_old_bag_without_a_run_id_falls_back_to_its_folder_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    b = Bag(Path("bags/old"), run_id=None)
    b.episode("ep-0", 60)
    b.close()
    assert main(["audit", "bags/old"]) == 2
    err = capsys.readouterr().err
    assert (
        err.strip()
        == "alpha-matrix: error: runs/old: no run directory for this bag (use --run-dir, --runs-dir, or --no-records)"
    )
    Path("runs/old").mkdir(parents=True)
    (Path("runs/old") / "episodes.jsonl").write_text("")
    main(["audit", "bags/old"])
    assert "guessed 'old' from its folder name" in capsys.readouterr().out


AUDIT_TAKES_NO_CONFIG = "audit reads what was recorded, never the config files: --config and --set do not apply to it"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["audit", "bags/nonexistent"], "bags/nonexistent: no such bag"),
        (["--config", "/does/not/exist", "audit", "bags/nonexistent"], AUDIT_TAKES_NO_CONFIG),
        (["audit", "bags/r", "--set", "sim_bridge.x=1"], AUDIT_TAKES_NO_CONFIG),
        (["run", "--config", "/does/not/exist"], "--config /does/not/exist: no such directory"),
        (["--config", "/does/not/exist", "graph"], "--config /does/not/exist: no such directory"),
        (["audit", "bags/r", "--run-dir", "nowhere"], "nowhere: no such run directory (--run-dir)"),
    ],
)
def test_user_errors_are_one_line_exit_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Bag(Path("bags/r")).episode("ep-0", 60)
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"alpha-matrix: error: {message}"


def _audit_log(run_dir: Path) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in (run_dir / "audits.jsonl").read_text().splitlines()]


def test_an_audit_against_records_is_logged_in_its_run_and_runs_shows_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    b = Bag(Path("bags/r"))
    b.episode("ep-0", 120)
    b.episode("ep-1", 120)
    b.close()
    Path("runs/r").mkdir(parents=True)
    (Path("runs/r") / "episodes.jsonl").write_text("")
    assert main(["audit", "bags/r"]) == 1  # no records for the bag's episodes: 2 mismatches
    assert main(["audit", "bags/r", "--no-records"]) == 0  # compared with nothing: not logged
    (entry,) = _audit_log(Path("runs/r"))
    assert entry["bag"] == str((tmp_path / "bags/r").resolve()) and entry["kind"] == "matrix"
    assert (entry["verdict"], entry["episodes"], entry["matched"], entry["mismatches"]) == ("2 mismatches", 2, 0, 2)
    assert (entry["splits"], entry["unreadable_splits"], entry["interrupted"]) == (2, 0, 0)
    capsys.readouterr()
    assert main(["runs"]) == 0
    (row,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("r ")]
    assert row.endswith(f"2 mismatches (0/2, {entry['time'][:10]})")

    bag_splits(Path("bags/r"))[1].write_bytes(b"not an mcap")
    assert main(["audit", "bags/r"]) == 1
    assert _audit_log(Path("runs/r"))[-1]["verdict"] == "1 mismatch, 1 unreadable split"
    for split in bag_splits(Path("bags/r")):
        split.write_bytes(b"not an mcap")
    assert main(["audit", "bags/r"]) == 2  # nothing readable: a one-line error, and logged as such
    assert _audit_log(Path("runs/r"))[-1]["verdict"] == "unreadable bag"


def test_a_log_that_cannot_be_written_is_a_warning_not_a_lost_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    b = Bag(Path("bags/r"))
    b.episode("ep-0", 60)
    b.close()
    Path("runs/r/audits.jsonl").mkdir(parents=True)  # unwritable as a file, even for root
    (Path("runs/r") / "episodes.jsonl").write_text("")
    assert main(["audit", "bags/r"]) == 1  # the audit's own verdict stands
    captured = capsys.readouterr()
    assert "0/1 episodes match; MISMATCH in ep-0" in captured.out
    (warning,) = captured.err.splitlines()
    assert warning.startswith("alpha-matrix: warning: audit not logged: runs/r/audits.jsonl: cannot append")
