"""joint_trajectory_controller's decisions: goals, preemption, cancel, the topic, the update loop.

The semantics of ros2_controllers' JointTrajectoryController (read at 94e74de3), one class with
no ROS in it: the node hands it goals, cancels, topic messages and the measured state each
control cycle, and carries out what it returns (the command, feedback, goals that ended).

- One action goal is active at a time. A newer goal preempts it: the old one is aborted with
  INVALID_GOAL, "Current goal preempted by new incoming action." (upstream's words).
- Path tolerance violated while moving (checked up to the last point, and on the first sample)
  → the goal is aborted with PATH_TOLERANCE_VIOLATED and the current position is held.
- From the last point's time on: within every goal tolerance → SUCCEEDED (SUCCESSFUL), the last
  point held; outside it past ``goal_time`` (when > 0) → GOAL_TOLERANCE_VIOLATED, current
  position held; with ``goal_time`` 0 the goal waits for the tolerance as long as it takes.
- Cancel → CANCELED, current position held (upstream's default; no deceleration).
- The topic: a valid trajectory replaces the one running without ending the active goal (which
  is then judged on it, as upstream); an empty one (no points) holds the current position, the
  goal again left active, to be cancelled: the documented stop. Upstream's code since PR #902
  drops an empty message like any invalid one (issue #573 tracks the mismatch); here the
  documented behaviour is served.
- Velocity errors are computed (the arm reports velocities, as Franka's controller config with
  position and velocity state interfaces), so ``stopped_velocity_tolerance`` is part of success.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from alpha_matrix.core.standard_arm.tolerances import SegmentTolerances, within
from alpha_matrix.core.standard_arm.trajectory import ActiveTrajectory, Point, State, Trajectory, in_joint_order

# control_msgs/action/FollowJointTrajectory result codes.
SUCCESSFUL = 0
INVALID_GOAL = -1
INVALID_JOINTS = -2
OLD_HEADER_TIMESTAMP = -3
PATH_TOLERANCE_VIOLATED = -4
GOAL_TOLERANCE_VIOLATED = -5

PREEMPTED = "Current goal preempted by new incoming action."


@dataclass(frozen=True)
class GoalEnd:
    """A goal that ended: ``status`` is succeeded, aborted or canceled."""

    goal_id: Hashable
    status: str
    error_code: int = SUCCESSFUL
    error_string: str = ""


@dataclass(frozen=True)
class Feedback:
    """What FollowJointTrajectory's feedback and the controller_state topic carry."""

    desired: State
    actual: State
    error: State
    index: int


@dataclass
class Update:
    """One control cycle's outcome: joint position targets (and velocity feed-forward) to command,
    goals that ended, and the feedback of this cycle (None while no trajectory runs)."""

    positions: np.ndarray
    velocities: np.ndarray
    ended: list[GoalEnd] = field(default_factory=list)
    feedback: Feedback | None = None


class TrajectoryController:
    """The controller of ``joints``, holding ``initial`` until the first trajectory."""

    def __init__(
        self,
        joints: Sequence[str],
        initial: Sequence[float],
        defaults: SegmentTolerances,
        interpolate_from_desired_state: bool = True,
    ) -> None:
        self.joints = tuple(joints)
        self.defaults = defaults
        self.interpolate_from_desired_state = interpolate_from_desired_state
        self.active_goal: Hashable | None = None
        self.tolerances = defaults
        self._pending: Trajectory | None = None  # accepted, not yet sampled
        self._traj: ActiveTrajectory | None = None  # running (anchored at its first sample)
        self._holding = True
        self._hold_at(State.at_rest(initial))
        self.command = State.at_rest(initial)  # the last command sent (the desired state of the next cycle)

    # ------------------------------------------------------------------ inputs
    def reset(self, positions: Sequence[float], why: str) -> list[GoalEnd]:
        """The robot was put somewhere else (a simulation reset): hold there; an active goal is aborted."""
        ended = self._end_active("aborted", INVALID_GOAL, why)
        self.command = State.at_rest(positions)
        self._hold_at(self.command)
        self.tolerances = self.defaults
        return ended

    def accept_goal(
        self, goal_id: Hashable, traj: Trajectory, tolerances: SegmentTolerances, actual: State
    ) -> list[GoalEnd]:
        """A validated goal starts (upstream's goal_accepted_callback): the active one, if any, is
        preempted; joints a partial goal leaves out hold their current position."""
        ended = self._end_active("aborted", INVALID_GOAL, PREEMPTED)
        self.active_goal = goal_id
        self.tolerances = tolerances
        self._start(in_joint_order(traj, self.joints, actual.positions))
        return ended

    def cancel(self, goal_id: Hashable, actual: State) -> list[GoalEnd]:
        """Cancel ``goal_id``: if it is the active goal it ends CANCELED and the arm holds where it is."""
        if goal_id != self.active_goal:
            return []
        ended = self._end_active("canceled", SUCCESSFUL, "")
        self._hold_at(actual)
        return ended

    def topic_trajectory(self, traj: Trajectory, actual: State) -> None:
        """A message on ~/joint_trajectory, validated unless empty: an empty one holds the current
        position; any other replaces the running trajectory. The active goal stays active."""
        if not traj.points:
            self._hold_at(actual)
            return
        if self.active_goal is None:
            self.tolerances = self.defaults
        self._start(in_joint_order(traj, self.joints, actual.positions))

    # ------------------------------------------------------------------ the cycle
    def update(self, now: float, actual: State, period: float) -> Update:
        """One control cycle at ``now`` with the measured ``actual`` state: the command for the next
        ``period`` (sampled at now + period, as upstream), goals that ended, feedback."""
        traj = self._traj
        first = traj is None
        if traj is None:  # a new trajectory, sampled the first time: anchor it now
            assert self._pending is not None
            before = self.command if self.interpolate_from_desired_state else actual
            traj = self._traj = ActiveTrajectory(self._pending, before, now)
        sample = traj.sample(now)
        desired = sample.state
        error = State(
            desired.positions - actual.positions,
            desired.velocities - actual.velocities,
            np.zeros_like(desired.positions),
        )
        out = Update(self.command.positions, self.command.velocities)
        tol = self.tolerances
        violated = outside_goal = False
        within_goal_time = True
        if not self._holding:
            for i in range(len(self.joints)):
                ep, ev = float(error.positions[i]), float(error.velocities[i])
                if (sample.before_last_point or first) and not within(ep, ev, 0.0, tol.path[i]):
                    violated = True
                if not sample.before_last_point and not within(ep, ev, 0.0, tol.goal[i]):
                    outside_goal = True
                    if tol.goal_time != 0.0 and sample.since_segment_start > tol.goal_time:
                        within_goal_time = False
        if not violated and within_goal_time:
            nxt = traj.sample(now + period).state
            self.command = State(nxt.positions, nxt.velocities, nxt.accelerations)
        out.positions, out.velocities = self.command.positions, self.command.velocities
        if self.active_goal is not None:
            out.feedback = Feedback(desired, actual, error, sample.index)
            if violated:
                out.ended += self._end_active(
                    "aborted", PATH_TOLERANCE_VIOLATED, "Aborted due to path tolerance violation"
                )
                self._hold_now(actual, out)
            elif not sample.before_last_point and not self._holding:
                if not outside_goal:
                    out.ended += self._end_active("succeeded", SUCCESSFUL, "Goal successfully reached!")
                    self._hold_at(State.at_rest(traj.traj.points[-1].positions))
                elif not within_goal_time:
                    why = f"Aborted due to goal_time_tolerance exceeding by {sample.since_segment_start:f} seconds"
                    out.ended += self._end_active("aborted", GOAL_TOLERANCE_VIOLATED, why)
                    self._hold_now(actual, out)
        elif violated or not within_goal_time:  # a topic trajectory: no goal to tell, hold
            self._hold_now(actual, out)
        return out

    def desired_at(self, t: float) -> State:
        """The running trajectory's desired state at ``t`` (upstream's query_state)."""
        if self._traj is None:
            return self.command
        return self._traj.sample(t).state

    @property
    def holding(self) -> bool:
        return self._holding

    # ------------------------------------------------------------------ internals
    def _start(self, traj: Trajectory) -> None:
        self._pending, self._traj, self._holding = traj, None, False

    def _hold_at(self, state: State) -> None:
        """Hold ``state``'s positions (upstream's set_hold_position): a one-point trajectory,
        tolerances no longer checked."""
        q = tuple(float(v) for v in state.positions)
        self._pending = Trajectory(self.joints, (Point(q, 0.0),))
        self._traj = ActiveTrajectory(self._pending, State.at_rest(q), 0.0)
        self._holding = True

    def _hold_now(self, actual: State, out: Update) -> None:
        """Hold the measured position from this very cycle on."""
        self._hold_at(actual)
        self.command = State.at_rest(actual.positions)
        out.positions, out.velocities = self.command.positions, self.command.velocities

    def _end_active(self, status: str, code: int, text: str) -> list[GoalEnd]:
        if self.active_goal is None:
            return []
        ended = [GoalEnd(self.active_goal, status, code, text)]
        self.active_goal = None
        return ended
