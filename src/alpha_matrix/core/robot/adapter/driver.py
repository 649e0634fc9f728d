"""The adapter's driver decisions: command queue and ids, terminal statuses, protective stops per
requester, the episode step budget, and the measured time from a stop's decision to rest.

The simulated driver (core/robot/driver.py) owns its physics, so it can apply a stop exactly at
decision + L and refuse one that comes later. A real arm runs on its own clock: this core
accepts a stop whenever it comes, stops the arm at once (the node cancels the active goal and
publishes an empty trajectory: joint_trajectory_controller holds position), answers with the
step at which the cancel went out, and measures what a real robot can promise instead: the time
from the decision (the sample of ``decision_step``) to the arm at rest (every arm joint's
velocity below ``rest_velocity`` for ``rest_samples`` samples in a row). The commands a stop cut
end CANCELLED once the arm is at rest (or ``rest_timeout_s`` after the cancel), their status
carrying that time; so does the node's log.

Steps are joint_states samples (core/robot/adapter/samples.py) and advance on the robot's clock,
idle or not. The core is fed samples, replies to the robot's goals and requests; it returns what
the node must do (``Out``). It is not thread-safe: the node serialises the calls.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from alpha_matrix.core.robot.state import CommandEvent, Reply, State

Vec3 = tuple[float, float, float]
MOTION = ("move", "gripper", "home")  # commands the robot executes (a goal, a result)
NOT_AT_REST = -1.0  # stop_to_rest_s of a stop after which the arm was not seen at rest


@dataclass
class Command:
    command_id: int
    kind: str  # "move" | "gripper" | "hold" | "home" (to the ready pose: a reset without a scene reset)
    steps: int
    target: Vec3 | None = None
    width: float = 0.0
    force: float = 0.0
    start_step: int = 0
    awaiting: bool = False  # sent to the robot, its result not yet in


@dataclass(frozen=True)
class Ended(CommandEvent):
    """A command reached a terminal state at ``end_step``; the node adds the observation."""

    stop_to_rest_s: float = 0.0  # a protective stop cut it: decision to rest, s (NOT_AT_REST: never seen)


@dataclass
class StopRecord:
    """One engaged protective stop, from its decision to the arm at rest."""

    requester: str
    reason: str
    decision_step: int
    decision_time: float  # the decision sample's time (the cancel's, for a step not yet sampled)
    apply_step: int  # the sample count when the cancel went out
    apply_time: float
    speed: float = 0.0  # the fastest arm joint at the cancel, rad/s (was the arm moving?)
    cut: list[Command] = field(default_factory=list)
    rest_step: int = 0
    rest_time: float = math.nan
    outcome: str = ""  # why the measurement ended without rest ("" = at rest)
    _run: int = 0  # consecutive samples at rest so far
    _run_start: tuple[int, float] = (0, math.nan)

    @property
    def to_rest_s(self) -> float:
        """Decision to rest, s; NOT_AT_REST when the arm was not seen at rest."""
        return self.rest_time - self.decision_time if self.rest_step else NOT_AT_REST

    def line(self) -> str:
        """One line: what the stop did and how long the arm took to stop."""
        head = (
            f"protective stop at step {self.apply_step} ({self.requester}: {self.reason}): decided at step "
            f"{self.decision_step}, fastest joint {self.speed:.2f} rad/s at the cancel"
        )
        if self.rest_step:
            return f"{head}; at rest at step {self.rest_step}, {self.to_rest_s:.3f} s after the decision"
        return f"{head}; not at rest: {self.outcome}"


@dataclass
class Out:
    """What the node must do after a call, in this order."""

    halt: str = ""  # cancel the active trajectory goal and publish an empty trajectory (why)
    start: list[Command] = field(default_factory=list)  # send these to the robot now
    ended: list[Ended] = field(default_factory=list)  # publish these statuses (flush the step stream first)
    stops: list[StopRecord] = field(default_factory=list)  # stops whose measurement ended: log them
    reset: tuple[int, str, int, int] | None = None  # call the scene's reset service (call no., episode, seed, settle)

    def add(self, other: Out) -> Out:
        self.halt = self.halt or other.halt
        self.start += other.start
        self.ended += other.ended
        self.stops += other.stops
        self.reset = self.reset or other.reset
        return self


@dataclass(frozen=True)
class AdapterSettings:
    max_episode_steps: int = 1260
    reach_tolerance: float = 0.01
    rest_velocity: float = 0.02  # rad/s (arm joints)
    rest_samples: int = 12  # in a row (50 ms at 240 Hz): a velocity zero-crossing is not rest
    rest_timeout_s: float = 3.0
    result_timeout_steps: int = 1200  # a goal's result this many samples past its steps: given up
    scene_reset: bool = True  # a reset service rebuilds the scene; else the reset is a home move


class AdapterCore:
    def __init__(self, settings: AdapterSettings, reach_error: Callable[[Vec3], float]) -> None:
        self.settings, self.reach_error = settings, reach_error
        self.episode_id = ""
        self.step = 0  # samples since the episode's reset (its scene reset done)
        self.counting = False  # samples are steps of an episode
        self.lost = ""  # motion refused until the next reset: why (joint states stopped)
        self.silent = False  # no joint_states now
        self._times: list[float] = []  # the time of each step, step 1 first
        self._speed = 0.0  # the fastest arm joint of the last sample, rad/s
        self._queue: deque[Command] = deque()
        self._active: Command | None = None
        self._next_id = 1
        self.holds: set[str] = set()
        self.measuring: list[StopRecord] = []
        self._reset_calls = 0

    @property
    def idle(self) -> bool:
        """Nothing runs or waits: the arm holds where its last command left it."""
        return self._active is None and not self._queue and not self.measuring

    # -- requests ------------------------------------------------------------------------
    def reset(self, episode_id: str, seed: int, settle_steps: int) -> tuple[Reply, Out]:
        if self.silent:
            return Reply(False, message=f"no joint_states: {self.lost}"), Out()
        out = self._end_measurements("reset before the arm was at rest")
        out.add(self._cancel_all("reset"))
        if out.ended and any(e.start_step for e in out.ended):
            out.halt = "reset"
        self.holds.clear()
        self.lost = ""
        self.episode_id = episode_id
        self.step, self._times = 0, []
        kind = "hold" if self.settings.scene_reset else "home"
        cmd = Command(self._take_id(), kind, max(settle_steps, 1))
        self._queue.append(cmd)
        if self.settings.scene_reset:
            self.counting = False  # until the scene's reset answers: its samples belong to no episode
            self._reset_calls += 1
            out.reset = (self._reset_calls, episode_id, seed, settle_steps)
        else:
            self.counting = True
            self._start_next(out)
        return Reply(True, cmd.command_id, "queued"), out

    def reset_done(self, call: int, ok: bool, message: str = "") -> Out:
        """The scene's reset service answered reset call ``call`` (or failed): steps restart at 1
        with the next sample. The answer to a reset that a later one replaced changes nothing."""
        out = Out()
        if call != self._reset_calls or self.counting:
            return out
        self.counting, self.step, self._times = True, 0, []
        if not ok:
            out.add(self._cancel_all(f"scene reset failed: {message}"))
        self._start_next(out)
        return out

    def move_to(self, target: Vec3, steps: int, validate_only: bool = False) -> tuple[Reply, Out]:
        if not all(math.isfinite(c) for c in target):
            return Reply(False, message="target is not finite"), Out()
        if steps < 1:
            return Reply(False, message="steps must be at least 1"), Out()
        err = self.reach_error(target)
        tol = self.settings.reach_tolerance
        if err > tol:
            x, y, z = target
            return Reply(
                False,
                reach_error=err,
                message=f"unreachable target ({x:.3f}, {y:.3f}, {z:.3f}): IK misses it by {err:.3f} m > {tol:.3f} m",
            ), Out()
        if validate_only:
            return Reply(True, reach_error=err, message="reachable"), Out()
        return self._motion(Command(0, "move", steps, target=target), err)

    def gripper(self, width: float, force: float, steps: int) -> tuple[Reply, Out]:
        if not (math.isfinite(width) and 0.0 <= width <= 0.08):
            return Reply(False, message=f"width {width} outside [0, 0.08] m"), Out()
        if not (math.isfinite(force) and force > 0.0):
            return Reply(False, message=f"max effort {force} must be positive"), Out()
        if steps < 1:
            return Reply(False, message="steps must be at least 1"), Out()
        return self._motion(Command(0, "gripper", steps, width=width, force=force))

    def hold(self, steps: int) -> tuple[Reply, Out]:
        if steps < 1:
            return Reply(False, message="steps must be at least 1"), Out()
        if refused := self._refusal(motion=False):
            return Reply(False, message=refused), Out()
        return self._enqueue(Command(self._take_id(), "hold", steps))

    def protective_stop(
        self, episode_id: str, engage: bool, decision_step: int, requester: str, reason: str, now: float
    ) -> tuple[Reply, Out]:
        """Accepted whenever it comes (a real arm cannot land it at decision + L, and refusing a
        late stop would leave the arm moving): engage stops the arm now; release lifts the
        requester's own hold only."""
        if episode_id != self.episode_id:
            return Reply(False, message=f"request for episode {episode_id!r}, current is {self.episode_id!r}"), Out()
        if not engage:
            self.holds.discard(requester)
            others = sorted(self.holds)
            message = "released" + (f"; still held by {', '.join(others)}" if others else "")
            return Reply(True, apply_step=self.step, message=message), Out()
        self.holds.add(requester)
        seen = 1 <= decision_step <= len(self._times)
        rec = StopRecord(
            requester,
            reason,
            decision_step,
            self._times[decision_step - 1] if seen else now,
            self.step,
            now,
            self._speed,
        )
        out = Out(halt=f"protective stop ({requester}: {reason})")
        rec.cut = self._take_all()
        self.measuring.append(rec)
        timed = "" if seen else f" (step {decision_step} not sampled yet: timed from the cancel)"
        return Reply(True, apply_step=self.step, message=f"stopping: cancel sent at step {self.step}{timed}"), out

    # -- the robot -------------------------------------------------------------------------
    def on_sample(self, arm_velocities: Sequence[float], time: float) -> tuple[int, Out]:
        """A joint_states sample arrived: its step (0 = not part of an episode) and what to do."""
        out = Out()
        self.silent = False
        self._speed = max((abs(v) for v in arm_velocities), default=0.0)
        if not self.counting or self.step >= self.settings.max_episode_steps:
            return 0, out
        self.step += 1
        self._times.append(time)
        out.add(self._measure(arm_velocities, time))
        a = self._active
        if a is not None:
            elapsed = self.step - a.start_step + 1
            if elapsed >= a.steps and not a.awaiting:
                out.ended.append(self._end(a, State.DONE))
            elif a.awaiting and elapsed >= a.steps + self.settings.result_timeout_steps:
                msg = f"no result from the robot {elapsed - a.steps} samples after the command's {a.steps} steps"
                out.add(self._failed(a, msg))
                out.halt = out.halt or msg
        if self.step >= self.settings.max_episode_steps:
            budget = f"episode step budget of {self.settings.max_episode_steps} steps exhausted"
            moving = self._active is not None and self._active.kind in MOTION
            out.add(self._end_measurements("the episode step budget was spent before the arm was at rest"))
            out.add(self._cancel_all(budget))
            if moving:
                out.halt = out.halt or budget
        self._start_next(out)
        return self.step, out

    def goal_result(self, command_id: int, ok: bool, message: str = "") -> Out:
        """The robot finished (or refused) the goal of ``command_id``. A result for a command that
        is no longer active (a stop or a reset cut it) changes nothing."""
        out = Out()
        a = self._active
        if a is None or a.command_id != command_id or not a.awaiting:
            return out
        if not ok:
            out.add(self._failed(a, message))
        else:
            a.awaiting = False
            if self.step - a.start_step + 1 >= a.steps:
                out.ended.append(self._end(a, State.DONE))
        self._start_next(out)
        return out

    def joint_states_lost(self, why: str) -> Out:
        """No sample for too long: stop the arm, end everything with the reason, refuse motion
        until a reset (which waits for samples to come back)."""
        self.silent, self.lost = True, why
        out = self._end_measurements(f"joint_states lost ({why})")
        out.add(self._cancel_all(f"arm stopped: {why}"))
        out.halt = f"arm stopped: {why}"
        return out

    # -- internals -------------------------------------------------------------------------
    def _take_id(self) -> int:
        cid = self._next_id
        self._next_id += 1
        return cid

    def _refusal(self, motion: bool) -> str:
        if self.lost:
            return f"no joint_states: {self.lost}; call robot/reset once they are back"
        if not self.episode_id:
            return "no episode: call robot/reset first"
        if self.step >= self.settings.max_episode_steps:
            return f"episode step budget of {self.settings.max_episode_steps} steps exhausted"
        if motion and self.holds:
            return f"protective stop in effect (held by {', '.join(sorted(self.holds))})"
        return ""

    def _motion(self, cmd: Command, reach_error: float = 0.0) -> tuple[Reply, Out]:
        if refused := self._refusal(motion=True):
            return Reply(False, reach_error=reach_error, message=refused), Out()
        cmd.command_id = self._take_id()
        reply, out = self._enqueue(cmd)
        return Reply(True, reply.command_id, reply.message, reach_error), out

    def _enqueue(self, cmd: Command) -> tuple[Reply, Out]:
        self._queue.append(cmd)
        out = Out()
        self._start_next(out)
        return Reply(True, cmd.command_id, "queued"), out

    def _start_next(self, out: Out) -> None:
        """Start the next command if nothing runs; motion waits while a stop is still measured."""
        if self._active is not None or not self._queue or not self.counting:
            return
        if self.step >= self.settings.max_episode_steps:
            return
        if self._queue[0].kind in MOTION and self.measuring:
            return
        cmd = self._queue.popleft()
        cmd.start_step = self.step + 1
        cmd.awaiting = cmd.kind in MOTION
        self._active = cmd
        if cmd.awaiting:
            out.start.append(cmd)

    def _end(self, cmd: Command, state: State, message: str = "", to_rest: float = 0.0) -> Ended:
        if cmd is self._active:
            self._active = None
        return Ended(cmd.command_id, state, cmd.start_step, self.step, message, to_rest)

    def _failed(self, cmd: Command, message: str) -> Out:
        """The robot did not carry out ``cmd``: it ends CANCELLED, and so does the queue behind it
        (a plan must not go on from a pose it never reached)."""
        out = Out(ended=[self._end(cmd, State.CANCELLED, message)])
        out.add(self._cancel_all(f"command {cmd.command_id} before it failed: {message}"))
        return out

    def _take_all(self) -> list[Command]:
        cut = [] if self._active is None else [self._active]
        self._active = None
        cut += list(self._queue)
        self._queue.clear()
        return cut

    def _cancel_all(self, why: str) -> Out:
        return Out(ended=[self._end(c, State.CANCELLED, why) for c in self._take_all()])

    def _measure(self, velocities: Sequence[float], time: float) -> Out:
        """Feed a sample to every stop being measured; end those at rest or past the timeout."""
        out = Out()
        s = self.settings
        still = all(abs(v) < s.rest_velocity for v in velocities)  # NaN is never at rest
        for rec in list(self.measuring):
            if self.step <= rec.apply_step:
                continue
            if still:
                if rec._run == 0:
                    rec._run_start = (self.step, time)
                rec._run += 1
            else:
                rec._run = 0
            if rec._run >= s.rest_samples:
                rec.rest_step, rec.rest_time = rec._run_start
                out.add(self._finish(rec))
            elif time - rec.apply_time > s.rest_timeout_s:
                rec.outcome = f"still moving {s.rest_timeout_s:g} s after the cancel"
                out.add(self._finish(rec))
        return out

    def _finish(self, rec: StopRecord) -> Out:
        self.measuring.remove(rec)
        line = rec.line()
        out = Out(stops=[rec])
        out.ended = [self._end(c, State.CANCELLED, line, rec.to_rest_s) for c in rec.cut]
        return out

    def _end_measurements(self, why: str) -> Out:
        out = Out()
        for rec in list(self.measuring):
            rec.outcome = why
            out.add(self._finish(rec))
        return out
