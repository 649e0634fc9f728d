"""The driver contract (README, "Driver contract") as clauses judged from what a live driver did.

`alpha-matrix check-driver` (ros/driver_check.py) runs one scripted exchange against a driver
and records what it saw in `DriverFacts`; `judge` turns the facts into a pass/fail row per
clause. Judging is kept here, apart from ROS, so every clause is tested on constructed facts.

A real-time driver (``--real-time``: a real arm, or nodes/arm_adapter.py on one) runs on the
arm's clock: it cannot hold its steps back for a consumer's ack, land a stop at exactly
decision + L, or refuse a stop as late (that would leave the arm moving). For it those three
clauses are replaced by what it must do instead: a stop is accepted whenever it comes, it cuts
the running command (CANCELLED), and the time from its decision to the arm at rest is measured
(CommandStatus.stop_to_rest_s) and printed. Steps pass while it idles, so a command starts after
the previous one rather than right after it. Every other clause stays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# name -> (type, transient_local required); every publisher reliable (the depth is the driver's).
TOPICS = {
    "/clock": ("rosgraph_msgs/msg/Clock", False),
    "/joint_states": ("sensor_msgs/msg/JointState", False),
    "/robot/step_batch": ("alpha_matrix_interfaces/msg/StepBatch", True),
    "/robot/command_status": ("alpha_matrix_interfaces/msg/CommandStatus", True),
}
SERVICES = {
    "/robot/reset": "alpha_matrix_interfaces/srv/Reset",
    "/robot/move_to": "alpha_matrix_interfaces/srv/MoveTo",
    "/robot/gripper": "alpha_matrix_interfaces/srv/Gripper",
    "/robot/hold": "alpha_matrix_interfaces/srv/Hold",
    "/robot/protective_stop": "alpha_matrix_interfaces/srv/ProtectiveStop",
    "/robot/observe": "alpha_matrix_interfaces/srv/Observe",
}
ACK_TOPIC = ("/robot/step_ack", "alpha_matrix_interfaces/msg/StepAck")


@dataclass(frozen=True)
class Publisher:
    type: str
    reliable: bool
    transient_local: bool


@dataclass(frozen=True)
class Status:
    """A command's terminal CommandStatus, as far as the contract cares."""

    state: str  # "DONE" | "CANCELLED" | "none" (never arrived)
    start_step: int = 0
    end_step: int = 0
    message: str = ""
    objects: int = 0  # object poses in the observation
    joints: int = 0
    finite: bool = True  # grasp position and joints finite
    stop_to_rest_s: float = 0.0  # a real-time driver's measured decision-to-rest time of the stop that cut it


@dataclass(frozen=True)
class Reply:
    accepted: bool
    message: str = ""
    command_id: int = 0
    apply_step: int = 0
    reach_error: float = 0.0


@dataclass
class DriverFacts:
    publishers: dict[str, list[Publisher]] = field(default_factory=dict)
    ack_subscribers: list[str] = field(default_factory=list)  # types of the robot/step_ack readers
    services: dict[str, list[str]] = field(default_factory=dict)
    reset: Reply | None = None
    settle: Status | None = None
    settle_stream: list[int] = field(default_factory=list)  # steps seen in the stream up to the settle's end
    far_move: Reply | None = None
    bad_gripper: Reply | None = None
    validate_only: Reply | None = None
    move: Reply | None = None
    moved: Status | None = None
    grip: Reply | None = None  # real time: a gripper command after the move (its own controller on a real arm)
    gripped: Status | None = None
    stream_after_move: list[int] = field(default_factory=list)  # every step seen, in arrival order
    withheld_ack: int | None = None  # gating: the ack held back at this step ...
    ran_to_while_withheld: int | None = None  # ... and the last step the driver ran meanwhile
    late_stop: Reply | None = None
    stop_decision: int = 0
    stop: Reply | None = None
    stopped: Status | None = None  # the command the stop cut
    move_during_stop: Reply | None = None
    release: Reply | None = None
    move_while_other_holds: Reply | None = None  # real time: released our own hold, a second requester's remains
    release_other: Reply | None = None
    after_release: Status | None = None
    budget_hold: Status | None = None
    move_after_budget: Reply | None = None


@dataclass(frozen=True)
class Clause:
    name: str
    ok: bool | None  # None: not checked (says why)
    detail: str


def _status_ok(s: Status | None, what: str) -> tuple[bool, str]:
    if s is None or s.state == "none":
        return False, f"{what}: no terminal status arrived"
    if s.objects == 0 or s.joints == 0 or not s.finite:
        return False, f"{what}: the status lacks its observation ({s.objects} objects, {s.joints} joints)"
    return True, ""


def _command(
    reply: Reply | None, status: Status | None, what: str, start: int, end: int | None = None, exact: bool = True
) -> list[str]:
    """A command queued (accepted), ended with its observation, over the steps it should have run
    (``exact`` False: starting at ``start`` or later, as on a real-time driver's clock)."""
    problems = (
        [] if reply is not None and reply.accepted else [f"{what} refused: {reply.message if reply else 'no reply'}"]
    )
    ok, why = _status_ok(status, f"the {what}")
    if not ok:
        problems.append(why)
    elif status and status.state != "DONE":
        problems.append(f"the {what} ended {status.state}: {status.message}")
    elif status and (
        (status.start_step != start if exact else status.start_step < start)
        or (end is not None and status.end_step != end)
    ):
        span = f"{start}..{end}" if end is not None else f"from {start} (right after the previous command)"
        span = span if exact else f"from {start} on (after the previous command)"
        problems.append(f"the {what} ran steps {status.start_step}..{status.end_step}, expected {span}")
    return problems


def judge(
    facts: DriverFacts, latency: int, budget: int, settle: int, gating: bool, real_time: bool = False
) -> list[Clause]:
    """One row per clause of the contract, in the order a driver author would fix them; with
    ``real_time`` the three a real-time driver cannot meet replaced (module docstring)."""
    out: list[Clause] = []

    def row(name: str, problems: list[str], good: str) -> None:
        out.append(Clause(name, not problems, "; ".join(problems) if problems else good))

    problems = []
    for topic, (type_, latched) in TOPICS.items():
        pubs = facts.publishers.get(topic, [])
        if not pubs:
            problems.append(f"{topic}: no publisher")
        elif any(p.type != type_ for p in pubs):
            problems.append(f"{topic}: type {pubs[0].type}, expected {type_}")
        elif not all(p.reliable for p in pubs) or (latched and not all(p.transient_local for p in pubs)):
            problems.append(f"{topic}: QoS must be reliable{', transient-local' if latched else ''}")
    if ACK_TOPIC[1] not in facts.ack_subscribers:
        problems.append(f"{ACK_TOPIC[0]}: the driver does not subscribe ({ACK_TOPIC[1]})")
    for name, type_ in SERVICES.items():
        types = facts.services.get(name, [])
        if type_ not in types:
            problems.append(f"{name}: {'type ' + ', '.join(types) if types else 'not served'}, expected {type_}")
    row("interfaces: names, types, QoS", problems, f"{len(TOPICS) + 1} topics, {len(SERVICES)} services")

    row(
        "reset: steps restart at 1, DONE with the first observation",
        _command(facts.reset, facts.settle, "reset", 1, settle),
        f"settle 1..{settle}",
    )

    expected = list(range(1, settle + 1))
    row(
        "step stream: every step once, in order",
        [] if facts.settle_stream == expected else [_stream_problem(facts.settle_stream, expected)],
        f"{settle} steps",
    )

    problems = []
    if facts.far_move is None or facts.far_move.accepted or facts.far_move.reach_error <= 0:
        problems.append("an unreachable target was not refused with its reach_error")
    if facts.bad_gripper is None or facts.bad_gripper.accepted:
        problems.append("a finger width outside [0, 0.08] m was not refused")
    if facts.validate_only is None or not facts.validate_only.accepted or facts.validate_only.command_id != 0:
        problems.append("validate_only did not answer accepted with command_id 0 (nothing queued)")
    row("refusals before motion", problems, "unreachable, bad width refused; validate_only queues nothing")

    problems = _command(facts.move, facts.moved, "move", settle + 1, exact=not real_time)
    if real_time:
        after = facts.moved.end_step + 1 if facts.moved is not None else settle + 1
        problems += _command(facts.grip, facts.gripped, "gripper command", after, exact=False)
    row(
        "commands queue, end with one terminal status and its observation",
        problems,
        "move and gripper command DONE with observation" if real_time else "DONE with observation",
    )

    if real_time:
        out += _real_time_stops(facts)
    elif not gating:
        out.append(Clause("bounded lookahead: never beyond ack + L", None, "not checked (--gating: the driver waits for check_driver's acks)"))  # fmt: skip
    else:
        held, ran = facts.withheld_ack, facts.ran_to_while_withheld
        if held is None or ran is None:
            problems = ["the exchange never reached the gating check"]
        else:
            problems = (
                [] if ran <= held + latency else [f"ran to step {ran} with acks held at {held} (> {held} + {latency})"]
            )
        row("bounded lookahead: never beyond ack + L", problems, f"stopped at {ran} with acks held at {held}")

    if not real_time:
        problems = []
        if facts.late_stop is None or facts.late_stop.accepted or "late" not in facts.late_stop.message:
            problems.append("a stop decided in the past was not refused as late")
        row("late requests are refused, never applied late", problems, "refused: late")

        problems = []
        want = facts.stop_decision + latency
        if facts.stop is None or not facts.stop.accepted:
            problems.append(f"stop refused: {facts.stop.message if facts.stop else 'no reply'}")
        elif facts.stop.apply_step != want:
            problems.append(
                f"stop decided at {facts.stop_decision} applies at {facts.stop.apply_step}, expected {want}"
            )
        s = facts.stopped
        if s is None or s.state != "CANCELLED":
            problems.append("the running command was not cancelled by the stop")
        elif s.end_step != want:
            problems.append(f"the stop cut the command at step {s.end_step}, expected {want} (decision + L)")
        row(f"stops land at decision + L (L = {latency})", problems, f"decided {facts.stop_decision}, applied {want}")

    problems = []
    if facts.move_during_stop is None or facts.move_during_stop.accepted:
        problems.append("a move was accepted during a stop")
    if facts.release is None or not facts.release.accepted:
        problems.append("the release was refused")
    if real_time:  # two requesters held a stop: releasing one must leave the other's
        if facts.move_while_other_holds is None or facts.move_while_other_holds.accepted:
            problems.append("a move was accepted while another requester still held its stop")
        if facts.release_other is None or not facts.release_other.accepted:
            problems.append("the second requester's release was refused")
    ok, why = _status_ok(facts.after_release, "a hold after the release")
    if not ok or (facts.after_release and facts.after_release.state != "DONE"):
        problems.append(why or "a hold after the release did not finish")
    good = "move refused, release, hold DONE"
    if real_time:
        good = "move refused, own release leaves another's hold, hold DONE"
    row("a stop refuses motion until released", problems, good)

    problems = []
    b = facts.budget_hold
    if b is None or b.state != "CANCELLED" or b.end_step != budget:
        got = "no status" if b is None else f"{b.state} at step {b.end_step}"
        problems.append(f"a hold past the budget: {got}, expected CANCELLED at step {budget}")
    if facts.move_after_budget is None or facts.move_after_budget.accepted:
        problems.append("a move was accepted after the budget was spent")
    row(f"episode step budget ({budget} steps)", problems, f"cancelled at {budget}, then refused")
    return out


def _real_time_stops(facts: DriverFacts) -> list[Clause]:
    """What replaces bounded lookahead, late refusals and decision + L on a real-time driver."""
    out = [
        Clause(
            "bounded lookahead: never beyond ack + L",
            None,
            "not checked (real time: a real arm cannot wait for acks; it reads them)",
        )
    ]
    problems = []
    if facts.late_stop is None or not facts.late_stop.accepted:
        why = facts.late_stop.message if facts.late_stop else "no reply"
        problems.append(f"a stop decided in the past was refused ({why}): a real-time driver must stop whenever asked")
    if facts.stop is None or not facts.stop.accepted:
        problems.append(f"stop refused: {facts.stop.message if facts.stop else 'no reply'}")
    out.append(
        Clause(
            "stops are accepted at any time, never refused as late",
            not problems,
            "; ".join(problems) or "a stop decided at step 1 accepted",
        )
    )
    problems = []
    s = facts.stopped
    rest = s.stop_to_rest_s if s is not None else 0.0
    if s is None or s.state != "CANCELLED":
        problems.append("the running command was not cancelled by the stop")
    elif facts.stop is not None and s.end_step < facts.stop.apply_step:
        problems.append(
            f"the command had ended at step {s.end_step}, before the stop at step {facts.stop.apply_step}: {s.message}"
        )
    elif rest == -1.0:
        problems.append("the arm was not seen at rest after the stop (stop_to_rest_s -1)")
    elif not (rest > 0.0 and rest < float("inf")):
        problems.append(f"no measured decision-to-rest time in the cut command's status (stop_to_rest_s {rest})")
    apply = facts.stop.apply_step if facts.stop is not None else 0
    detail = (
        f"decided {facts.stop_decision}, cancel at {apply}, at rest {rest * 1000:.0f} ms after the decision"
        if not problems
        else "; ".join(problems)
    )
    out.append(Clause("a stop cuts the running command; decision to rest measured", not problems, detail))
    return out


def _stream_problem(seen: list[int], expected: list[int]) -> str:
    missing = sorted(set(expected) - set(seen))
    repeated = sorted({s for s in seen if seen.count(s) > 1})
    if missing:
        return f"{len(missing)} step(s) missing, first {missing[0]}"
    if repeated:
        return f"step(s) sent twice, first {repeated[0]}"
    return "steps out of order" if seen[: len(expected)] != expected else f"extra steps after {expected[-1]}"


def render(clauses: list[Clause]) -> str:
    """The pass/fail table check-driver prints."""
    mark = {True: "pass", False: "FAIL", None: "n/a "}
    width = max(len(c.name) for c in clauses)
    lines = [f"{mark[c.ok]}  {c.name.ljust(width)}  {c.detail}" for c in clauses]
    failed = sum(c.ok is False for c in clauses)
    lines.append(f"{len(clauses) - failed - sum(c.ok is None for c in clauses)} passed, {failed} failed")
    return "\n".join(lines)
