"""The robot driver's decisions, without ROS: command queue, stop scheduling, step budget.

Simulation time advances only while a command runs, so how long a planner or the executive
takes in wall-clock time never changes what happens in the world: the step at which every
command starts is a function of the commands alone. Protective stops are scheduled at
``decision_step + L`` and applied before that step's physics.

Each requester holds its own stop, as each stop source of a real safety controller must be
reset on its own: the robot stays stopped while any requester holds one, and a requester's
release lifts only its own hold (an agent's "continue" never lifts the guard's stop).
Requests that apply at the same step are applied in (requester, arrival) order, so two
requesters deciding on the same frame give the same log in every run.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from alpha_matrix.core.robot.state import CommandEvent, Reply, State
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import Vec3


@dataclass
class Command:
    command_id: int
    kind: str  # "move" | "gripper" | "hold"
    steps: int
    target: Vec3 | None = None
    width: float = 0.0
    force: float = 0.0
    start_step: int = 0


@dataclass
class _StopRequest:
    apply_step: int
    engage: bool
    requester: str
    reason: str


@dataclass
class DriverCore:
    world: World
    latency: int = 24
    max_episode_steps: int = 1260
    reach_tolerance: float = 0.01
    episode_id: str = ""
    _queue: deque[Command] = field(default_factory=deque)
    _active: Command | None = None
    _next_id: int = 1
    _stops: list[_StopRequest] = field(default_factory=list)
    _disturbances: list[tuple[int, str, float, float]] = field(default_factory=list)
    stop_log: list[tuple[int, bool, str, str]] = field(default_factory=list)
    _holds: set[str] = field(default_factory=set)  # requesters whose stop is engaged

    # -- requests -----------------------------------------------------------------------
    def reset(self, episode_id: str, seed: int, settle_steps: int) -> tuple[Reply, list[CommandEvent]]:
        events = self._cancel_all("reset", self.world.step_count)
        self._stops.clear()
        self._disturbances.clear()
        self.stop_log.clear()
        self._holds.clear()
        self.world.reset(seed)
        self.episode_id = episode_id
        reply = self._enqueue(Command(self._take_id(), "hold", max(settle_steps, 0)))
        return reply, events

    def move_to(self, target: Vec3, steps: int, validate_only: bool = False) -> Reply:
        if not all(math.isfinite(c) for c in target):
            return Reply(False, message="target is not finite")
        if steps < 1:
            return Reply(False, message="steps must be at least 1")
        err = self.world.reach_error(target)
        if err > self.reach_tolerance:
            return Reply(
                False,
                reach_error=err,
                message=f"unreachable target ({target[0]:.3f}, {target[1]:.3f}, {target[2]:.3f}): "
                f"IK misses it by {err:.3f} m > {self.reach_tolerance:.3f} m",
            )
        if validate_only:
            return Reply(True, reach_error=err, message="reachable")
        if self.world.stopped:
            return Reply(False, reach_error=err, message="protective stop in effect")
        return self._enqueue(Command(self._take_id(), "move", steps, target=target), reach_error=err)

    def gripper(self, width: float, force: float, steps: int) -> Reply:
        if not (math.isfinite(width) and 0.0 <= width <= 0.08):
            return Reply(False, message=f"width {width} outside [0, 0.08] m")
        if not (math.isfinite(force) and force > 0.0):
            return Reply(False, message=f"max effort {force} must be positive")
        if steps < 1:
            return Reply(False, message="steps must be at least 1")
        if self.world.stopped:
            return Reply(False, message="protective stop in effect")
        return self._enqueue(Command(self._take_id(), "gripper", steps, width=width, force=force))

    def hold(self, steps: int) -> Reply:
        if steps < 1:
            return Reply(False, message="steps must be at least 1")
        return self._enqueue(Command(self._take_id(), "hold", steps))

    def protective_stop(self, episode_id: str, engage: bool, decision_step: int, requester: str, reason: str) -> Reply:
        if episode_id != self.episode_id:
            return Reply(False, message=f"request for episode {episode_id!r}, current is {self.episode_id!r}")
        apply_step = decision_step + self.latency
        if apply_step <= self.world.step_count:
            return Reply(
                False,
                apply_step=apply_step,
                message=f"late: would apply at step {apply_step}, robot already at step {self.world.step_count}",
            )
        self._stops.append(_StopRequest(apply_step, engage, requester, reason))
        self._stops.sort(key=lambda r: (r.apply_step, r.requester))  # stable: one requester's keep arrival order
        return Reply(True, apply_step=apply_step, message="scheduled")

    def disturb(self, name: str, dx: float, dy: float, at_step: int) -> Reply:
        """Simulation only: displace an object before the physics of ``at_step``."""
        if name not in self.world.object_poses():
            return Reply(False, message=f"no object named {name!r}")
        if not (math.isfinite(dx) and math.isfinite(dy)):
            return Reply(False, message="displacement must be finite")
        if at_step <= self.world.step_count:
            return Reply(False, message=f"step {at_step} is not in the future (robot at step {self.world.step_count})")
        self._disturbances.append((at_step, name, dx, dy))
        self._disturbances.sort()
        return Reply(True, message="scheduled")

    # -- stepping -----------------------------------------------------------------------
    def has_work(self) -> bool:
        if self.world.step_count >= self.max_episode_steps:
            return False
        return self._active is not None or bool(self._queue)

    def step(self) -> tuple[StepSample, list[CommandEvent]]:
        """Execute the next physics step. Call only when ``has_work()``."""
        events: list[CommandEvent] = []
        step = self.world.step_count + 1
        while self._stops and self._stops[0].apply_step <= step:
            req = self._stops.pop(0)
            events += self._apply_stop(req, step)
        while self._disturbances and self._disturbances[0][0] <= step:
            _at, name, dx, dy = self._disturbances.pop(0)
            self.world.displace(name, dx, dy)
        if self._active is None:
            self._start_next()
        sample = self.world.step()
        if self._active is not None and not self.world.busy:
            events.append(CommandEvent(self._active.command_id, State.DONE, self._active.start_step, sample.step))
            self._active = None
        if sample.step >= self.max_episode_steps:
            events += self._cancel_all(f"episode step budget of {self.max_episode_steps} steps exhausted", sample.step)
        return sample, events

    # -- internals ----------------------------------------------------------------------
    def _take_id(self) -> int:
        cid = self._next_id
        self._next_id += 1
        return cid

    def _enqueue(self, cmd: Command, reach_error: float = 0.0) -> Reply:
        if self.world.step_count >= self.max_episode_steps:
            return Reply(False, message=f"episode step budget of {self.max_episode_steps} steps exhausted")
        self._queue.append(cmd)
        return Reply(True, command_id=cmd.command_id, reach_error=reach_error, message="queued")

    def _start_next(self) -> None:
        while self._queue:
            cmd = self._queue.popleft()
            cmd.start_step = self.world.step_count + 1
            if cmd.kind == "move":
                assert cmd.target is not None
                self.world.start_move(cmd.target, cmd.steps)
            elif cmd.kind == "gripper":
                self.world.start_gripper(cmd.width, cmd.force, cmd.steps)
            else:
                self.world.start_hold(cmd.steps)
            self._active = cmd
            return

    def _apply_stop(self, req: _StopRequest, step: int) -> list[CommandEvent]:
        self.stop_log.append((step, req.engage, req.requester, req.reason))
        if req.engage:
            self._holds.add(req.requester)
            # The world runs this step stopped: the cut commands end at it, the last step of the
            # episode's robot activity, whose observation their statuses carry (episode/end names it).
            events = self._cancel_all(f"protective stop at step {step} ({req.requester}: {req.reason})", step)
            self.world.protective_stop()
            return events
        self._holds.discard(req.requester)
        if not self._holds:
            self.world.resume()
        return []

    def _cancel_all(self, why: str, end: int) -> list[CommandEvent]:
        """End every command CANCELLED at ``end``: the last step the world runs for them."""
        events = []
        if self._active is not None:
            events.append(CommandEvent(self._active.command_id, State.CANCELLED, self._active.start_step, end, why))
            self._active = None
        while self._queue:
            cmd = self._queue.popleft()
            events.append(CommandEvent(cmd.command_id, State.CANCELLED, 0, end, why))
        return events
