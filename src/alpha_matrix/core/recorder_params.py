"""The recorder's parameters and the topics every bag holds by default."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.config import (
    NodeParams,
)
from alpha_matrix.core.names import bag_name_param, run_id_param

# /clock and /joint_states are not recorded by default: every StepBatch holds every step's joints
# and its step (sim time = step / 240 Hz), and the bridge sends them only while subscribed.
DEFAULT_RECORDED_TOPICS = [
    "/robot/step_batch=alpha_matrix_interfaces/msg/StepBatch",
    "/robot/command_status=alpha_matrix_interfaces/msg/CommandStatus",
    "/executive/request=alpha_matrix_interfaces/msg/PlanRequest",
    "/executive/result=alpha_matrix_interfaces/msg/PlanExecution",
    "/episode/result=alpha_matrix_interfaces/msg/EpisodeResult",
    "/safety/events=alpha_matrix_interfaces/msg/SafetyEvent",
    "/safety/summary=alpha_matrix_interfaces/msg/SafetySummary",
    "/episode/end=alpha_matrix_interfaces/msg/EpisodeEnd",
    "/chaos/fault_events=alpha_matrix_interfaces/msg/FaultEvent",
    "/llm/replies=alpha_matrix_interfaces/msg/PlannerReply",
    "/planner/replies=alpha_matrix_interfaces/msg/PlannerReply",
    # what a viewer needs (docs/foxglove.md): the robot model, its frames, the scene
    "/robot_description=std_msgs/msg/String",
    "/tf=tf2_msgs/msg/TFMessage",
    "/tf_static=tf2_msgs/msg/TFMessage",
    "/scene/markers=visualization_msgs/msg/MarkerArray",
    "/scene/robot=visualization_msgs/msg/MarkerArray",
    "/scene/contact_force=std_msgs/msg/Float64",
    "/scene/contact_threshold=std_msgs/msg/Float64",
]
# What only a viewer reads (the robot model, its frames, scene/*): recording them or not changes no
# record, so they do not enter the config hash (a run recorded before them resumes as the same run).
VIEW_TOPICS = frozenset({"/robot_description", "/tf", "/tf_static"})
VIEW_PREFIX = "/scene/"


def hashed_topics(topics: list[str]) -> list[str]:
    """The recorder's ``topics`` as the config hash sees them: without the viewer's."""
    return [t for t in topics if not (t.partition("=")[0] in VIEW_TOPICS or t.startswith(VIEW_PREFIX))]


class RecorderParams(NodeParams):
    run_id: str = Field("", description="Bag directory name under bags_dir; set by the launcher.")
    records_run_id: str = Field(
        "",
        description="Run id of the records this bag backs, written to the bag's metadata "
        "(default: run_id up to its first '/', so a worker bag <id>/worker-k names run <id>).",
    )
    bags_dir: str = Field("bags", description="Where bags go.")
    topics: list[str] = Field(
        default_factory=lambda: list(DEFAULT_RECORDED_TOPICS), description="TOPIC=TYPE to record."
    )
    split_every_s: float = Field(2.0, gt=0.0, description="Close a bag split at least this often (and per episode).")
    graph_nodes: list[str] = Field(
        default_factory=list,
        description="The graph's other nodes, set by the resolver: ready only once each is discovered.",
    )
    ack_every_steps: int = Field(
        1,
        ge=1,
        description="Steps between two step-stream acks (1: every batch); set by the resolver from the "
        "bridge's flow window when the recorder is a flow consumer.",
    )

    _run_id_is_a_name = field_validator("run_id")(bag_name_param)
    _records_run_id_is_a_name = field_validator("records_run_id")(run_id_param)
