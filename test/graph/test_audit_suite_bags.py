"""alpha-matrix audit on suite bags: a short proximity, alerts and confidence run through the
graph audit clean; a tampered estimate, alert, confidence answer or record is exit 1 naming the
episode; a split cut in half is named and the rest audited, exit 1. An alerts bag recorded with another L audits
against the L it carries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rosbags.rosbag2 import Reader, Writer
from rosbags.rosbag2.writer import StoragePlugin

from alpha_matrix.core.bag import make_typestore
from conftest import run_cli

ALERTS = """seed: 42
scenarios:
  - name: battery_critical_descend
    phase: descend
    alerts:
      - {id: bc1, class: battery_critical, severity: critical, at_step: 480, cleared_at_step: 760, payload: {battery_pct: 6.5}}
"""

CONFIDENCE = """seed: 42
tasks:
  - name: sort_one
    goals: ["red -> zone_a"]
  - name: far_then_alternative
    goals: ["red -> zone_far | zone_a", "green -> zone_b"]
"""


def copy_bag_with(src: Path, dst: Path, change) -> None:  # noqa: ANN001
    """Rewrite a bag, passing every message through change(topic, msg) -> msg (None drops it)."""
    store = make_typestore()
    writer = Writer(dst, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.open()
    conns = {}
    with Reader(src) as reader:
        for c in reader.connections:
            conns[c.id] = writer.add_connection(c.topic, c.msgtype, typestore=store)
        for c, ts, raw in reader.messages():
            msg = change(c.topic, store.deserialize_cdr(raw, c.msgtype))
            if msg is not None:
                writer.write(conns[c.id], ts, store.serialize_cdr(msg, c.msgtype))
    writer.close()


def _run(tmp_path: Path, suite: str, text: str, run_id: str) -> Path:
    (tmp_path / f"{run_id}.yaml").write_text(text)
    proc = run_cli(["suite", suite, "--scenarios", f"{run_id}.yaml", "--run-id", run_id], tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return tmp_path / "bags" / run_id


def _audit(tmp_path: Path, bag: Path, *extra: str):  # noqa: ANN202
    return run_cli(["audit", str(bag), "--runs-dir", str(tmp_path / "runs"), *extra], tmp_path, timeout=120)


def test_proximity_bag_audits_clean_and_tampering_is_caught(tmp_path: Path, proximity_a02: Path) -> None:
    """The session's proximity run (conftest.proximity_a02: its bag audited clean, "1/1 episodes
    match"), tampered on copies."""
    bag, runs = proximity_a02 / "bags" / "a02", proximity_a02 / "runs"

    stop_step = []

    def nudge(topic, msg):  # noqa: ANN001, ANN202 - the first stop decision, made 1 mm farther
        if topic == "/proximity/estimate" and msg.action == "stop" and not stop_step:
            stop_step.append(int(msg.step))
            msg.distance += 0.001
        return msg

    copy_bag_with(bag, tmp_path / "tampered" / "a02", nudge)
    bad = run_cli(["audit", str(tmp_path / "tampered" / "a02"), "--runs-dir", str(runs)], tmp_path, timeout=120)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "MISMATCH in proximity-a02-1m" in bad.stdout
    assert f"estimate of step {stop_step[0]}: recorded detected=True" in bad.stdout

    # The JSONL record disagrees with the bag: one false stop more.
    runs2 = tmp_path / "runs2" / "a02"
    shutil.copytree(runs / "a02", runs2)
    lines = (runs2 / "episodes.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["result"]["metrics"]["false_stops"] += 1
    (runs2 / "episodes.jsonl").write_text(json.dumps(rec) + "\n")
    bad = run_cli(["audit", str(bag), "--runs-dir", str(tmp_path / "runs2")], tmp_path)
    assert bad.returncode == 1 and "MISMATCH in proximity-a02-1m" in bad.stdout
    assert "JSONL record differs from suite/result at metrics.false_stops" in bad.stdout


def test_alerts_bag_audits_clean_and_a_dropped_alert_is_caught(tmp_path: Path) -> None:
    bag = _run(tmp_path, "alerts", ALERTS, "aa")
    ok = _audit(tmp_path, bag)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "suite alerts" in ok.stdout and "1/1 episodes match" in ok.stdout

    def drop_clear(topic, msg):  # noqa: ANN001, ANN202 - the clear never reached the guard
        return None if topic == "/robot/alerts" and msg.cleared else msg

    copy_bag_with(bag, tmp_path / "tampered" / "aa", drop_clear)
    bad = _audit(tmp_path, tmp_path / "tampered" / "aa", "--no-records")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "MISMATCH in alerts-battery_critical_descend" in bad.stdout
    assert "suite/result differs from the guard's replay" in bad.stdout


def test_confidence_bag_audits_clean_and_a_changed_answer_is_caught(tmp_path: Path) -> None:
    bag = _run(tmp_path, "confidence", CONFIDENCE, "ca")
    ok = _audit(tmp_path, bag)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "suite confidence" in ok.stdout and "2/2 episodes match" in ok.stdout

    def unsure(topic, msg):  # noqa: ANN001, ANN202 - the far zone's look-ahead answered more confidently
        if topic == "/skill/queries" and msg.episode_id.endswith("far_then_alternative") and msg.query_index == 1:
            assert list(msg.candidates) == ["place(red, zone_far)", "place(red, zone_a)"]
            msg.confidence = msg.confidence.copy()  # decoded arrays are read-only
            msg.confidence[0] = 0.95
        return msg

    copy_bag_with(bag, tmp_path / "tampered" / "ca", unsure)
    bad = _audit(tmp_path, tmp_path / "tampered" / "ca")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "1/2 episodes match; MISMATCH in confidence-far_then_alternative" in bad.stdout
    assert "query 1: place(red, zone_far): recorded (0.95, False, True, ''), replay (0.17" in bad.stdout

    # Two episodes, so at least two splits (each episode's commit closes one): one cut in half is
    # named, the others are audited, exit 1. (One split alone unreadable is the whole bag: exit 2.)
    broken = tmp_path / "broken" / "ca"
    shutil.copytree(bag, broken)
    splits = sorted(broken.glob("*.mcap"))
    assert len(splits) >= 2, splits
    splits[0].write_bytes(splits[0].read_bytes()[: splits[0].stat().st_size // 2])
    err = run_cli(["audit", str(broken), "--no-records"], tmp_path)
    assert err.returncode == 1 and "Traceback" not in err.stderr, err.stdout + err.stderr
    assert f"{splits[0].name}: unreadable" in err.stdout and err.stdout.rstrip().endswith("; 1 unreadable split")


def test_alerts_audit_reads_policy_and_latency_from_the_bag(tmp_path: Path) -> None:
    """Recorded with a copied config and the graph's L = 48 (--set '/**.reaction_latency_steps=48':
    the bridge, the guard and the executive all take it). The copied
    config then changes (L, policy): the audit still takes both from the bag, and says so. The
    same bag without its context is not audited with today's config: its episode is a problem."""
    from alpha_matrix.core.graph import default_config_dir

    cfg = tmp_path / "cfg"
    shutil.copytree(default_config_dir(), cfg)
    (tmp_path / "al.yaml").write_text(ALERTS)
    proc = run_cli(
        ["--config", str(cfg), "suite", "alerts", "--scenarios", "al.yaml", "--run-id", "al"]
        + ["--set", "/**.reaction_latency_steps=48"],
        tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    bag = tmp_path / "bags" / "al"
    params = cfg / "params_alerts.yaml"
    params.write_text(params.read_text().replace("reaction_latency_steps: 24", "reaction_latency_steps: 96"))
    policy = cfg / "alerts.yaml"
    policy.write_text(policy.read_text().replace("battery_critical: stop", "battery_critical: warn"))
    ok = run_cli(
        ["audit", str(bag), "--runs-dir", str(tmp_path / "runs")], tmp_path, timeout=120
    )  # no --config: refused
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "1/1 episodes match" in ok.stdout
    assert "context from the bag: alert_guard L=48, policy alerts.yaml sha256 " in ok.stdout
    assert "today's config" not in ok.stdout and "interrupted attempts" not in ok.stdout

    def forget(topic, msg):  # noqa: ANN001, ANN202 - as a bag recorded before contexts existed
        if topic == "/suite/request":
            msg.context_json = ""
        return msg

    copy_bag_with(bag, tmp_path / "old" / "al", forget)
    old = _audit(tmp_path, tmp_path / "old" / "al", "--no-records")
    assert old.returncode == 1 and "MISMATCH in alerts-battery_critical_descend" in old.stdout, old.stdout
    assert "suite/request carries no context_json, so the run's alert_guard policy file and L cannot be known" in (
        old.stdout
    )
    assert "note: audited with today's config" not in old.stdout
