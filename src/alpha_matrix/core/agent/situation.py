"""What the agent may see at a decision point, per suite: the situation schemas and their builders.

A situation is built only from what the robot's side legitimately has at that moment -- the
detector's estimates, the alert messages received, the skill policy's answers, the robot's own
status -- and from the task brief a user would give. Never the answer key: no ground truth
(true distances, the person's path, the scenario's future clears), no scenario ``expect``, no
alert-class -> response table, no training distribution, no margin or hold time of a scripted
policy, no tolerance of the scorer. Each schema is closed (``extra="forbid"``), so a field can
only be added here, where test/unit/agent/test_agent_situation.py checks it against the
shipped scenario files.

``brief`` is the task as stated to the agent (it goes into the system prompt); everything else
is the moment (the user message, as compact JSON). What each brief states:

* proximity: the safety-zone radius (the user's threshold, the scenario's 1/2/3 m), the frame
  period and the robot's reaction time (facts of the cell). Not the reference's margin or
  hold time: how far inside to stop and how long to wait is the agent's judgement.
* alerts: the task the robot is doing. The rule (warn or stop per alert, refuse commands while
  stopped, resume after the clear) is in the prompt template; which alert calls for which
  response is not stated anywhere: that is what is measured.
* confidence: the goals (object -> targets in order of preference), the user's instruction,
  the named zones, and the confidence threshold (the rule "never call below threshold" means
  nothing without it).
* gauge: the instrument's data sheet (name, kind, unit, scale, tick spacing); the moment is
  whether the image is attached and, once asked, the classical reader's answer. Never the
  value, the degradation or the readable label.
* hazards: the robot's data sheet (name, payload, reach); the moment is ``Shown``: the scene's
  objects and relations, the action sequence, the initial state and the trigger. Never the
  consequence, its severity or the measured values (the physics' answer key).
* refusal: the user's instruction and the constraints, as text (the item's typed predicates,
  its label and the violated kind stay with the scorer and the guard); the moment is the output
  mode and the observed scene (objects, people, keep-out zones), with the overhead image.

Builders take the runner's records (duck-typed where a ROS message would do) and keep the
window the schema promises; ``situation_json`` is what goes into ``Observation.situation``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from alpha_matrix.core.agent.protocol import Observation, Tool
from alpha_matrix.core.agent.tools import ALERT_TOOLS, PROXIMITY_TOOLS, confidence_tools, skill_arguments
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.confidence.agent import Task
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, Skill, SkillState, pick, place
from alpha_matrix.core.suites.gauge.tools import gauge_tools
from alpha_matrix.core.suites.hazards.scenario import Shown
from alpha_matrix.core.suites.hazards.tools import HAZARDS_TOOLS
from alpha_matrix.core.suites.refusal.schema import SceneModel

WINDOW = 5  # the current estimate and the four before it
BASE_XY = (0.1, 0.0)  # the robot base axis (DetectorConfig.base_xy): bearings are measured from it
LOOKAHEAD_Z = 0.80  # a look-ahead's block is lifted to the carry height (as SkillAgent predicts it)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def _r(v: float, nd: int = 3) -> float:
    return round(float(v), nd) + 0.0  # + 0.0 turns -0.0 into 0.0


# ----------------------------------------------------------------------------- proximity
class ProximityBrief(_Strict):
    threshold_m: float = Field(gt=0.0)  # the robot must be stopped while a person is closer than this
    frame_period_s: float = Field(gt=0.0)  # one estimate this often
    reaction_s: float = Field(ge=0.0)  # a stop requested now is in effect this much later


class EstimateView(_Strict):
    """One frame of the depth-only detector, as it reports it."""

    step: int = Field(ge=0)
    t_s: float  # sim time of the frame
    detected: bool
    distance_m: float | None  # nearest person's horizontal distance to the base axis; None: nobody seen
    confidence: float  # the detector's: of the person when detected, of a clear view when not
    people: int = Field(ge=0)  # person-sized blobs in view
    nearest_xy: tuple[float, float] | None = None  # the point that set the distance (world x, y, m)
    bearing_deg: float | None = None  # its direction from the base axis: 0 = +x, 90 = +y


class ProximityRobotView(_Strict):
    stopped: bool  # a protective stop is in effect
    at_safe_pose: bool = False
    command: str = ""  # the kind of command it is running ("move", "hold", ...); "" when idle


class ProximitySituation(_Strict):
    suite: Literal["proximity"] = "proximity"
    brief: ProximityBrief
    step: int = Field(ge=0)
    estimates: tuple[EstimateView, ...] = Field(min_length=1, max_length=WINDOW)  # oldest first
    robot: ProximityRobotView


@dataclass(frozen=True)
class FrameEstimate:
    """One detector frame as the runner has it (ProximityEstimate fields, plus the nearest point)."""

    step: int
    detected: bool
    distance: float  # inf when nothing is detected
    confidence: float
    blob_count: int
    nearest: tuple[float, float] | tuple[float, float, float] | None = None


def frame_estimate(msg: Any) -> FrameEstimate:
    """A ProximityEstimate message (or any object with its fields) as a ``FrameEstimate``."""
    nearest = getattr(msg, "nearest", None)
    return FrameEstimate(
        int(msg.step), bool(msg.detected), float(msg.distance), float(msg.confidence), int(msg.blob_count),
        (float(nearest[0]), float(nearest[1])) if nearest else None,
    )  # fmt: skip


def estimate_view(e: FrameEstimate, timestep: float, base_xy: tuple[float, float] = BASE_XY) -> EstimateView:
    seen = e.detected and math.isfinite(e.distance)
    xy = (_r(e.nearest[0]), _r(e.nearest[1])) if seen and e.nearest is not None else None
    bearing = None if xy is None else _r(math.degrees(math.atan2(xy[1] - base_xy[1], xy[0] - base_xy[0])) % 360.0, 1)
    return EstimateView(
        step=e.step,
        t_s=_r(e.step * timestep),
        detected=seen,
        distance_m=_r(e.distance) if seen else None,
        confidence=_r(e.confidence),
        people=e.blob_count,
        nearest_xy=xy,
        bearing_deg=bearing,
    )


def proximity_situation(
    history: Sequence[FrameEstimate],
    robot: ProximityRobotView,
    threshold_m: float,
    *,
    timestep: float = 1.0 / 240.0,
    frame_every: int = 24,
    reaction_steps: int = 24,
    window: int = WINDOW,
) -> ProximitySituation:
    """The decision on the latest frame of ``history`` (frames in step order; only the last
    ``window`` are shown). ``threshold_m`` is the run's threshold: the brief's safety zone."""
    if not history:
        raise ValueError("a proximity decision needs at least one estimate")
    shown = list(history)[-min(window, WINDOW) :]
    if any(b.step <= a.step for a, b in zip(shown, shown[1:], strict=False)):
        raise ValueError("estimates must be in increasing step order")
    return ProximitySituation(
        brief=ProximityBrief(
            threshold_m=_r(threshold_m),
            frame_period_s=_r(frame_every * timestep),
            reaction_s=_r(reaction_steps * timestep),
        ),
        step=shown[-1].step,
        estimates=tuple(estimate_view(e, timestep) for e in shown),
        robot=robot,
    )


# ----------------------------------------------------------------------------- alerts
class AlertsBrief(_Strict):
    task: str = Field(min_length=1)


class AlertMessage(_Strict):
    """One alert message as received (HardwareAlert / ``Alert.to_json``), and its clear once received."""

    alert_id: str
    alert_class: str = Field(alias="class")
    severity: str
    step: int
    payload: dict[str, Any] = Field(default_factory=dict)
    source: str = "injected"
    cleared_at_step: int | None = None  # only once the clear has been received


class AlertsEvent(_Strict):
    """What calls for a decision now: an alert raised, an alert cleared, or a command waiting."""

    kind: Literal["alert", "clear", "command"]
    step: int = Field(ge=0)
    alert_id: str = ""  # the alert raised or cleared


class AlertsRobotView(_Strict):
    stopped: bool  # a protective stop is in effect at ``step``
    battery_pct: float | None = None
    busy: bool = False  # running a command


class AlertsSituation(_Strict):
    suite: Literal["alerts"] = "alerts"
    brief: AlertsBrief
    step: int = Field(ge=0)
    event: AlertsEvent
    alerts: tuple[AlertMessage, ...]  # every alert received so far, in arrival order
    pending_command: str | None = None  # the command waiting to run (a command event's)
    robot: AlertsRobotView


def alert_messages(received: Iterable[AlertEvent]) -> tuple[AlertMessage, ...]:
    """The alerts received (raised), each with its clear if that was received too; arrival order."""
    out: dict[str, AlertMessage] = {}
    for ev in received:
        a = ev.alert
        if ev.cleared:
            if a.alert_id in out and out[a.alert_id].cleared_at_step is None:
                out[a.alert_id] = out[a.alert_id].model_copy(update={"cleared_at_step": ev.step})
        elif a.alert_id not in out:  # a repeat of an alert still listed changes nothing
            out[a.alert_id] = AlertMessage.model_validate(
                {"alert_id": a.alert_id, "class": a.cls.value, "severity": a.severity.value, "step": ev.step,
                 "payload": dict(a.payload), "source": a.source}
            )  # fmt: skip
    return tuple(out.values())


def alerts_situation(
    received: Sequence[AlertEvent],
    event: AlertsEvent,
    robot: AlertsRobotView,
    task: str,
    pending_command: str | None = None,
) -> AlertsSituation:
    """``received``: every HardwareAlert message so far (raised and cleared, as
    guard_feed.alert_event makes them), the event's own included. Never the scenario's schedule:
    an alert's clear shows only once it has been received."""
    if event.kind == "command" and not pending_command:
        raise ValueError("a command event needs the pending command")
    if event.kind != "command" and not any(ev.alert.alert_id == event.alert_id for ev in received):
        raise ValueError(f"event {event.kind} of {event.alert_id!r}, which was not received")
    return AlertsSituation(
        brief=AlertsBrief(task=task),
        step=event.step,
        event=event,
        alerts=alert_messages(received),
        pending_command=pending_command if event.kind == "command" else None,
        robot=robot,
    )


# ----------------------------------------------------------------------------- confidence
class ConfidenceGoal(_Strict):
    object: str
    targets: tuple[str, ...]  # in order of preference: a zone name or on=<block>


class ConfidenceBrief(_Strict):
    instruction: str = ""  # the user's words, when the task has them
    goals: tuple[ConfidenceGoal, ...] = Field(min_length=1)
    threshold: float = Field(gt=0.0, le=1.0)  # never call a skill checked below this
    zones: dict[str, tuple[float, float, float]]  # named place targets: block-centre position, m


class SkillStateView(_Strict):
    positions: dict[str, tuple[float, float, float]]  # block centres, m
    holding: str | None = None
    gripper_width: float  # total finger opening, m
    picked_from: tuple[float, float] | None = None  # where the block in the gripper was picked (x, y)


class CheckView(_Strict):
    instruction: str
    confidence: float
    lookahead: bool  # a place estimated as if the block were picked first


class CallView(_Strict):
    instruction: str
    succeeded: bool  # the skill's physical post-condition held afterwards
    refused: str = ""  # why the call was not run (the confidence gate's reason), "" when it ran


class ConfidenceSituation(_Strict):
    suite: Literal["confidence"] = "confidence"
    brief: ConfidenceBrief
    step: int = Field(ge=0)
    state: SkillStateView
    candidates: tuple[str, ...]  # the sub-tasks the goals allow now (and a put-back while holding)
    checks: tuple[CheckView, ...] = ()  # since the last skill finished, in order
    calls: tuple[CallView, ...] = ()  # every skill called so far, in order
    replans: tuple[str, ...] = ()  # reasons given since the last skill finished


def _target(skill: Skill) -> str:
    return str(skill_arguments(skill)["target"])


def confidence_brief(task: Task, threshold: float, geo: SceneGeometry) -> ConfidenceBrief:
    return ConfidenceBrief(
        instruction=task.instruction,
        goals=tuple(ConfidenceGoal(object=g.obj, targets=tuple(_target(t) for t in g.targets)) for g in task.goals),
        threshold=threshold,
        zones={n: (_r(z[0]), _r(z[1]), _r(z[2])) for n, z in sorted(geo.zones.items())},
    )


def candidates(brief: ConfidenceBrief, holding: str | None, picked_from: tuple[float, float] | None) -> tuple[str, ...]:
    out = [pick(g.object).text for g in brief.goals]
    out += [f"place({g.object}, {t})" for g in brief.goals for t in g.targets]
    if holding is not None and picked_from is not None:
        out.append(place(holding, at=picked_from).text)
    return tuple(out)


def confidence_situation(
    brief: ConfidenceBrief,
    state: SkillState,
    step: int,
    *,
    picked_from: tuple[float, float] | None = None,
    checks: Sequence[CheckView] = (),
    calls: Sequence[CallView] = (),
    replans: Sequence[str] = (),
) -> ConfidenceSituation:
    """The state the robot reports after its last skill, and the agent's own exchanges so far.
    ``picked_from``: where the held block was before its pick (for a put-back)."""
    held_from = picked_from if state.holding is not None else None
    return ConfidenceSituation(
        brief=brief,
        step=step,
        state=SkillStateView(
            positions={n: (_r(p[0]), _r(p[1]), _r(p[2])) for n, p in sorted(state.positions.items())},
            holding=state.holding,
            gripper_width=_r(state.gripper_width, 4),
            picked_from=None if held_from is None else (_r(held_from[0]), _r(held_from[1])),
        ),
        candidates=candidates(brief, state.holding, held_from),
        checks=tuple(checks),
        calls=tuple(calls),
        replans=tuple(replans),
    )


def check_state(skill: Skill, state: SkillState, geo: SceneGeometry) -> tuple[SkillState, bool]:
    """The state a check_confidence call is scored on, and whether it is a look-ahead: a place of a
    block not in the gripper is scored on the state after its pick (the block lifted to the
    carry height and held), as SkillAgent predicts it; anything else on the state itself."""
    if skill.verb != "place" or state.holding == skill.obj or skill.obj not in state.positions:
        return state, False
    x, y, _ = state.positions[skill.obj]
    lifted = {**state.positions, skill.obj: (x, y, LOOKAHEAD_Z)}
    return replace(state, positions=lifted, holding=skill.obj, gripper_width=geo.size), True


# ----------------------------------------------------------------------------- gauge
class GaugeBrief(_Strict):
    """The instrument as its data sheet gives it (core/suites/gauge/faces.py): never its value."""

    gauge: str
    kind: Literal["dial", "column"]
    unit: str
    scale_min: float
    scale_max: float
    labelled_tick_every: float
    tick_every: float


class ReaderView(_Strict):
    """The classical reader's answer, once ``read_gauge`` was called."""

    value: float | None
    uncertainty: float | None
    abstained: bool
    reason: str = ""


class GaugeSituation(_Strict):
    suite: Literal["gauge"] = "gauge"
    brief: GaugeBrief
    step: int = Field(default=0, ge=0)
    image_attached: bool  # the camera image is in the observation (multimodal agents)
    reader: ReaderView | None = None


# ----------------------------------------------------------------------------- refusal
class RefusalBrief(_Strict):
    instruction: str = Field(min_length=1)  # the pick-and-place asked, in words
    constraints: str  # the constraints, in words (core/suites/refusal/text.py renders them)


class RefusalSituation(_Strict):
    """One refusal item in one output mode: a single decision, at step 0 (nothing has moved)."""

    suite: Literal["refusal"] = "refusal"
    brief: RefusalBrief
    step: int = Field(0, ge=0)
    mode: Literal["text", "pointing", "box", "tool_use"]  # = refusal.modes.MODES
    scene: SceneModel  # the observed scene: objects, people, keep-out zones


def refusal_situation(instruction: str, constraints: str, mode: str, scene: dict[str, Any]) -> RefusalSituation:
    """The situation of one item in ``mode`` (``scene``: schema.scene_json of the observed scene)."""
    return RefusalSituation.model_validate(
        {"brief": {"instruction": instruction, "constraints": constraints}, "mode": mode, "scene": scene}
    )


# ----------------------------------------------------------------------------- ambiguity
class AmbiguityBrief(_Strict):
    instruction: str = Field(min_length=1)  # the operator's words, as given: clear or not is what is measured


class BlockView(_Strict):
    name: str
    colour: str
    shape: str
    x_m: float  # grows to the operator's right
    y_m: float
    at: str | None  # the place it is in; None: on the table


class BinView(_Strict):
    name: str
    kind: Literal["bin"]
    x_m: float
    y_m: float
    colour: str


class SlotView(_Strict):
    name: str
    kind: Literal["slot"]
    x_m: float
    y_m: float
    holder: str
    index: int = Field(ge=1)


class PadView(_Strict):
    name: str
    kind: Literal["pad"]
    x_m: float
    y_m: float
    relation: str
    anchor: str  # the bin it is next to


class SceneView(_Strict):
    blocks: tuple[BlockView, ...] = Field(min_length=1)
    places: tuple[Annotated[BinView | SlotView | PadView, Field(discriminator="kind")], ...] = Field(min_length=1)


class DialogueTurn(_Strict):
    question: str
    answer: str


class AmbiguitySituation(_Strict):
    """The scene as it stands, the dialogue so far and what each skill call did. Never the item's
    category, whether it is ambiguous, what is missing, the operator's answer before it is asked,
    or the task (core/suites/ambiguity/episode.py builds it; a test checks it)."""

    suite: Literal["ambiguity"] = "ambiguity"
    brief: AmbiguityBrief
    step: int = Field(ge=0)  # the decision's index in the episode (robot time passes only in a move)
    scene: SceneView
    dialogue: tuple[DialogueTurn, ...] = ()
    events: tuple[str, ...] = ()  # one line per pick_and_place: done, or refused and why


# ----------------------------------------------------------------------------- hazards
class HazardsBrief(_Strict):
    """The robot as its data sheet gives it."""

    robot: str
    payload_kg: float = Field(gt=0.0)
    reach_m: float = Field(gt=0.0)


class HazardsSituation(_Strict):
    """One hazard scenario for a text world model: ``Shown`` (the scene, the robot, the actions,
    the initial state and the trigger), never the consequence, its severity or what was measured
    (core/suites/hazards/scenario.py: the answer key is not in the type). The outcome-explicit
    control probe alone adds ``stated_outcome``: the consequence, stated (prediction.outcome_statement)."""

    suite: Literal["hazards"] = "hazards"
    brief: HazardsBrief
    step: int = Field(0, ge=0)
    scene: Shown
    stated_outcome: str | None = Field(None, max_length=2000)


# ----------------------------------------------------------------------------- observation
Situation = (
    ProximitySituation
    | AlertsSituation
    | ConfidenceSituation
    | GaugeSituation
    | RefusalSituation
    | AmbiguitySituation
    | HazardsSituation
)


def situation_json(situation: Situation) -> dict[str, Any]:
    """The situation as ``Observation.situation``: JSON types, the wire names (alerts' ``class``)."""
    return situation.model_dump(mode="json", by_alias=True)


def tools_for(situation: Situation) -> tuple[Tool, ...]:
    if isinstance(situation, ProximitySituation):
        return PROXIMITY_TOOLS
    if isinstance(situation, AlertsSituation):
        return ALERT_TOOLS
    if isinstance(situation, GaugeSituation):
        return gauge_tools(situation.brief.unit, reader=situation.reader is None and not situation.image_attached)
    if isinstance(situation, RefusalSituation):
        from alpha_matrix.core.suites.refusal.modes import mode_tools

        return mode_tools(situation.mode, [o.name for o in situation.scene.objects])
    if isinstance(situation, AmbiguitySituation):
        from alpha_matrix.core.suites.ambiguity.episode import ambiguity_tools
        from alpha_matrix.core.suites.ambiguity.scene import scene_of

        return ambiguity_tools(scene_of(situation_json(situation)["scene"]))
    if isinstance(situation, HazardsSituation):
        return HAZARDS_TOOLS
    return confidence_tools(situation.state.positions, situation.brief.zones)


def observation(situation: Situation, episode_id: str, decision_index: int) -> Observation:
    """One decision point: the situation with the suite's tools."""
    return Observation(
        suite=situation.suite,
        episode_id=episode_id,
        step=situation.step,
        decision_index=decision_index,
        situation=situation_json(situation),
        tools=tools_for(situation),
    )


SITUATIONS: Mapping[
    str,
    type[ProximitySituation]
    | type[AlertsSituation]
    | type[ConfidenceSituation]
    | type[GaugeSituation]
    | type[RefusalSituation]
    | type[AmbiguitySituation]
    | type[HazardsSituation],
] = {
    "proximity": ProximitySituation,
    "alerts": AlertsSituation,
    "confidence": ConfidenceSituation,
    "gauge": GaugeSituation,
    "refusal": RefusalSituation,
    "ambiguity": AmbiguitySituation,
    "hazards": HazardsSituation,
}


def parse_situation(obs: Observation) -> Situation:
    """An observation's situation as its suite's model (ValueError for an unknown suite or a bad shape)."""
    model = SITUATIONS.get(obs.suite)
    if model is None:
        raise ValueError(f"no situation schema for suite {obs.suite!r}")
    return model.model_validate(obs.situation)
