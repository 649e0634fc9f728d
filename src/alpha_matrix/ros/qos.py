"""The QoS profiles of the graph, one place.

STREAM: the step stream and acks: reliable, volatile; flow is bounded by the lookahead gate.
IMAGES: camera frames and their intrinsics: reliable and transient-local with a short history,
so a reader that matched a moment late (the recorder, the detector) still gets the first frames;
the lookahead gate keeps every gating reader within two frames of the bridge.
EVENTS: low-rate records (command statuses, plans, results, safety events): reliable and
transient-local with a deep history, so a subscriber matched late (the recorder, right after
start-up) still receives everything published before discovery completed.
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from alpha_matrix.core.robot.gate import STEP_STREAM_DEPTH

STREAM = QoSProfile(depth=STEP_STREAM_DEPTH, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
# The step stream itself is transient-local: a gating consumer whose reader matched a moment
# after the first batch went out still receives it (else the bridge would wait for an ack of a
# batch the consumer never saw). Volatile readers stay compatible.
STEP_STREAM = QoSProfile(
    depth=STEP_STREAM_DEPTH,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
    history=HistoryPolicy.KEEP_LAST,
)
STEP_TOPIC = "/robot/step_batch"
IMAGES = QoSProfile(
    depth=64,  # frames per image topic (6.4 s at 10 Hz)
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
    history=HistoryPolicy.KEEP_LAST,
)
IMAGE_TOPICS = frozenset({"/camera/depth/image_raw", "/camera/depth/camera_info", "/camera/color/image_raw"})
EVENTS = QoSProfile(
    depth=1000,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
    history=HistoryPolicy.KEEP_LAST,
)
EVENT_TOPICS = frozenset(
    {
        "/robot/command_status",
        "/executive/request",
        "/executive/result",
        "/episode/result",
        "/episode/end",
        "/safety/events",
        "/safety/summary",
        "/chaos/fault_events",
        "/llm/replies",
        "/planner/replies",
        "/suite/request",
        "/suite/result",
        "/robot/alerts",
        "/robot/status",
        "/proximity/estimate",
        "/sim/proximity_truth",
        "/skill/queries",
        "/agent/observations",
        "/agent/decisions",
        "/gauge/observations",
        "/gauge/readings",
        "/refusal/verdicts",
        "/ambiguity/dialogue",
        "/hazards/physics",
        "/injection/verdicts",
    }
)
# Sent once and kept for late readers (tf2_ros' static broadcaster, robot_state_publisher): the
# recorder reads them transient-local and repeats the last one at the start of every bag split.
LATCHED = QoSProfile(
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
    history=HistoryPolicy.KEEP_LAST,
)
LATCHED_TOPICS = frozenset({"/robot_description", "/tf_static", "/scene/robot"})
# A latched topic drawn from another: the recorder expects it only once it holds the source.
LATCHED_SOURCES = {"/scene/robot": "/robot_description"}
# An episode ends with one of these (the runner's result, a suite executive's result): the recorder
# closes its split there and commits the episode (recorder/commits) before the record is written.
END_TOPICS = frozenset({"/episode/result", "/suite/result"})
COMMITS_TOPIC = "commits"  # the recorder's ~/commits
READY_SERVICE = "ready"  # the recorder's ~/ready
