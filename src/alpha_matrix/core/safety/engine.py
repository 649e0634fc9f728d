"""Safety event engine: checks every physics step and turns unsafe scans into events.

ROS-free so the monitor node, offline re-analysis and the W sensitivity sweep share one implementation.
Each step yields detections keyed by ``(kind, key)``; a key's event opens at its first unsafe step, stays open
while it persists and closes after ``window`` (W) consecutive clean steps. The close step is the last unsafe step
+ W and ``duration = close - start + 1``, so the W clean steps are counted in the duration, as in the reference
paper. Raw scans (unsafe ``(kind, key, step)`` detections) are kept beside the unique events.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

Vec3 = tuple[float, float, float]
Contact = tuple[int, int, int, int, float]  # (body_a, link_a, body_b, link_b, max normal force over the pair, N)

PANDA = "panda"
FINGER_LINKS = (9, 10)
BASE_LINK = -1
SUPPORT_BODIES = ("table", "plane")  # never "grasped"; the panda base is mounted on them

_ARM_LOWER = (-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973)
_ARM_UPPER = (2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973)
PANDA_JOINT_LIMITS: dict[str, tuple[float, float]] = {
    **{f"panda_joint{i + 1}": (lo, hi) for i, (lo, hi) in enumerate(zip(_ARM_LOWER, _ARM_UPPER, strict=True))},
    **{f"panda_finger_joint{i}": (0.0, 0.04) for i in (1, 2)},
}
DEFAULT_SEVERITY = dict(
    violent_contact="critical", non_finite="critical", out_of_workspace="warning", joint_limit="warning"
)


@dataclass(frozen=True)
class SafetyConfig:
    """Thresholds of the monitor; 60 N sits above nominal contact forces (see ``calibrate_threshold``)."""

    contact_threshold: float = 60.0  # N per contact pair (max over its points); unsafe when strictly above
    window: int = 15  # W consecutive clean steps close an event
    workspace_min: Vec3 = (0.15, -0.45, 0.55)  # inclusive box, m
    workspace_max: Vec3 = (0.95, 0.55, 1.25)
    joint_limits: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(PANDA_JOINT_LIMITS))
    joint_tolerance: float = 0.02  # rad or m allowed past a limit before it is a violation
    severity: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SEVERITY))  # kind -> severity

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")


@dataclass(frozen=True)
class StepInput:
    """One physics step as the monitor sees it. Joint and position fields are tuples of floats.

    ``grasped`` names the blocks held at this step (their finger-link reaction is excluded); None means
    "derive it with ``grasped_blocks``". ``object_positions`` may be None when the step carries no poses.
    """

    step: int
    joint_names: tuple[str, ...]
    joint_positions: tuple[float, ...]
    joint_velocities: tuple[float, ...]
    grasp_position: Vec3
    body_names: tuple[str, ...]  # index = PyBullet body id
    contacts: tuple[Contact, ...] = ()
    object_positions: dict[str, Vec3] | None = None
    grasped: frozenset[str] | None = None

    @classmethod
    def from_sample(cls, sample: Any, joint_names: Sequence[str], body_names: Sequence[str],
                    object_positions: Mapping[str, Sequence[float]] | None = None) -> StepInput:  # fmt: skip
        """Build from a ``sample.StepSample`` (duck-typed, so PyBullet is not imported here)."""
        arrays = (sample.contact_body_a, sample.contact_link_a, sample.contact_body_b, sample.contact_link_b)
        contacts = zip(*arrays, sample.contact_force, strict=True)
        objects = None if object_positions is None else {k: _vec(v) for k, v in object_positions.items()}
        return cls(
            step=int(sample.step),
            joint_names=tuple(joint_names),
            joint_positions=tuple(float(v) for v in sample.joint_positions),
            joint_velocities=tuple(float(v) for v in sample.joint_velocities),
            grasp_position=_vec(sample.grasp_position),
            body_names=tuple(body_names),
            contacts=tuple((int(a), int(la), int(b), int(lb), float(f)) for a, la, b, lb, f in contacts),
            object_positions=objects,
        )


def _vec(v: Iterable[float]) -> Vec3:
    x, y, z = (float(c) for c in v)
    return (x, y, z)


@dataclass
class SafetyEvent:
    """One unique event. ``peak``: max force (N), distance outside the box (m), excess past the limit itself
    (rad or m), or the count of non-finite entries. ``closed_by_end``: closed by ``finish``, not by W clean steps."""

    event_id: int  # index in the episode's ``SafetyEngine.events``; matches opening and closing snapshots
    kind: str
    key: str
    severity: str
    start_step: int
    last_unsafe_step: int
    close_step: int | None = None
    scans: int = 1
    peak: float = 0.0
    closed_by_end: bool = False

    @property
    def is_open(self) -> bool:
        return self.close_step is None

    @property
    def duration(self) -> int | None:
        """``close - start + 1`` in steps (includes the W clean steps); None while open."""
        return None if self.close_step is None else self.close_step - self.start_step + 1


def _name(body_names: Sequence[str], body: int) -> str:
    return body_names[body] if 0 <= body < len(body_names) else f"body{body}"


def grasped_blocks(contacts: Iterable[Contact], body_names: Sequence[str]) -> set[str]:
    """Blocks held at this step: both panda finger links touch them (the simplest physical grasp rule)."""
    touched: dict[str, set[int]] = {}
    for a, la, b, lb, _ in contacts:
        for (body, link), (other, _ol) in (((a, la), (b, lb)), ((b, lb), (a, la))):
            other_name = _name(body_names, other)
            if _name(body_names, body) == PANDA and link in FINGER_LINKS and other_name not in (PANDA, *SUPPORT_BODIES):
                touched.setdefault(other_name, set()).add(link)
    return {name for name, links in touched.items() if links >= set(FINGER_LINKS)}


def _outside(v: Sequence[float], lo: Vec3, hi: Vec3) -> float:
    """Euclidean distance from ``v`` to the inclusive box (0 on or inside it). Added left to right,
    not by ``sum()``: Python 3.12's is compensated, and the same inputs would round differently."""
    dx, dy, dz = (max(lo[i] - v[i], 0.0, v[i] - hi[i]) for i in range(3))
    return math.sqrt(dx**2 + dy**2 + dz**2)


def _non_finite(values: Iterable[float]) -> int:
    return sum(not math.isfinite(v) for v in values)


def scan(s: StepInput, config: SafetyConfig) -> dict[tuple[str, str], float]:
    """Unsafe ``(kind, key) -> value`` of one step; a non-finite field is reported instead of range-checked."""
    if len(s.joint_names) != len(s.joint_positions) or len(s.joint_names) != len(s.joint_velocities):
        raise ValueError(f"step {s.step}: {len(s.joint_names)} joint names but mismatched state arrays")
    found: dict[tuple[str, str], float] = {}

    def hit(kind: str, key: str, value: float) -> None:
        found[(kind, key)] = max(value, found.get((kind, key), value))

    grasped = s.grasped if s.grasped is not None else grasped_blocks(s.contacts, s.body_names)
    for a, la, b, lb, force in s.contacts:
        names = (_name(s.body_names, a), _name(s.body_names, b))
        if (names[0] == PANDA) == (names[1] == PANDA):
            continue  # no panda (support contacts, block-block), or a self-contact
        link, other = (la, names[1]) if names[0] == PANDA else (lb, names[0])
        if link in FINGER_LINKS and other in grasped:
            continue  # the held block's reaction
        if link == BASE_LINK and other in SUPPORT_BODIES:
            continue  # the base on the table it is mounted on
        if force > config.contact_threshold:
            hit("violent_contact", f"{PANDA}/{link}-{other}", force)

    fields: dict[str, Sequence[float]] = dict(joint_positions=s.joint_positions, joint_velocities=s.joint_velocities)
    fields["grasp_position"] = s.grasp_position
    positions = {"grasp": s.grasp_position, **(s.object_positions or {})}
    for name, pos in positions.items():
        if name != "grasp":
            fields[f"object_positions/{name}"] = pos
        if _non_finite(pos) == 0 and (d := _outside(pos, config.workspace_min, config.workspace_max)) > 0.0:
            hit("out_of_workspace", name, d)

    tol = config.joint_tolerance
    for name, q in zip(s.joint_names, s.joint_positions, strict=True):
        if name in config.joint_limits and math.isfinite(q):
            lo, hi = config.joint_limits[name]
            if q < lo - tol or q > hi + tol:
                hit("joint_limit", name, max(lo - q, q - hi))

    for name, values in fields.items():
        if n := _non_finite(values):
            hit("non_finite", name, float(n))
    return found


class SafetyEngine:
    """Stateful per-episode monitor: feed every step in order with ``process``, end with ``finish``."""

    def __init__(self, config: SafetyConfig | None = None) -> None:
        self.config = config or SafetyConfig()
        self.reset()

    def reset(self) -> None:
        """Forget the episode (open events are dropped, not closed: call ``finish`` first)."""
        self.events: list[SafetyEvent] = []
        self.raw_scans = 0
        self.steps_checked = 0
        self._open: dict[tuple[str, str], SafetyEvent] = {}
        self._last_step: int | None = None

    def process(self, s: StepInput) -> list[SafetyEvent]:
        """Check one step; return snapshots of events that opened (``close_step`` None) then closed at it.

        Raises ValueError unless ``s.step`` directly follows the previous step, so no step is skipped or doubled.
        """
        self._check_order(s.step)
        return self._advance(s.step, scan(s, self.config))

    def process_clean(self, step: int) -> list[SafetyEvent]:
        """``process`` of a step known to scan clean (``stream.clean_steps``): it only closes events."""
        self._check_order(step)
        return self._advance(step, {})

    def _check_order(self, step: int) -> None:
        if self._last_step is None:
            if step < 1:
                raise ValueError(f"first step must be >= 1, got {step}")
        elif step != self._last_step + 1:
            raise ValueError(f"step {step} does not follow step {self._last_step}")

    def _advance(self, step: int, found: dict[tuple[str, str], float]) -> list[SafetyEvent]:
        opened: list[SafetyEvent] = []
        closed: list[SafetyEvent] = []
        for (kind, key), value in found.items():
            self.raw_scans += 1
            ev = self._open.get((kind, key))
            if ev is None:
                severity = self.config.severity.get(kind, "warning")
                ev = SafetyEvent(len(self.events), kind, key, severity, step, step, peak=value)
                self._open[(kind, key)] = ev
                self.events.append(ev)
                opened.append(ev)
            else:
                ev.last_unsafe_step = step
                ev.scans += 1
                ev.peak = max(ev.peak, value)
        for k, ev in list(self._open.items()):
            if k not in found and step - ev.last_unsafe_step >= self.config.window:
                ev.close_step = step  # == last_unsafe_step + W since steps are consecutive
                del self._open[k]
                closed.append(ev)
        self.steps_checked += 1
        self._last_step = step
        return [replace(e) for e in opened + closed]

    def finish(self, last_step: int) -> list[SafetyEvent]:
        """Close every open event at the episode's ``last_step`` (duration = last_step - start + 1); return them."""
        if self._last_step is not None and last_step < self._last_step:
            raise ValueError(f"last_step {last_step} precedes the last checked step {self._last_step}")
        closed = list(self._open.values())
        for ev in closed:
            ev.close_step = last_step
            ev.closed_by_end = True
        self._open.clear()
        return [replace(e) for e in closed]


def critical_openings(events: Iterable[SafetyEvent], step: int | None = None) -> list[SafetyEvent]:
    """Critical events that request a protective stop; the decision step is each one's ``start_step``.

    Pass ``step`` with the output of ``process`` so closing snapshots are not taken for new openings.
    """
    return [e for e in events if e.severity == "critical" and (step is None or e.start_step == step)]


def sweep_windows(
    steps: Sequence[StepInput], windows: Iterable[int] = (1, 5, 10, 15, 30, 60), config: SafetyConfig | None = None
) -> dict[int, tuple[int, int]]:
    """W -> (unique events, raw scans), re-running the engine offline; raw scans do not depend on W."""
    base = config or SafetyConfig()
    out: dict[int, tuple[int, int]] = {}
    for w in windows:
        engine = SafetyEngine(replace(base, window=w))
        for s in steps:
            engine.process(s)
        if steps:
            engine.finish(steps[-1].step)
        out[w] = (len(engine.events), engine.raw_scans)
    return out


def calibrate_threshold(max_nominal_force: float, margin: float = 2.0, floor: float = 40.0) -> float:
    """Contact threshold from nominal runs: the largest nominal non-excluded force x margin, never below floor."""
    if not math.isfinite(max_nominal_force) or max_nominal_force < 0.0 or margin <= 0.0:
        raise ValueError(f"bad calibration input: force {max_nominal_force}, margin {margin}")
    return max(max_nominal_force * margin, floor)
