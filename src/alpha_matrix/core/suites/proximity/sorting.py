"""The sorting task and the safe-pose transition: put it down, step back, carry on (no ROS, no simulator).

The proximity evaluation this suite follows: when a person enters the workspace during a sorting
task, the robot puts down what it holds, moves to a safe posture, and resumes once the person has
left. ``SortingController`` is that behaviour as a pure state machine: between two commands it is
given the robot's last observation (grasp position, object poses), the detector's new frames
(distance and the nearest point of the person) and, with an agent under test, the agent's new
calls; it answers with the next command. Every command is one of the driver contract's (a move
of the grasp frame, a finger command, a hold), and moves are cut into pieces of one camera frame
period (``chunk_steps``), so a decision is taken at most one frame after the frame that calls for
it. Simulated time only advances while a command runs, so what the controller sees at a command
boundary depends on the steps alone: same seed, same commands.

**Keeping away from the person (ISO/TS 15066 speed and separation monitoring).** The transition
never closes the distance it starts from:

* the put-down spot and the safe posture are chosen, among configured candidates (and the spot the
  block was picked from), farthest from the person's *measured* nearest point, and a candidate is
  taken only if no point of its whole path (every straight segment, not only its corners) is
  nearer that point than the grasp frame is now (``path_keeps_away``);
* before each piece of motion the check is repeated against the latest measured point: a piece
  that would bring the arm nearer is not sent (the arm holds instead: ``held_back``);
* when the latest estimate is already inside the stop limit (threshold + margin) the controller
  sends no motion at all: the guard's protective stop is the fallback, and the transition waits.

Trigger: with no agent, the guard's estimate within ``stop limit + trigger_margin``; with an agent,
its ``safe_pose`` call (the guard's protective stop stays in force either way). Resume: with no
agent, once no estimate has been within the trigger distance for ``resume_s``; with an agent,
its ``continue_task`` after the safe pose. After the resume the current block is planned again
from its observed pose: re-grasped where it was put down, then sorted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from alpha_matrix.core.robot.commands import Command

Vec3 = tuple[float, float, float]
XY = tuple[float, float]

TABLE_BLOCK_Z = 0.65  # a block resting on the table: its centre, m (spawn 0.651, the zone 0.65)
Phase = Literal["approach", "holding", "carrying", "between"]  # approach: a segment on its way to a block
Mode = Literal["task", "transition", "safe", "done"]


@dataclass(frozen=True)
class SortingConfig:
    """The task (blocks to bins) and the transition's candidates and speeds (the scenario file's ``sorting``)."""

    blocks: tuple[str, ...] = ("red", "green", "blue")
    bins: tuple[XY, ...] = ((0.45, 0.38), (0.6, 0.38), (0.75, 0.38))  # one per block, in order
    put_down_spots: tuple[XY, ...] = ((0.35, -0.38), (0.7, -0.38), (0.3, 0.15), (0.3, 0.4))
    safe_poses: tuple[Vec3, ...] = ((0.3, 0.3, 0.95), (0.3, -0.3, 0.95), (0.55, 0.0, 0.95))
    trigger_margin: float = 2.5  # m beyond the stop limit: the transition starts there
    resume_s: float = 1.5  # clear of the trigger distance this long, then resume
    speed: float = 0.4  # m/s, the task's moves
    transition_speed: float = 0.9  # m/s, the transition's moves
    chunk_steps: int = 24  # a move is sent in pieces of one frame period
    carry_z: float = 0.8  # grasp-frame height while carrying, m
    hover_dz: float = 0.12
    grasp_dz: float = -0.005
    place_dz: float = 0.007
    grip_steps: int = 60
    release_steps: int = 60
    settle_steps: int = 48  # after a release, fingers open, before lifting
    free_radius: float = 0.1  # a spot is free when no other block is this near (xy), m
    keep_away_tolerance: float = 0.01  # m a path may come nearer the person than the start: the arm's tracking error
    hold_steps: int = 24

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> SortingConfig:
        """From ``as_json`` (or the scenario file's task, lists for tuples)."""
        lists = {
            "blocks": tuple(str(x) for x in d.get("blocks", SortingConfig.blocks)),
            "bins": tuple((float(a), float(b)) for a, b in d.get("bins", SortingConfig.bins)),
            "put_down_spots": tuple(
                (float(a), float(b)) for a, b in d.get("put_down_spots", SortingConfig.put_down_spots)
            ),
            "safe_poses": tuple(
                (float(a), float(b), float(c)) for a, b, c in d.get("safe_poses", SortingConfig.safe_poses)
            ),
        }
        base = SortingConfig(**lists)  # type: ignore[arg-type]
        numbers = {k: type(getattr(base, k))(v) for k, v in d.items() if k not in lists}
        return replace(base, **numbers)


# ----------------------------------------------------------------------------- geometry
def _d2(a: Sequence[float], b: Sequence[float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def segment_distance(p: XY, a: Sequence[float], b: Sequence[float]) -> float:
    """Horizontal distance from ``p`` to the segment a-b (only x, y count)."""
    ax, ay, bx, by = a[0], a[1], b[0], b[1]
    dx, dy = bx - ax, by - ay
    n = dx * dx + dy * dy
    t = 0.0 if n == 0.0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / n))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def path_keeps_away(person: XY, start: Sequence[float], waypoints: Sequence[Sequence[float]], tol: float = 0.0) -> bool:
    """No point of the polyline start -> waypoints is nearer ``person`` (xy) than ``start`` is, less ``tol``."""
    floor = _d2(person, start) - tol - 1e-9
    pts = [start, *waypoints]
    return all(segment_distance(person, a, b) >= floor for a, b in zip(pts, pts[1:], strict=False))


def move_chunks(start: Sequence[float], target: Vec3, speed: float, chunk: int, timestep: float) -> list[Command]:
    """A straight move at ``speed`` as pieces of ``chunk`` steps (at least one piece)."""
    dist = math.dist(start, target)
    n = max(1, math.ceil(dist / speed / timestep / chunk))
    out = []
    for i in range(1, n + 1):
        f = i / n
        tgt = tuple(round(float(s + f * (t - s)), 6) for s, t in zip(start, target, strict=True))
        out.append(Command("move", chunk, target=(tgt[0], tgt[1], tgt[2])))
    return out


# ----------------------------------------------------------------------------- what the controller is given
@dataclass(frozen=True)
class ArmView:
    """The robot at a command boundary: the last status's observation."""

    step: int
    grasp: Vec3
    objects: dict[str, Vec3]


@dataclass(frozen=True)
class Seen:
    """One detector frame: the estimated distance (inf: nobody) and the nearest point (x, y) if seen."""

    step: int
    distance: float
    nearest: XY | None


@dataclass
class Segment:
    kind: Literal["move", "gripper", "hold"]
    phase: Phase
    target: Vec3 | None = None
    width: float = 0.0
    steps: int = 0
    speed: float = 0.0
    label: str = ""


@dataclass
class TransitionEvent:
    """One safe-pose transition as the controller ran it (its bookkeeping; verdicts: transition.py)."""

    source: str  # guard | agent
    trigger_step: int  # the frame it was decided on
    start_step: int  # the command boundary it began at
    phase: str  # approach | holding | carrying | between
    block: str | None  # held at the trigger
    person_xy: list[float] | None
    distance: float | None  # the estimate at the trigger
    spot: list[float] | None = None  # the put-down spot chosen (xy)
    spot_kind: str = ""  # free | origin | "" (none needed or none found)
    safe_pose: list[float] | None = None
    plan: str = "ok"  # ok | no_put_down_spot | no_safe_path | inside_stop
    released_step: int | None = None  # the end step of the put-down's release
    safe_step: int | None = None  # the end step of the last move to the safe pose
    held_back: int = 0  # pieces not sent because they would have neared the person
    waited_inside_stop: int = 0  # boundaries spent waiting with the person inside the stop limit
    resume_step: int | None = None  # the boundary at which the task resumed


class SortingController:
    """The sorting task with the safe-pose transition (module docstring)."""

    def __init__(
        self,
        cfg: SortingConfig,
        stop_limit: float,
        timestep: float = 1.0 / 240.0,
        agent: bool = False,
    ) -> None:
        self.cfg, self.stop_limit, self.dt, self.agent = cfg, stop_limit, timestep, agent
        self.trigger_distance = stop_limit + cfg.trigger_margin
        self.mode: Mode = "task"
        self.block_i = 0
        self.program: list[Segment] = []
        self.pending: list[Command] = []  # pieces of the current move segment
        self.pending_phase: Phase = "between"
        self.current: Segment | None = None
        self.holding: str | None = None
        self.origins: dict[str, Vec3] = {}
        self.events: list[TransitionEvent] = []
        self.last_near: int | None = None
        self.latest: Seen | None = None
        self.person: XY | None = None
        self.agent_tool = ""
        self.agent_safe_step: int | None = None
        self.stop_refusals = 0
        self.placed: list[str] = []
        self.planned: str | None = None  # the block whose program is running

    # -- inputs --------------------------------------------------------------------------------
    def _take(self, frames: Sequence[Seen], calls: Sequence[tuple[int, str]]) -> tuple[Seen | None, int | None]:
        """Feed new frames and agent calls; the frame that triggers a transition (guard) and the
        step of an agent's ``safe_pose`` call, if any."""
        trigger: Seen | None = None
        for f in frames:
            self.latest = f
            if f.nearest is not None:
                self.person = f.nearest
            if f.distance < self.trigger_distance:
                self.last_near = f.step
                if trigger is None:
                    trigger = f
        agent_step = None
        for step, tool in calls:
            if tool in ("safe_pose", "robot_stop", "continue_task"):
                self.agent_tool = tool
                if tool == "safe_pose":
                    self.agent_safe_step = step
                    agent_step = step if agent_step is None else agent_step
        return trigger, agent_step

    def _inside_stop(self) -> bool:
        return self.latest is not None and self.latest.distance < self.stop_limit

    # -- the task ------------------------------------------------------------------------------
    def _plan_block(self, view: ArmView) -> None:
        """The current block's pick-and-place from its observed pose (again after a put-down)."""
        c = self.cfg
        while self.block_i < len(c.blocks) and c.blocks[self.block_i] in self.placed:
            self.block_i += 1
        if self.block_i >= len(c.blocks):
            self.mode, self.program, self.planned = "done", [], None
            return
        name = c.blocks[self.block_i]
        self.planned = name
        bx, by, bz = view.objects[name]
        self.origins.setdefault(name, (bx, by, bz))
        gz = bz + c.grasp_dz
        px, py = c.bins[self.block_i]
        pz = TABLE_BLOCK_Z + c.place_dz
        up = max(view.grasp[2], c.carry_z)
        if self.holding == name:  # retracted with it in the fingers: carry on from the carry
            self.program = [
                Segment("move", "carrying", (view.grasp[0], view.grasp[1], up), speed=c.speed, label="up"),
                Segment("move", "carrying", (px, py, c.carry_z), speed=c.speed, label="carry"),
                Segment("move", "carrying", (px, py, pz), speed=c.speed / 2, label="lower"),
                Segment("gripper", "carrying", width=0.08, steps=c.release_steps, label="release"),
                Segment("hold", "between", steps=c.settle_steps, label="settle"),
                Segment("move", "between", (px, py, c.carry_z), speed=c.speed, label="retreat"),
            ]
            return
        self.program = [
            Segment("move", "approach", (view.grasp[0], view.grasp[1], up), speed=c.speed, label="up"),
            Segment("move", "approach", (bx, by, gz + c.hover_dz), speed=c.speed, label="hover"),
            Segment("move", "approach", (bx, by, gz), speed=c.speed / 2, label="grasp"),
            Segment("gripper", "holding", width=0.0, steps=c.grip_steps, label="grip"),
            Segment("move", "holding", (bx, by, c.carry_z), speed=c.speed, label="lift"),
            Segment("move", "carrying", (px, py, c.carry_z), speed=c.speed, label="carry"),
            Segment("move", "carrying", (px, py, pz), speed=c.speed / 2, label="lower"),
            Segment("gripper", "carrying", width=0.08, steps=c.release_steps, label="release"),
            Segment("hold", "between", steps=c.settle_steps, label="settle"),
            Segment("move", "between", (px, py, c.carry_z), speed=c.speed, label="retreat"),
        ]
        if abs(view.grasp[2] - up) < 1e-6:
            self.program.pop(0)

    def _phase(self) -> Phase:
        """Where in the block's work the arm is: before the grasp, holding it, carrying it, or between picks."""
        seg = self.current or (self.program[0] if self.program else None)
        if seg is None or self.mode == "done":
            return "between"
        if seg.label == "lift" or (seg.label == "grip" and self.holding is not None):
            return "holding"
        if seg.label in ("carry", "lower", "release"):
            return "carrying"
        return "between"  # on its way to the next block, or back up from the last: between picks

    # -- the transition ------------------------------------------------------------------------
    def _start_transition(self, view: ArmView, source: str, trigger_step: int) -> None:
        ev = TransitionEvent(
            source=source, trigger_step=trigger_step, start_step=view.step, phase=self._phase(), block=self.holding,
            person_xy=None if self.person is None else [round(v, 6) for v in self.person],
            distance=None if self.latest is None or not math.isfinite(self.latest.distance)
            else round(self.latest.distance, 6),
        )  # fmt: skip
        self.events.append(ev)
        self.mode, self.pending, self.current = "transition", [], None
        self.program = self._transition_program(view, ev)
        if not self.program and ev.plan == "ok":
            ev.safe_step = view.step

    def _transition_program(self, view: ArmView, ev: TransitionEvent) -> list[Segment]:
        c = self.cfg
        g = view.grasp
        person = self.person if self.person is not None else (g[0] + 10.0, g[1])  # unseen: nowhere near
        up = (g[0], g[1], max(g[2], c.carry_z))
        v = c.transition_speed

        def safes(here: Vec3) -> list[Vec3]:
            """The configured safe postures farthest from the person first; where the arm is when it is
            already farther from the person than every one of them (a person behind the base)."""
            far = sorted(c.safe_poses, key=lambda s: -_d2(person, s))
            return [here] if _d2(person, here) > _d2(person, far[0]) else far

        if self.holding is not None:
            others = [p for n, p in view.objects.items() if n != self.holding]
            origin = self.origins.get(self.holding)
            spots: list[tuple[XY, str]] = [(s, "free") for s in c.put_down_spots]
            if origin is not None:
                spots.append(((origin[0], origin[1]), "origin"))
            spots = [(s, k) for s, k in spots if all(_d2(s, o) >= c.free_radius for o in others)]
            spots.sort(key=lambda sk: -_d2(person, sk[0]))
            pz = TABLE_BLOCK_Z + c.place_dz
            for (sx, sy), kind in spots:
                for safe in safes((sx, sy, c.carry_z)):
                    way = [up, (sx, sy, c.carry_z), (sx, sy, pz), (sx, sy, c.carry_z), safe]
                    if path_keeps_away(person, g, way, c.keep_away_tolerance):
                        ev.spot, ev.spot_kind, ev.safe_pose = [sx, sy], kind, list(safe)
                        return [
                            Segment("move", "carrying", up, speed=v, label="t-up"),
                            Segment("move", "carrying", (sx, sy, c.carry_z), speed=v, label="t-over"),
                            Segment("move", "carrying", (sx, sy, pz), speed=v / 1.5, label="t-lower"),
                            Segment("gripper", "carrying", width=0.08, steps=c.release_steps, label="t-release"),
                            Segment("hold", "between", steps=c.chunk_steps, label="t-settle"),
                            Segment("move", "between", (sx, sy, c.carry_z), speed=v, label="t-lift"),
                            Segment("move", "between", safe, speed=v, label="t-safe"),
                        ]
            ev.plan = "no_put_down_spot"
        for safe in safes(up):
            if path_keeps_away(person, g, [up, safe], c.keep_away_tolerance):
                ev.safe_pose = list(safe)
                return [
                    Segment("move", "between", up, speed=v, label="t-up"),
                    Segment("move", "between", safe, speed=v, label="t-safe"),
                ]
        ev.plan = "no_safe_path" if ev.plan == "ok" else ev.plan
        return []

    def _resume_ready(self, step: int) -> bool:
        if self.agent:
            return self.agent_tool == "continue_task"
        clear = self.last_near is None or (step - self.last_near) * self.dt >= self.cfg.resume_s - 1e-9
        return clear and not self._inside_stop()

    # -- the loop ------------------------------------------------------------------------------
    def next_command(
        self, view: ArmView, frames: Sequence[Seen] = (), calls: Sequence[tuple[int, str]] = ()
    ) -> Command:
        """The next command after the boundary ``view`` (frames and calls: those new since the last)."""
        trigger, agent_step = self._take(frames, calls)
        if self.current is not None and not self.pending:  # its last piece ran to its end
            self._finished(self.current, view)
            self.current = None
        if self.mode in ("task", "done"):
            if self.agent and agent_step is not None:
                self._start_transition(view, "agent", agent_step)
            elif not self.agent and trigger is not None:
                self._start_transition(view, "guard", trigger.step)
        ev = self.events[-1] if self.events else None
        if self.mode == "safe" and ev is not None:
            if self._resume_ready(view.step):
                ev.resume_step = view.step
                self.mode, self.pending, self.current = "task", [], None
                self._plan_block(view)
            else:
                return Command("hold", self.cfg.hold_steps)
        if self.mode == "transition" and ev is not None:
            if self._inside_stop():  # the person is already inside the stop limit: no motion, the stop holds
                ev.waited_inside_stop += 1
                return Command("hold", self.cfg.hold_steps)
            cmd = self._advance(view)
            if cmd is None:  # the transition's program is done: at the safe pose (or as safe as it got)
                if ev.safe_pose is not None and _close(view.grasp, ev.safe_pose):
                    ev.safe_step = view.step
                self.mode = "safe"
                return Command("hold", self.cfg.hold_steps)
            if cmd.kind == "move" and self.person is not None and cmd.target is not None:
                if not path_keeps_away(self.person, view.grasp, [cmd.target], self.cfg.keep_away_tolerance):
                    ev.held_back += 1
                    self.pending.insert(0, cmd)
                    return Command("hold", self.cfg.hold_steps)
            return cmd
        if self.mode == "task":
            cmd = self._advance(view)
            while cmd is None and self.mode == "task":
                if self.planned is not None:  # the block's program ran to its end: sorted
                    self.placed.append(self.planned)
                    self.planned, self.holding = None, None
                self._plan_block(view)
                cmd = self._advance(view)
            if cmd is not None:
                return cmd
        return Command("hold", self.cfg.hold_steps)

    def _advance(self, view: ArmView) -> Command | None:
        """The next piece of the current program (None when it is done)."""
        if self.pending:
            return self.pending.pop(0)
        if self.current is not None:
            self._finished(self.current, view)
            self.current = None
        if not self.program:
            return None
        seg = self.program.pop(0)
        self.current = seg
        if seg.kind == "move":
            assert seg.target is not None
            self.pending = move_chunks(view.grasp, seg.target, seg.speed, self.cfg.chunk_steps, self.dt)
            return self.pending.pop(0)
        if seg.kind == "gripper":
            return Command("gripper", seg.steps, width=seg.width, force=20.0)
        return Command("hold", seg.steps)

    def _finished(self, seg: Segment, view: ArmView) -> None:
        """A segment ran to its end (every piece DONE)."""
        if seg.label == "grip":
            self.holding = self.cfg.blocks[self.block_i]
        elif seg.label in ("release", "t-release"):
            if seg.label == "t-release" and self.events:
                self.events[-1].released_step = view.step
            self.holding = None

    # -- what the executive reports back -------------------------------------------------------
    def cut(self) -> None:
        """The last command was cancelled or refused by a protective stop: the segment it belonged
        to runs again, re-planned from where the arm stands at the next boundary."""
        self.stop_refusals += 1
        if self.current is not None:
            self.pending = []
            self.program.insert(0, self.current)
            self.current = None

    def refused(self, cmd: Command, reason: str) -> None:
        """A move the driver refused for another reason than a stop (unreachable): skip that segment."""
        self.pending = []
        if self.mode == "transition" and self.events:
            self.events[-1].plan = "unreachable"
            self.program = [s for s in self.program if s.label == "t-safe"]
        self.current = None

    def task_part(self) -> dict[str, Any]:
        return {
            "placed": list(self.placed),
            "transitions": [asdict(e) for e in self.events],
            "stop_refusals": self.stop_refusals,
        }


def _close(a: Sequence[float], b: Sequence[float], tol: float = 0.03) -> bool:
    return math.dist(a, b) <= tol
