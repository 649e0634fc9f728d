"""The step stream as the core sees it: StepBatch messages (from rclpy or from a bag) → StepInputs.

Duck-typed on the message fields, so the live monitor and the offline audit run the very same
conversion and the very same safety engine. The live monitor screens each batch first
(``process_batch``): most steps of an episode are clean, and converting each one to Python
tuples to scan it cost more than the engine itself. The screen is conservative: a step it does
not clear is scanned in full, and the audit re-checks every step without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from alpha_matrix.core.safety.engine import SafetyConfig, SafetyEngine, SafetyEvent, StepInput


def steps_from_batch(batch: Any) -> list[StepInput]:
    n_j = len(batch.joint_names)
    names = tuple(batch.joint_names)
    bodies = tuple(batch.body_names)
    jp = [float(v) for v in batch.joint_positions]
    jv = [float(v) for v in batch.joint_velocities]
    gp = [float(v) for v in batch.grasp_positions]
    contacts: dict[int, list[tuple[int, int, int, int, float]]] = {}
    for step, a, la, b, lb, f in zip(
        batch.contact_step,
        batch.contact_body_a,
        batch.contact_link_a,
        batch.contact_body_b,
        batch.contact_link_b,
        batch.contact_force,
        strict=True,
    ):
        contacts.setdefault(int(step), []).append((int(a), int(la), int(b), int(lb), float(f)))
    out = []
    for i in range(batch.num_steps):
        step = int(batch.first_step) + i
        out.append(
            StepInput(
                step=step,
                joint_names=names,
                joint_positions=tuple(jp[i * n_j : (i + 1) * n_j]),
                joint_velocities=tuple(jv[i * n_j : (i + 1) * n_j]),
                grasp_position=(gp[3 * i], gp[3 * i + 1], gp[3 * i + 2]),
                body_names=bodies,
                contacts=tuple(contacts.get(step, ())),
            )
        )
    return out


def clean_steps(batch: Any, config: SafetyConfig) -> np.ndarray:
    """Per step of ``batch``: True where ``scan`` finds nothing for certain (every joint and grasp
    value finite, the grasp inside the workspace box, each limited joint within limit ± tolerance,
    no contact above the threshold); False where it must look. All False if the arrays are malformed
    (the full conversion then raises the error)."""
    n, names = int(batch.num_steps), list(batch.joint_names)
    jp = np.asarray(batch.joint_positions, dtype=np.float64)
    jv = np.asarray(batch.joint_velocities, dtype=np.float64)
    gp = np.asarray(batch.grasp_positions, dtype=np.float64)
    if jp.size != n * len(names) or jv.size != jp.size or gp.size != 3 * n:
        return np.zeros(n, dtype=bool)
    jp, jv, gp = jp.reshape(n, len(names)), jv.reshape(n, len(names)), gp.reshape(n, 3)
    ok = np.ones(n, dtype=bool)
    ok &= np.isfinite(jp).all(axis=1) & np.isfinite(jv).all(axis=1) & np.isfinite(gp).all(axis=1)
    ok &= ((gp >= np.array(config.workspace_min)) & (gp <= np.array(config.workspace_max))).all(axis=1)
    tol = config.joint_tolerance
    for i, name in enumerate(names):
        if name in config.joint_limits:
            lo, hi = config.joint_limits[name]
            ok &= (jp[:, i] >= lo - tol) & (jp[:, i] <= hi + tol)  # NaN is already not ok
    force = np.asarray(batch.contact_force, dtype=np.float64)
    if force.size:
        hot = np.asarray(batch.contact_step, dtype=np.int64)[force > config.contact_threshold] - int(batch.first_step)
        ok[hot[(hot >= 0) & (hot < n)]] = False
    return ok


class StepScreen:
    """``clean_steps`` one step at a time, on the bridge's own samples (``sim.sample.StepSample``,
    duck-typed): the bridge waits for a screened monitor only from a step this flags on
    (``robot.gate``), because the monitor can decide nothing at a step its screen clears.

    Flags every step ``clean_steps`` does not clear (a unit test compares them), and may flag more
    (a sum of finite values that overflows): a flag only makes the bridge wait."""

    def __init__(self, joint_names: Sequence[str], config: SafetyConfig) -> None:
        tol = config.joint_tolerance
        self._limits = [
            (i, config.joint_limits[n][0] - tol, config.joint_limits[n][1] + tol)
            for i, n in enumerate(joint_names)
            if n in config.joint_limits
        ]
        self._box = tuple(zip(config.workspace_min, config.workspace_max, strict=True))
        self._threshold = config.contact_threshold

    def clean(self, sample: Any) -> bool:
        jp = sample.joint_positions.tolist()
        if not (math.isfinite(sum(jp)) and math.isfinite(sum(sample.joint_velocities.tolist()))):
            return False  # NaN or inf somewhere (or an overflow: flagged, conservatively)
        for i, lo, hi in self._limits:
            if not lo <= jp[i] <= hi:
                return False
        for v, (lo, hi) in zip(sample.grasp_position.tolist(), self._box, strict=True):
            if not lo <= v <= hi:  # NaN and inf fail too
                return False
        threshold = self._threshold
        return not any(f > threshold for f in sample.contact_force.tolist())


def process_batch(engine: SafetyEngine, batch: Any) -> Iterator[tuple[int, list[SafetyEvent]]]:
    """``engine.process`` of every step of ``batch`` in order, as (step, changed events); the same
    events as ``steps_from_batch`` fed step by step, at a fraction of the cost on clean steps."""
    clean = clean_steps(batch, engine.config)
    inputs: list[StepInput] | None = None
    for i in range(int(batch.num_steps)):
        step = int(batch.first_step) + i
        if clean[i]:
            yield step, engine.process_clean(step)
        else:
            inputs = inputs if inputs is not None else steps_from_batch(batch)
            yield step, engine.process(inputs[i])
