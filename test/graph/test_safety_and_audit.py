"""Safety monitor through the graph, rosbag2 recording, and audit by replay."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from alpha_matrix_interfaces.msg import CommandStatus, SafetyEvent
from alpha_matrix_interfaces.srv import MoveTo, Reset
from geometry_msgs.msg import Point
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.rosbag2 import Reader, Writer
from rosbags.rosbag2.writer import StoragePlugin
from test_driver_contract import Probe

from alpha_matrix.core.bag import make_typestore, read_bag
from alpha_matrix.ros.qos import EVENTS
from conftest import run_cli, wait_until


def crash_into_table(g, seed: int, run: int) -> tuple[list[SafetyEvent], CommandStatus]:
    probe = Probe(g.node)
    events: list[SafetyEvent] = []
    g.node.create_subscription(SafetyEvent, "safety/events", events.append, EVENTS)
    wait_until(lambda: g.node.count_publishers("safety/events") > 0, 30, "the monitor")
    reset = probe.call(
        Reset, "robot/reset", Reset.Request(episode_id=f"crash-{seed}-{run}", seed=seed, settle_steps=120)
    )
    probe.wait_status(reset.command_id)
    # Fingertips driven 4 cm into the table, at the place zone (no block there by construction).
    move = probe.call(MoveTo, "robot/move_to", MoveTo.Request(target=Point(x=0.6, y=0.35, z=0.585), steps=240))
    assert move.accepted, move.message
    return events, probe.wait_status(move.command_id)


def test_arm_driven_into_the_table_opens_a_critical_event_and_stops(start_graph):
    g = start_graph(
        {"sim_bridge": {"gating_consumers": ["safety_monitor"]}},
        exclude=("oracle", "executive", "episode_runner", "recorder", "chaos"),  # calm batches of 192 until the crash
    )
    runs = []
    for run in range(2):  # the same seed twice: same steps
        events, status = crash_into_table(g, seed=11, run=run)
        wait_until(lambda ev=events: any(not e.closed for e in ev), 10, "a safety event")
        runs.append((events, status))
    for events, status in runs:
        opened = [e for e in events if not e.closed]
        first = opened[0]
        assert first.kind == "violent_contact" and first.key.endswith("-table") and first.severity == "critical"
        assert first.peak > 60.0 and first.stop_requested
        assert status.state == CommandStatus.CANCELLED
        assert f"protective stop at step {first.start_step + 24} (safety_monitor: violent_contact" in status.message
    assert [(e.kind, e.key, e.start_step) for e in runs[0][0] if not e.closed] == [
        (e.kind, e.key, e.start_step) for e in runs[1][0] if not e.closed
    ]


def copy_bag_with(src: Path, dst: Path, change) -> None:  # noqa: ANN001
    """Rewrite a bag, passing every message through change(topic, msg) -> msg."""
    store = make_typestore()
    writer = Writer(dst, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    conns = {}
    with Reader(src) as reader:
        for c in reader.connections:
            conns[c.id] = writer.add_connection(c.topic, c.msgtype, typestore=store)
        for c, ts, raw in reader.messages():
            msg = change(c.topic, store.deserialize_cdr(raw, c.msgtype))
            writer.write(conns[c.id], ts, store.serialize_cdr(msg, c.msgtype))
    writer.close()


def test_recorded_run_is_complete_and_audits_clean_and_tampering_is_caught(tmp_path):
    runs, bags = tmp_path / "runs", tmp_path / "bags"
    r = run_cli(
        ["--set", f"recorder.bags_dir={bags}", "run", "--episodes", "3", "--runs-dir", str(runs), "--run-id", "a"],
        tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    recs = [json.loads(line) for line in (runs / "a" / "episodes.jsonl").read_text().splitlines()]
    # Nothing dropped: every topic's messages in the bag against what the run published.
    counts: dict[str, int] = {}
    steps: dict[str, list[int]] = {}
    for topic, _ts, msg in read_bag(bags / "a"):
        counts[topic] = counts.get(topic, 0) + 1
        if topic == "/robot/step_batch":
            steps.setdefault(msg.episode_id, []).extend(range(msg.first_step, msg.first_step + msg.num_steps))
    assert counts["/episode/result"] == counts["/executive/request"] == counts["/safety/summary"] == 3
    assert counts["/robot/command_status"] == 3 * 7  # settle + six actions per episode
    for rec in recs:
        assert steps[rec["episode_id"]] == list(range(1, rec["outcome"]["steps_used"] + 1))
        assert rec["safety"]["steps_checked"] == rec["outcome"]["steps_used"] and rec["safety"]["events"] == []
    assert "/clock" not in counts and "/joint_states" not in counts  # not recorded: the bridge sends them lazily
    # An independent reader (the mcap ROS 2 decoder family Foxglove uses) decodes every message,
    # custom types included, from the definitions stored in the bag.
    meta = yaml.safe_load((bags / "a" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    decoded = 0
    for name in meta["relative_file_paths"]:
        with open(bags / "a" / name, "rb") as f:
            decoded += sum(1 for _m in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages())
    assert decoded == meta["message_count"] == sum(counts.values())
    assert meta["custom_data"] == {"alpha_matrix.run_id": "a"}  # how audit finds runs/a

    ok = run_cli(["audit", str(bags / "a"), "--runs-dir", str(runs), "--window"], tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "3/3 episodes match" in ok.stdout and "W=60" in ok.stdout
    assert f"; compared with records in {runs / 'a'}" in ok.stdout.splitlines()[0]

    cal = run_cli(["calibrate", str(bags / "a")], tmp_path)
    assert cal.returncode == 0, cal.stderr
    assert "largest including the held block's reaction" in cal.stdout and "contact_threshold:" in cal.stdout

    def flip(topic, msg):  # noqa: ANN001, ANN202
        if topic == "/episode/result" and msg.episode_id == "oracle-0001":
            msg.success = not msg.success
        return msg

    (tmp_path / "tampered").mkdir()
    copy_bag_with(bags / "a", tmp_path / "tampered" / "a", flip)
    bad = run_cli(["audit", str(tmp_path / "tampered" / "a"), "--runs-dir", str(runs)], tmp_path)
    assert bad.returncode == 1
    assert "MISMATCH in oracle-0001" in bad.stdout and "recorded success False, replay says True" in bad.stdout

    # A truncated split is named, the other splits are still audited: exit 1, not a traceback.
    broken = tmp_path / "broken" / "a"
    shutil.copytree(bags / "a", broken)
    mcap = broken / meta["relative_file_paths"][-1]  # the last split: the last episode's result
    mcap.write_bytes(mcap.read_bytes()[: mcap.stat().st_size // 2])
    err = run_cli(["audit", str(broken), "--no-records"], tmp_path)
    assert err.returncode == 1 and "Traceback" not in err.stderr, err.stdout + err.stderr
    assert f"{mcap}: unreadable (" in err.stdout and "1 unreadable split" in err.stdout
    assert f"audit: {broken} ({len(meta['relative_file_paths']) - 1} of " in err.stdout


def test_recorder_killed_mid_run_leaves_a_readable_bag(start_graph, tmp_path):
    bags = tmp_path / "bags"
    g = start_graph(
        {"recorder": {"bags_dir": str(bags)}, "episode_runner": {"episodes": 40, "runs_dir": str(tmp_path / "runs")}},
        exclude=(),
    )
    bag = bags / g.graph.run_id

    def durable_results() -> int:  # episode results in closed, listed splits (what survives a kill)
        if not (bag / "metadata.yaml").exists():
            return 0
        meta = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
        counts = {t["topic_metadata"]["name"]: t["message_count"] for t in meta["topics_with_message_count"]}
        return counts.get("/episode/result", 0)

    wait_until(lambda: durable_results() >= 2, 60, "two episodes in closed splits of the bag")
    g.launcher.procs["recorder"].kill()
    assert g.launcher.wait() == 1
    assert g.log.has("alpha-matrix: node 'recorder' was killed by signal 9")
    results = [m.episode_id for topic, _t, m in read_bag(bag) if topic == "/episode/result"]
    assert len(results) >= 2 and results == sorted(set(results))  # whole episodes, in order, none twice
    audit = run_cli(["audit", str(bag), "--no-records"], tmp_path)
    assert audit.returncode in (0, 1) and "Traceback" not in audit.stderr
    for episode_id in results:
        assert f"{episode_id:<14}" in audit.stdout


def test_a_workers_run_is_audited_as_one_run_against_its_records(tmp_path):
    runs, bags = tmp_path / "runs", tmp_path / "bags"
    r = run_cli(
        ["--set", f"recorder.bags_dir={bags}", "run", "--episodes", "2", "--workers", "2"]
        + ["--runs-dir", str(runs), "--run-id", "w"],
        tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    for w in range(2):  # each worker's bag names the run, not its own folder
        meta = yaml.safe_load((bags / "w" / f"worker-{w}" / "metadata.yaml").read_text())
        assert meta["rosbag2_bagfile_information"]["custom_data"] == {"alpha_matrix.run_id": "w"}
    whole = run_cli(["audit", str(bags / "w"), "--runs-dir", str(runs)], tmp_path)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    header = whole.stdout.splitlines()[0]
    assert f"{bags / 'w' / 'worker-0'} (" in header and f"{bags / 'w' / 'worker-1'} (" in header
    assert header.endswith(f"compared with records in {runs / 'w'}") and "2/2 episodes match" in whole.stdout
    one = run_cli(["audit", str(bags / "w" / "worker-1"), "--runs-dir", str(runs)], tmp_path)
    assert one.returncode == 0 and "1/1 episodes match" in one.stdout, one.stdout + one.stderr
