"""Fault model of the matrix: formulas, random streams and the injectors, without ROS.

The chaos node calls these pieces at each interface boundary; everything here is plain and
deterministic given its random stream, and each injector reports what it actually delivered
(as an ``Injection``) so a saturated or skipped injection is visible in the record, never silent.

Streams: each fault draws from its own ``seeds.rng(master_seed, episode_index, fault)``, so
switching one fault on never shifts another fault's draws (sha256, never ``hash()``).
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from alpha_matrix.core import seeds
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.fault_log import Injection

Vec3 = tuple[float, float, float]

FAULTS = ("F1", "F2", "F3", "F4")
INTENSITIES = (0.33, 0.66, 1.00)
CONCURRENT = "F1+F2"
CONCURRENT_INTENSITY = 0.66
CONTROL = "none"

SLIP_FORCE = 0.2  # N per finger on slip: below the ≈0.33 N friction limit
TIME_EPS = 1e-9  # s: sim times are sums of float timesteps; compare with this slack


class FaultConfigError(ConfigError, ValueError):
    """A bad fault, intensity or arm name: a one-line CLI error, and a ValueError for plain callers."""


@dataclass(frozen=True)
class FaultSpec:
    """One fault's parameter as a line in the intensity: value = base + slope · I."""

    name: str
    boundary: str
    parameter: str
    unit: str
    base: float
    slope: float

    def value(self, intensity: float) -> float:
        return self.base + self.slope * validate_intensity(intensity)


FAULT_SPECS: dict[str, FaultSpec] = {
    "F1": FaultSpec("F1", "observation", "tau", "s", 0.10, 1.40),
    "F2": FaultSpec("F2", "actuation", "p", "", 0.10, 0.85),
    "F3": FaultSpec("F3", "kinematics", "delta", "m", 0.03, 0.27),
    "F4": FaultSpec("F4", "serialization", "p", "", 0.20, 0.80),
}


def validate_intensity(x: object) -> float:
    """I as a float in [0, 1], or FaultConfigError (NaN and non-numbers included)."""
    if isinstance(x, bool):
        raise FaultConfigError(f"intensity must be a number in [0, 1], got {x!r}")
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise FaultConfigError(f"intensity must be a number in [0, 1], got {x!r}") from None
    if not 0.0 <= value <= 1.0:
        raise FaultConfigError(f"intensity {value!r} is outside [0, 1]")
    return value


def validate_fault(name: str) -> str:
    """A single fault name (F1..F4), or FaultConfigError."""
    if name not in FAULT_SPECS:
        raise FaultConfigError(f"unknown fault {name!r} (known: {', '.join(FAULTS)})")
    return name


def sensor_delay(intensity: float) -> float:
    """F1: τ(I) = 0.10 + 1.40·I seconds of observation lag."""
    return FAULT_SPECS["F1"].value(intensity)


def slip_probability(intensity: float) -> float:
    """F2: P(I) = 0.10 + 0.85·I per lift event."""
    return FAULT_SPECS["F2"].value(intensity)


def ik_offset(intensity: float) -> float:
    """F3: δ(I) = 0.03 + 0.27·I metres added to every commanded end-effector target."""
    return FAULT_SPECS["F3"].value(intensity)


def corruption_probability(intensity: float) -> float:
    """F4: P(I) = 0.20 + 0.80·I per plan message."""
    return FAULT_SPECS["F4"].value(intensity)


def fault_parameter(fault: str, intensity: float) -> float:
    return FAULT_SPECS[validate_fault(fault)].value(intensity)


def fault_stream(master_seed: int, episode_index: int, fault: str) -> np.random.Generator:
    """The fault's own random stream in one episode."""
    return seeds.rng(master_seed, episode_index, validate_fault(fault))


def _record(fault: str, step: int, requested: dict[str, float | str], delivered: dict[str, float | str]) -> Injection:
    return Injection(fault=fault, step=step, requested=requested, delivered=delivered)


# F1 -------------------------------------------------------------------------------------------


class DelayBuffer:
    """Sim-time ring buffer of observations; serves the snapshot at t − τ.

    Keeps ``capacity_s`` of history plus one older snapshot, so a lag equal to the capacity is
    still served exactly. With too little history (start of the episode, or τ > capacity) the
    oldest snapshot is served and the delivered lag is smaller than requested: that is reported
    by ``delayed`` and ``record``, never hidden.
    """

    def __init__(self, capacity_s: float) -> None:
        if not (math.isfinite(capacity_s) and capacity_s > 0.0):
            raise ValueError(f"capacity_s must be a positive number of seconds, got {capacity_s!r}")
        self.capacity_s = float(capacity_s)
        self._t: list[float] = []
        self._obs: list[Any] = []

    def __len__(self) -> int:
        return len(self._t)

    def clear(self) -> None:
        self._t.clear()
        self._obs.clear()

    @property
    def history_s(self) -> float:
        """Span of the stored history (newest − oldest), s."""
        return self._t[-1] - self._t[0] if self._t else 0.0

    def push(self, t: float, obs: Any) -> None:
        """Store the observation taken at sim time ``t`` (non-decreasing; equal t replaces)."""
        if self._t and t < self._t[-1]:
            raise ValueError(f"observation at t={t} is older than the newest stored (t={self._t[-1]})")
        if self._t and t == self._t[-1]:
            self._obs[-1] = obs
            return
        self._t.append(float(t))
        self._obs.append(obs)
        horizon = t - self.capacity_s + TIME_EPS
        drop = bisect.bisect_right(self._t, horizon) - 1  # keep the newest snapshot at or before the horizon
        if drop > 0:
            del self._t[:drop]
            del self._obs[:drop]

    def delayed(self, t_now: float, tau: float) -> tuple[Any, float]:
        """(newest snapshot with time ≤ t_now − τ, delivered lag); the oldest one if history is short."""
        if not self._t:
            raise ValueError("no observation stored yet")
        if not (math.isfinite(tau) and tau >= 0.0):
            raise ValueError(f"lag must be a non-negative number of seconds, got {tau!r}")
        # A query may lag the newest snapshot (the stream runs ahead of a late observation);
        # only what is older than t_now − τ is ever served.
        i = bisect.bisect_right(self._t, t_now - tau + TIME_EPS) - 1
        i = max(i, 0)  # saturated: the oldest snapshot, and a shorter delivered lag
        return self._obs[i], t_now - self._t[i]

    @staticmethod
    def saturated(requested: float, delivered: float) -> bool:
        return delivered < requested - TIME_EPS

    @staticmethod
    def record(step: int, requested: float, delivered: float, position_error: float) -> Injection:
        """F1 injection: requested vs delivered lag, and the position error the lag produced."""
        return _record(
            "F1",
            step,
            {"tau": float(requested)},
            {
                "lag": float(delivered),
                "saturated": float(DelayBuffer.saturated(requested, delivered)),
                "position_error": float(position_error),
            },
        )


def position_error(
    obs_true: Mapping[str, Sequence[float]], obs_delayed: Mapping[str, Sequence[float]]
) -> dict[str, float]:
    """Euclidean distance per named position between the true and the delayed observation, m."""
    if set(obs_true) != set(obs_delayed):
        raise ValueError(f"observations name different objects: {sorted(obs_true)} vs {sorted(obs_delayed)}")
    return {name: math.dist(obs_true[name], obs_delayed[name]) for name in sorted(obs_true)}


# F2 -------------------------------------------------------------------------------------------


class SlipLatch:
    """One Bernoulli(p) draw per lift event, latched until the grip is released.

    The first ``on_lift`` of a lift event draws; later calls (every step of the lift, say)
    return the latched result without drawing, so the slip rate is p per lift, not per step.
    ``release()`` ends the lift event (a later grip-and-lift draws again); ``reset()`` starts a
    new episode. On slip the node drops the finger force to ``SLIP_FORCE`` and physics decides.
    """

    def __init__(self, p: float, rng: np.random.Generator) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"slip probability {p!r} is outside [0, 1]")
        self.p = float(p)
        self._rng = rng
        self.draws = 0
        self.slipped: bool | None = None
        self.draw: float | None = None
        self.draw_step: int | None = None

    def on_lift(self, step: int) -> bool:
        """Whether this lift slips: one draw on the first call of the lift event, then latched."""
        if self.slipped is None:
            self.draw = float(self._rng.random())
            self.draws += 1
            self.draw_step = int(step)
            self.slipped = self.draw < self.p
        return self.slipped

    def release(self) -> None:
        """The gripper opened: the lift event is over, the next lift draws anew."""
        self.slipped = None
        self.draw = None
        self.draw_step = None

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """A new episode (with its own stream, if given)."""
        if rng is not None:
            self._rng = rng
        self.draws = 0
        self.release()

    def record(self) -> Injection:
        """F2 injection of the current lift event: p, the draw, and the delivered finger force.

        Its step is the draw's; the node restamps it with the end step of the command it acted in.
        """
        if self.slipped is None or self.draw is None or self.draw_step is None:
            raise RuntimeError("no lift event drawn yet")
        return _record(
            "F2",
            self.draw_step,
            {"p": self.p},
            {"draw": self.draw, "slipped": float(self.slipped), "force": SLIP_FORCE if self.slipped else "unchanged"},
        )


def grip_refused(injection: Injection) -> Injection:
    """An F2 draw whose grip command the robot refused: it acted in no step (0), and says so."""
    return replace(injection, step=0, delivered={**injection.delivered, "force": "refused"})


# F3 -------------------------------------------------------------------------------------------


def radial_offset(target: Sequence[float], base: Sequence[float], delta: float) -> Vec3:
    """``target`` moved ``delta`` outward from the arm base along the horizontal radial direction.

    Horizontal (x, y only, z kept): the commanded heights (grasp, lift, place) stay as planned,
    so the fault is a pure reach error in the plane in which placement is scored, rather than
    also pushing targets into or away from the table as a 3-D radial from the base (which sits
    at table height) would. A target straight above the base has no radial direction: +x.
    """
    if not math.isfinite(delta):
        raise ValueError(f"offset must be finite, got {delta!r}")
    tx, ty, tz = (float(v) for v in target)
    dx, dy = tx - float(base[0]), ty - float(base[1])
    r = math.hypot(dx, dy)
    ux, uy = (dx / r, dy / r) if r > 1e-9 else (1.0, 0.0)
    return (tx + delta * ux, ty + delta * uy, tz)


def offset_record(step: int, target: Sequence[float], commanded: Sequence[float], delta: float) -> Injection:
    """F3 injection: the requested δ and the offset actually applied to one target."""
    return _record(
        "F3",
        step,
        {"delta": float(delta)},
        {
            "offset": math.dist(target, commanded),
            "dx": float(commanded[0]) - float(target[0]),
            "dy": float(commanded[1]) - float(target[1]),
        },
    )


# F4 -------------------------------------------------------------------------------------------

_STEP_REQUIRED = {"MOVE_TO": ("action", "target"), "GRIP": ("action",), "RELEASE": ("action",)}


def _required_key_paths(data: Any) -> list[tuple[str | int, ...]]:
    """Every required key present in plan-shaped data, in a fixed order (see plan.py)."""
    if not isinstance(data, dict):
        return []
    paths: list[tuple[str | int, ...]] = [(k,) for k in ("object", "steps") if k in data]
    steps = data.get("steps")
    if isinstance(steps, list):
        for i, step in enumerate(steps):
            if isinstance(step, dict):
                keys = _STEP_REQUIRED.get(step.get("action"), ("action",))  # type: ignore[arg-type]
                paths.extend(("steps", i, k) for k in keys if k in step)
    return paths


def corrupt_plan_text(text: str, rng: np.random.Generator, p: float) -> tuple[str, dict[str, Any]]:
    """Corrupt raw planner text with probability ``p``, before any schema validation.

    Draws: u (corrupt iff u < p); if corrupting, the kind (0: delete_key, 1: truncate); then
    which key or where to cut. "delete_key" removes one required key (top-level, or inside a
    step) and re-serialises canonically; when the text is not JSON or has no required key left,
    it truncates instead. The cut is drawn in [1, n − 1] with n the length without trailing
    whitespace, so the last closing character is always lost. The text is only parsed.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"corruption probability {p!r} is outside [0, 1]")
    u = float(rng.random())
    info: dict[str, Any] = {"corrupted": False, "kind": "none", "detail": "", "draw": u, "p": float(p)}
    if u >= p:
        return text, info
    kind = "delete_key" if int(rng.integers(2)) == 0 else "truncate"
    paths: list[tuple[str | int, ...]] = []
    data: Any = None
    if kind == "delete_key":
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            data = None
        paths = _required_key_paths(data)
    if paths:
        path = paths[int(rng.integers(len(paths)))]
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        del parent[path[-1]]
        out = json.dumps(data, sort_keys=True, separators=(",", ":"))
        info.update(corrupted=True, kind="delete_key", detail=".".join(str(x) for x in path))
        return out, info
    n = len(text.rstrip())
    cut = int(rng.integers(1, n)) if n >= 2 else 0
    info.update(corrupted=True, kind="truncate", detail=f"cut at {cut} of {len(text)}")
    return text[:cut], info


def corruption_record(info: Mapping[str, Any], step: int = 0) -> Injection:
    """F4 injection on one plan message (step 0: before any motion)."""
    return _record(
        "F4",
        step,
        {"p": float(info["p"])},
        {
            "draw": float(info["draw"]),
            "corrupted": float(bool(info["corrupted"])),
            "kind": str(info["kind"]),
            "detail": str(info["detail"]),
        },
    )
