"""Every recorded topic that is not a stream is recorded as an event topic (transient-local): its
first messages, published before the recorder's reader matched the writer, still reach the bag.
(CI: an agent's first decisions, published on a volatile reader, were missing from a bag.)"""

from __future__ import annotations

from pathlib import Path

import yaml

from alpha_matrix.core.recorder_params import DEFAULT_RECORDED_TOPICS
from alpha_matrix.ros.qos import EVENT_TOPICS, LATCHED_TOPICS, STEP_TOPIC

CONFIG = Path(__file__).resolve().parents[3] / "config"
STREAMS = {"/clock", "/joint_states", STEP_TOPIC, "/robot/step_ack", "/tf"}  # continuous: the newest matters
VIEW = "/scene/"  # what a viewer reads, one a step batch: a stream too


def _recorded() -> set[str]:
    topics = set(DEFAULT_RECORDED_TOPICS)
    for path in CONFIG.glob("params*.yaml"):
        recorder = (yaml.safe_load(path.read_text()) or {}).get("recorder") or {}
        topics |= set((recorder.get("ros__parameters") or {}).get("topics") or [])
    return {t.split("=", 1)[0] for t in topics}


def test_every_recorded_event_topic_is_transient_local_in_the_recorder():
    events = {t for t in _recorded() if t not in STREAMS | LATCHED_TOPICS and not t.startswith(("/camera/", VIEW))}
    assert {"/agent/decisions", "/agent/observations"} <= events
    assert events <= EVENT_TOPICS, sorted(events - EVENT_TOPICS)


def test_what_is_sent_once_is_recorded_transient_local():
    """/robot_description and /tf_static go out once, at start-up, before the recorder matches, and
    /scene/robot once per /robot_description."""
    assert LATCHED_TOPICS == {"/robot_description", "/tf_static", "/scene/robot"} and LATCHED_TOPICS <= _recorded()


def test_step_acks_are_flow_control_not_recorded_evidence():
    """No audit reads them; recorded, every ack went out twice and the recorder read them all."""
    assert "/robot/step_ack" not in _recorded()
